package restore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// setupMarket is setup for a plugin folder s of a local marketplace. Its
// marketplace.json, outside the folder, is bound into it (issue #22).
func setupMarket(t *testing.T) (*fixture, *Request, string) {
	t.Helper()
	fx := setup(t)
	market := filepath.Join(filepath.Dir(fx.root), "marketplace.json")
	testtree.Make(t, filepath.Dir(fx.root), "marketplace.json={}")
	root := claude.Root{Path: fx.root, Scope: claude.Global, Kind: claude.PluginSources, Names: []string{"s"},
		Sources: map[string]string{"s": "s@mkt"}, Markets: map[string]string{"s": market}}
	must(t, os.RemoveAll(fx.root))
	testtree.Make(t, fx.root, reviewed...)
	cfg := walker.DefaultConfig()
	cfg.Keep = fx.stage
	c := walker.ObserveIn(context.Background(), root.Spec(), []byte("s"), cfg)
	fx.target.Digest, fx.target.Manifest = c.Digest, c.Manifest
	tamper(t, fx.root)
	r := fx.request(t)
	r.Root = root
	cur := walker.ObserveIn(context.Background(), root.Spec(), []byte("s"), walker.DefaultConfig())
	r.Current = &cur
	return fx, r, market
}

// A restore writes only the folder. The marketplace.json bound into it is
// never written into the tree. The restore is verified against the
// folder's own entries.
func TestARestoreNeverWritesAFileBoundFromOutside(t *testing.T) {
	fx, r, market := setupMarket(t)
	res, err := run(r)
	must(t, err)
	if !res.Verified {
		t.Fatalf("not verified: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(fx.root, "s", string(walker.ScriptEntry(market)))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the bound file's entry was written into the folder: %v", err)
	}
	now := walker.ObserveIn(context.Background(), r.Root.Spec(), []byte("s"), walker.DefaultConfig())
	if now.Digest != fx.target.Digest {
		t.Error("the candidate, its marketplace.json bound, is not the target after the restore")
	}
}

// A bound file that is no longer the target's is refused before anything
// is written. A restore cannot put it back.
func TestARestoreRefusesWhenAFileBoundFromOutsideChanged(t *testing.T) {
	fx, r, market := setupMarket(t)
	must(t, os.WriteFile(market, []byte(`{"plugins":[{"name":"s","hooks":{}}]}`), 0o644))
	cur := walker.ObserveIn(context.Background(), r.Root.Spec(), []byte("s"), walker.DefaultConfig())
	r.Current = &cur
	before := digestAt(t, fx.root, "s")
	if _, err := run(r); !errors.Is(err, ErrScript) {
		t.Fatalf("run = %v, want %v", err, ErrScript)
	}
	if digestAt(t, fx.root, "s") != before {
		t.Error("the folder was changed by a refused restore")
	}
}
