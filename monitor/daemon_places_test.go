//go:build linux

package monitor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
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
