package baseline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// The hook's fast path reads what the daemon cached instead of walking; the
// advisory is a function of the observation alone, so both paths agree
// exactly when the cache gives back the very observation that was put in.
func TestCachedRootIsTheObservationThatWasCached(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/SKILL.md", "a")
	w.write("a/sub/x", "x")
	w.write("odd\nname/f", "y")
	must(t, os.Symlink("a", filepath.Join(w.root.Path, "link")))
	must(t, unix.Mkfifo(filepath.Join(w.root.Path, "a/pipe"), 0o644))
	obs := w.observe(walker.DefaultConfig())
	walked := obs[0].Walk
	must(t, st.Update(func(tx *Tx) error { return tx.PutCachedRoot(walked, time.Now()) }))
	var got *walker.Root
	must(t, st.View(func(tx *Tx) (err error) { got, err = tx.CachedRoot(w.root.Spec()); return }))
	if got == nil || got.Missing != walked.Missing || len(got.Candidates) != len(walked.Candidates) {
		t.Fatalf("cached root %+v", got)
	}
	for i := range walked.Candidates {
		a, b := &walked.Candidates[i], &got.Candidates[i]
		if string(a.Name) != string(b.Name) || a.Kind != b.Kind || a.Digest != b.Digest || !a.Manifest.Equal(&b.Manifest) {
			t.Fatalf("candidate %q differs after the cache", a.Name)
		}
	}
	wantStates := compare(t, st, obs)
	gotStates := compare(t, st, []Observation{{Root: w.root, Walk: got}})
	for name, s := range wantStates {
		if g := gotStates[name]; g.State != s.State || g.ID != s.ID {
			t.Fatalf("%q: walked %s, cached %s", name, s.State, g.State)
		}
	}
}

func TestEventsAreBoundedAndDroppedOnlyWhenAsked(t *testing.T) {
	st, _ := openNew(t)
	now := time.Now()
	var batch []Event
	for i := range MaxEvents + 5 {
		batch = append(batch, Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: now.Add(time.Duration(i))})
	}
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents(batch[:3]) }))
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents(batch[3:]) }))
	var evs []Event
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != MaxEvents || !evs[0].At.Equal(now.Add(5)) {
		t.Fatalf("%d events, oldest at %v", len(evs), evs[0].At)
	}
	must(t, st.Update(func(tx *Tx) error { _, err := tx.DropEvents(evs[:10]); return err }))
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != MaxEvents-10 {
		t.Fatalf("%d events after dropping 10", len(evs))
	}
}

func TestClearKeepsUndeliveredEvents(t *testing.T) {
	st, _ := openNew(t)
	ev := Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: time.Now()}
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents([]Event{ev, ev}) }))
	must(t, st.Update(func(tx *Tx) error { return tx.ClearCache() }))
	var evs []Event
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != 2 {
		t.Fatalf("clear dropped undelivered events: %d left", len(evs))
	}
	// One appended after the listing is not among those dropped.
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents([]Event{ev}) }))
	var n int
	must(t, st.Update(func(tx *Tx) (err error) { n, err = tx.DropEvents(evs); return }))
	must(t, st.Update(func(tx *Tx) (err error) { _, err = tx.DropEvents(evs); return }))
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if n != 2 || len(evs) != 1 {
		t.Fatalf("DropEvents said %d, left %d; want 2 dropped, 1 left", n, len(evs))
	}
}
