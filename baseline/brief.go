package baseline

// View opens the store, runs fn in one read transaction under a shared lock,
// and closes the store. Nobody keeps it open between operations. opts.Create
// is honoured (ids are minted with the store's secret).
func View(opts Options, fn func(*Tx) error) error {
	opts.ReadOnly = true
	st, err := Open(opts)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.View(fn)
}

// Update opens the store, runs fn in one read-write transaction and closes
// the store. It releases the lock as soon as fn is committed.
func Update(opts Options, fn func(*Tx) error) error {
	opts.ReadOnly = false
	st, err := Open(opts)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Update(fn)
}
