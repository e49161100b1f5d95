package history

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/walker"
)

// keeperWalk has k stage a walk of a one-file candidate s and wants it.
func keeperWalk(t *testing.T, k *Keeper, st *baseline.Store) (walker.Candidate, []Want) {
	t.Helper()
	dir := t.TempDir()
	testtree.Make(t, dir, "s/f=kept bytes")
	cfg := walker.DefaultConfig()
	k.Attach(&cfg)
	c := walker.Observe(t.Context(), dir, []byte("s"), cfg)
	return c, []Want{{ID: st.ID(dir, []byte("s")), Manifest: &c.Manifest, How: baseline.HowSession}}
}

func TestKeeperRecordsTheVersionsEvenWhenContentCannotBeKept(t *testing.T) {
	opts, st := openStore(t)
	// A file where the content store's directory goes: no object can be written.
	must(t, os.WriteFile(filepath.Join(opts.Dir, content.ObjectsDir), nil, 0o600))
	k := NewKeeper(opts, nil)
	_, wants := keeperWalk(t, k, st)
	must(t, st.Update(func(tx *baseline.Tx) error { return k.Keep(tx, wants, time.Now()) }))
	if k.Err() == nil || !k.Kept() {
		t.Fatalf("Err %v, Kept %v: want the content store's failure and the version kept", k.Err(), k.Kept())
	}
	must(t, st.View(func(tx *baseline.Tx) error {
		vs, err := tx.Versions().Of(wants[0].ID)
		if len(vs) != 1 || vs[0].Restorable {
			t.Errorf("versions %+v: want one, not restorable", vs)
		}
		return err
	}))
}

func TestKeeperCollectsNothingAndTouchesNoStoreWhenItKeptNothing(t *testing.T) {
	opts, _ := openStore(t) // held open: a collection would find it busy
	k := NewKeeper(opts, nil)
	if got, err := k.Collect(content.DefaultMaxBytes); err != nil || got != (content.Collected{}) {
		t.Fatalf("Collect = %+v, %v; want nothing done", got, err)
	}
}

func TestKeeperContentFindsWhatTheWalkStagedBeforeTheStore(t *testing.T) {
	opts, st := openStore(t)
	k := NewKeeper(opts, nil)
	c, _ := keeperWalk(t, k, st)
	h := c.Manifest.Entries[1].Hash
	got := k.Content(func(snapshot.Hash) ([]byte, bool) { return nil, false })
	if b, ok := got(h); !ok || string(b) != "kept bytes" {
		t.Fatalf("staged content: %q, %v", b, ok)
	}
}
