package baseline

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestBriefTransactionsReleaseTheStoreWhenTheyReturn(t *testing.T) {
	st, dir := openNew(t)
	st.Close()
	opts := Options{Dir: dir, LockTimeout: 200 * time.Millisecond}
	now := time.Now()
	must(t, Update(opts, func(tx *Tx) error { return tx.Projects().Register("/p", now) }))
	must(t, View(opts, func(tx *Tx) error { _, err := tx.Projects().List(); return err }))
	// Nothing is held after either: an exclusive open gets the lock at once.
	st, err := Open(opts)
	must(t, err)
	st.Close()
}

func TestBriefViewTakesASharedLockAndUpdateAnExclusiveOne(t *testing.T) {
	st, dir := openNew(t)
	st.Close()
	opts := Options{Dir: dir, LockTimeout: 200 * time.Millisecond}
	must(t, View(opts, func(*Tx) error {
		if err := View(opts, func(*Tx) error { return nil }); err != nil {
			t.Errorf("a view inside a view: %v", err)
		}
		if err := Update(opts, func(*Tx) error { return nil }); !errors.Is(err, ErrBusy) {
			t.Errorf("an update inside a view: got %v, want busy", err)
		}
		return nil
	}))
}

func TestBriefUpdateWritesNothingWhenFnFails(t *testing.T) {
	st, dir := openNew(t)
	st.Close()
	opts := Options{Dir: dir}
	boom := errors.New("boom")
	err := Update(opts, func(tx *Tx) error {
		must(t, tx.Projects().Register("/p", time.Now()))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want fn's error", err)
	}
	must(t, View(opts, func(tx *Tx) error {
		if ps, err := tx.Projects().List(); err != nil || slices.Contains(ps, "/p") {
			t.Errorf("projects %v (%v): the failed update was committed", ps, err)
		}
		return nil
	}))
}

func TestBriefTransactionsCreateOnlyWhenAsked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	noop := func(*Tx) error { return nil }
	if err := View(Options{Dir: dir}, noop); !errors.Is(err, ErrAbsent) {
		t.Fatalf("view of an absent store: got %v", err)
	}
	if err := Update(Options{Dir: dir}, noop); !errors.Is(err, ErrAbsent) {
		t.Fatalf("update of an absent store: got %v", err)
	}
	must(t, View(Options{Dir: dir, Create: true}, noop))
	must(t, Update(Options{Dir: dir}, noop))
}
