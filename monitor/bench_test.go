package monitor

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// storeOf makes a store of n records: a tenth of them of added folders
// (a skill and a CLAUDE.md each, as sessions with --add-dir leave them,
// within baseline.MaxAddedRoots), the rest global skills.
func storeOf(b testing.TB, n int) baseline.Options {
	b.Helper()
	o := baseline.Options{Dir: filepath.Join(b.TempDir(), "state"), LockTimeout: 5 * time.Second, Create: true}
	var sts []baseline.Standing
	add := func(r claude.Root, name string, i int) {
		c := &walker.Candidate{Name: []byte(name), Digest: snapshot.Hash{byte(i), byte(i >> 8)}}
		sts = append(sts, baseline.Standing{Root: r, Name: c.Name, State: baseline.New, Observed: c})
	}
	for i := range n - n/10 {
		add(claude.Root{Path: "/h/.claude/skills", Scope: claude.Global, Kind: claude.Skills}, fmt.Sprintf("s%04d", i), i)
	}
	for i := range n / 20 {
		dir := fmt.Sprintf("/w/extra%04d", i)
		add(claude.Root{Path: dir + "/.claude/skills", Scope: claude.Added, Kind: claude.Skills}, "s", i)
		add(claude.Root{Path: dir, Scope: claude.Added, Kind: claude.Config, Names: []string{"CLAUDE.md"}}, "CLAUDE.md", i)
	}
	if err := baseline.Update(o, func(tx *baseline.Tx) error {
		for i := range sts {
			sts[i].ID = tx.ID(sts[i].Root.Path, sts[i].Name)
		}
		_, err := tx.Advance(sts, false, time.Now())
		return err
	}); err != nil {
		b.Fatal(err)
	}
	o.Create = false
	return o
}

// What each heartbeat reads of the store for the folders sessions added
// (currentRoots): every record, on a store of 2,000.
func BenchmarkTheAddedRootsOfAStoreOf2000Records(b *testing.B) {
	o := storeOf(b, 2000)
	o.ReadOnly = true
	b.ResetTimer()
	for b.Loop() {
		err := baseline.View(o, func(tx *baseline.Tx) error {
			roots, err := tx.AddedRoots(nil, "/h")
			if len(roots) == 0 {
				b.Fatal("no roots")
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// The same read, as each heartbeat makes it, of a store no one wrote to
// since the daemon's last commit (addedRoots): the records are not read.
func BenchmarkTheAddedRootsOfAnUnchangedStoreOf2000Records(b *testing.B) {
	o := storeOf(b, 2000)
	o.ReadOnly = true
	var a addedRoots
	b.ResetTimer()
	for b.Loop() {
		err := baseline.View(o, func(tx *baseline.Tx) error {
			roots, err := a.of(tx, "/h")
			if len(roots) == 0 {
				b.Fatal("no roots")
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// The daemon's heartbeat reads the records for the added folders' roots
// only when the store changed since it last read them: a record another
// process writes, before or after a heartbeat of the daemon's own, is
// read at the next beat, and a heartbeat alone carries what was read.
func TestTheAddedRootsAreReadAgainAfterEveryCommitButTheDaemonsOwn(t *testing.T) {
	o := storeOf(t, 40)
	var a addedRoots
	beats := 0
	view := func() []claude.Root {
		t.Helper()
		var roots []claude.Root
		testtree.Must(t, baseline.View(o, func(tx *baseline.Tx) (err error) { roots, err = a.of(tx, "/h"); return }))
		return roots
	}
	added := func(dir string) {
		t.Helper()
		r := claude.Root{Path: dir + "/.claude/skills", Scope: claude.Added, Kind: claude.Skills}
		c := &walker.Candidate{Name: []byte("s"), Digest: snapshot.Hash{9}}
		testtree.Must(t, baseline.Update(o, func(tx *baseline.Tx) error {
			_, err := tx.Advance([]baseline.Standing{{ID: tx.ID(r.Path, c.Name), Root: r, Name: c.Name, State: baseline.New, Observed: c}}, false, time.Now())
			return err
		}))
	}
	beat := func() {
		t.Helper()
		made := 0
		testtree.Must(t, baseline.Update(o, func(tx *baseline.Tx) error {
			beats++
			made = tx.Commit()
			return tx.Cache().PutHeartbeat(cache.Heartbeat{PID: 1, At: time.Now().UTC()})
		}))
		a.carry(made)
	}
	holds := func(roots []claude.Root, dir string) bool {
		return slices.ContainsFunc(roots, func(r claude.Root) bool { return r.Path == dir+"/.claude/skills" })
	}
	before := len(view())
	beat()
	if at := a.at; len(view()) != before || a.at != at {
		t.Fatalf("a heartbeat alone read the records again (%d, at %d, was %d)", len(view()), a.at, at)
	}
	added("/w/after-a-beat")
	if !holds(view(), "/w/after-a-beat") {
		t.Error("a record written after the daemon's heartbeat was not read")
	}
	added("/w/before-a-beat")
	beat()
	if !holds(view(), "/w/before-a-beat") {
		t.Error("a record written between a read and the daemon's heartbeat was not read")
	}
	if beats != 2 {
		t.Fatalf("%d beats", beats)
	}
}
