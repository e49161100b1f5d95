package baseline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// The hook's fast path reads what the daemon cached instead of walking. The
// advisory is a function of the observation alone. So both paths agree
// exactly when the cache gives back the very observation put in.
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
	must(t, st.Update(func(tx *Tx) error { return tx.Cache().PutRoot(walked, time.Now()) }))
	var got *walker.Root
	must(t, st.View(func(tx *Tx) (err error) { got, err = tx.Cache().Root(w.root.Spec()); return }))
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
