package served

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// BenchmarkKeepStart is what keeping the served copies adds to a session
// start (issue 34's path): 100 skills of 20 files each, stamped and kept
// in one transaction. The walk is the start's own, done once outside. The
// store's write alone is the floor: one transaction, synced.
func BenchmarkKeepStart(b *testing.B) {
	dir := b.TempDir()
	root := claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills}
	var spec []string
	for i := range 100 {
		spec = append(spec, fmt.Sprintf("skill-%03d/SKILL.md=---\nname: s%d\n---\nbody\n", i, i))
		for j := range 19 {
			spec = append(spec, fmt.Sprintf("skill-%03d/f%02d=%d", i, j, j))
		}
	}
	testtree.Make(b, root.Path, spec...)
	// The start's walk keeps each entry's identity (Config.Idents, with
	// Reuse), so the stamps are made of what it stated.
	cfg := walker.DefaultConfig()
	cfg.Reuse, cfg.Idents = walker.LoadHashes(filepath.Join(dir, "hashes")), true
	w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, cfg)[0]
	if len(w.Candidates) != 100 || w.Candidates[0].Idents == nil {
		b.Fatalf("the walk kept no identities: %d candidates", len(w.Candidates))
	}
	obs := []baseline.Observation{{Root: root, Walk: &w}}
	o := baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: time.Second}
	empty := walker.Root{Spec: root.Spec()}
	for _, c := range []struct {
		name string
		obs  []baseline.Observation
	}{{"100x20 files", obs}, {"store write alone", []baseline.Observation{{Root: root, Walk: &empty}}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := KeepStart(o, "s1", c.obs, nil, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
