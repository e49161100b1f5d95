//go:build linux

package monitor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// The daemon watches the places a session start finds (issue 22): a
// project started in repo/sub loads repo/.claude/skills, and a nested
// src/.claude/skills and src/CLAUDE.md once Claude works under src. A
// daemon that watched only sub/.claude left those to the next session.
func TestDaemonWatchesTheAncestorAndNestedPlacesOfAProject(t *testing.T) {
	h := startDaemon(t, nil)
	repo := filepath.Join(filepath.Dir(h.cfg), "repo")
	proj := filepath.Join(repo, "sub")
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	write(t, filepath.Join(repo, ".claude/skills/up/SKILL.md"), "1")
	write(t, filepath.Join(proj, "src/.claude/skills/nest/SKILL.md"), "1")
	write(t, filepath.Join(proj, "src/CLAUDE.md"), "Tests first.\n")
	st, err := baseline.Open(baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second})
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error { return tx.Projects().Register(proj, time.Now()) }))
	st.Close()

	ancestor := filepath.Join(repo, ".claude/skills")
	nested := filepath.Join(proj, "src/.claude/skills")
	for _, r := range []struct{ root, name string }{{ancestor, "up"}, {nested, "nest"}} {
		want := observed(r.root, r.name)
		h.waitFor(r.name+" in "+r.root, func(tx *baseline.Tx) bool { return cachedIn(tx, r.root, r.name, want) })
	}
	h.waitFor("the nested CLAUDE.md", func(tx *baseline.Tx) bool {
		r, err := tx.Cache().Root(walker.RootSpec{Path: filepath.Join(proj, "src")})
		return err == nil && r != nil && len(r.Candidates) == 1 && string(r.Candidates[0].Name) == "CLAUDE.md"
	})

	write(t, filepath.Join(nested, "nest/SKILL.md"), "evil")
	want := observed(nested, "nest")
	h.waitFor("the edit in the nested root", func(tx *baseline.Tx) bool { return cachedIn(tx, nested, "nest", want) })
	write(t, filepath.Join(ancestor, "new/SKILL.md"), "new")
	want = observed(ancestor, "new")
	h.waitFor("a new skill in the ancestor's root", func(tx *baseline.Tx) bool { return cachedIn(tx, ancestor, "new", want) })
}

// The daemon watches the folders sessions added (issue 22), as the store
// recorded them and list and scan observe them: a skill of an added
// folder and its CLAUDE.md edited between sessions are seen by the
// daemon, and a configuration file recorded there that the client does
// not read (settings.json) is not watched.
func TestDaemonWatchesTheRecordedAddedFolders(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x")
	skills := filepath.Join(x, ".claude/skills")
	write(t, filepath.Join(skills, "s/SKILL.md"), "1")
	write(t, filepath.Join(x, "CLAUDE.md"), "Tests first.\n")
	write(t, filepath.Join(x, "settings.json"), "{}")
	h := startDaemon(t, nil)
	roots := []claude.Root{{Path: skills, Scope: claude.Added, Kind: claude.Skills},
		{Path: x, Scope: claude.Added, Kind: claude.Config, Names: []string{"CLAUDE.md", "settings.json"}}}
	var walked []baseline.Observation
	for i, w := range walker.Scan(context.Background(), []walker.RootSpec{roots[0].Spec(), roots[1].Spec()}, walker.DefaultConfig()) {
		walked = append(walked, baseline.Observation{Root: roots[i], Walk: &w})
	}
	st, err := baseline.Open(baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second})
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(walked)
		if err != nil {
			return err
		}
		_, err = tx.Advance(sts, false, time.Now())
		return err
	}))
	st.Close()

	h.waitFor("the added folder's skill", func(tx *baseline.Tx) bool { return cachedIn(tx, skills, "s", observed(skills, "s")) })
	write(t, filepath.Join(skills, "s/SKILL.md"), "evil")
	want := observed(skills, "s")
	h.waitFor("the edit of the added folder's skill", func(tx *baseline.Tx) bool { return cachedIn(tx, skills, "s", want) })
	write(t, filepath.Join(x, "CLAUDE.md"), "Push to main.\n")
	h.waitFor("the edit of the added folder's CLAUDE.md", func(tx *baseline.Tx) bool {
		r, err := tx.Cache().Root(walker.RootSpec{Path: x})
		if err != nil || r == nil || len(r.Candidates) != 1 || string(r.Candidates[0].Name) != "CLAUDE.md" {
			return false
		}
		return r.Candidates[0].Digest == walker.ObserveIn(context.Background(), (claude.Root{Path: x, Kind: claude.Config, Names: []string{"CLAUDE.md"}}).Spec(), []byte("CLAUDE.md"), walker.DefaultConfig()).Digest
	})
}
