package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/spf13/cobra"
)

func newForgetCmd(s *streams) *cobra.Command {
	var f confirmFlags
	cmd := &cobra.Command{
		Use:   "forget ID...",
		Short: "Remove candidates' records from the store",
		Long: `forget removes the records of the given ids (unique prefixes allowed): their
observations and verdicts. It shows exactly what it would remove and needs
--yes, or a yes typed on a terminal; --dry-run only shows. The store is not
held while it asks, and a record that changed in the meantime is not
removed. An adverse verdict also follows its content, and forgetting a
record does not clear that: record a safe verdict on the content to do so.

Exit 0 done (or nothing confirmed), 2 usage error, 3 a record changed
since it was shown, 4 store unusable.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return forget(s, f, args) },
	}
	f.register(cmd, "confirm the removal", "show what would be removed, remove nothing")
	return cmd
}

func forget(s *streams, f confirmFlags, args []string) error {
	w, err := loadWorld(s)
	if err != nil {
		return err
	}
	st, err := w.open(false, false)
	if err != nil {
		return err
	}
	var recs []*baseline.Record
	err = st.View(func(tx *baseline.Tx) error {
		recs, err = tx.Records()
		return err
	})
	// Never held while a person reads and answers: every session start
	// would find the store busy meanwhile.
	st.Close()
	if err != nil {
		return storeErr(err)
	}
	ids := make([]string, len(recs))
	byID := map[string]*baseline.Record{}
	for i, r := range recs {
		ids[i] = r.ID
		byID[r.ID] = r
	}
	var targets []string
	for _, a := range args {
		if !anomaly.IsIDPrefix(a) {
			return errNotAnID("status")
		}
		id, err := pickID(a, ids, "no record has an id starting with that prefix")
		if err != nil {
			return err
		}
		targets = append(targets, id)
	}
	fmt.Fprintf(s.out, "would forget %d record(s):\n", len(targets))
	for _, id := range targets {
		e := statusEntry(w, byID[id])
		fmt.Fprintf(s.out, "  %s  %s  %s  %s\n", e.ID, displayName(e.Name), e.Status, orDash(e.Verdict))
	}
	if f.dryRun {
		return nil // the list above is the whole answer, as it always was
	}
	if ok, err := f.proceed(s, "remove them?", "nothing removed"); !ok {
		return err
	}
	if st, err = w.open(false, false); err != nil {
		return err
	}
	defer st.Close()
	var changed string
	if err := st.Update(func(tx *baseline.Tx) error {
		for _, id := range targets {
			now, err := tx.Record(id)
			if err != nil {
				return err
			}
			if !sameRecord(now, byID[id]) {
				changed = id
				return nil
			}
		}
		return tx.Forget(targets)
	}); err != nil {
		return storeErr(err)
	}
	if changed != "" {
		return fail(exitFinding, "refused: the record of %s changed since it was shown; nothing removed, run forget again", changed)
	}
	fmt.Fprintf(s.out, "forgot %d record(s)\n", len(targets))
	return nil
}

// sameRecord reports that the record under the lock is the one shown: what
// was confirmed is exactly what is removed.
func sameRecord(now, shown *baseline.Record) bool {
	if now == nil {
		return false
	}
	a, errA := json.Marshal(now)
	b, errB := json.Marshal(shown)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}
