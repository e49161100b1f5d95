package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
)

// A command run outside a session observes the added folders the store
// has records of. It observes their skills, agents and commands roots. Of
// their configuration roots, only the instruction files recorded there
// count. The client reads no settings.json under an added folder. A root
// the caller lists already is never added again.
func TestAddedRootsAreTheRecordedAddedFoldersInstructionsOnly(t *testing.T) {
	s := newStart(t)
	x := filepath.Join(t.TempDir(), "x")
	testtree.Make(t, x, ".claude/skills/s/SKILL.md=1", "CLAUDE.md=a", "CLAUDE.local.md=b", "settings.json={}", "AGENTS.md=c",
		".claude/CLAUDE.md=d")
	global := s.Roots[0]
	s.Roots = append(s.Roots,
		claude.Root{Path: filepath.Join(x, ".claude/skills"), Scope: claude.Added, Kind: claude.Skills},
		claude.Root{Path: x, Scope: claude.Added, Kind: claude.Config, Names: []string{"AGENTS.md", "CLAUDE.local.md", "CLAUDE.md", "settings.json"}},
		claude.Root{Path: filepath.Join(x, ".claude"), Scope: claude.Added, Kind: claude.Config, Names: []string{"CLAUDE.md"}})
	if _, err := run(t, s, true); err != nil {
		t.Fatal(err)
	}
	have := []claude.Root{global, {Path: filepath.Join(x, ".claude"), Scope: claude.Added, Kind: claude.Config, Names: []string{"CLAUDE.md"}}}
	got, err := baseline.AddedRoots(s.Store, have, "/h")
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, r := range got {
		desc = append(desc, fmt.Sprintf("%s %s %s %s %s", r.Scope, r.Kind, r.Path, strings.Join(r.Names, ","), r.Home))
	}
	want := []string{"added skills " + filepath.Join(x, ".claude/skills") + "  ",
		"added config " + x + " CLAUDE.local.md,CLAUDE.md /h"}
	slices.Sort(desc)
	slices.Sort(want)
	if !slices.Equal(desc, want) {
		t.Errorf("added roots\n%q\nwant\n%q", desc, want)
	}
}

// The roots observed from the store's records are bounded. Past
// baseline.MaxAddedRoots the rest are told, never walked.
func TestAddedRootsAreBoundedAndThePastTheBoundIsTold(t *testing.T) {
	s := newStart(t)
	base := t.TempDir()
	for i := range baseline.MaxAddedRoots + 1 {
		p := filepath.Join(base, fmt.Sprint(i), ".claude/skills")
		testtree.Make(t, p, "s/SKILL.md=1")
		s.Roots = append(s.Roots, claude.Root{Path: p, Scope: claude.Added, Kind: claude.Skills})
	}
	if _, err := run(t, s, true); err != nil {
		t.Fatal(err)
	}
	got, err := baseline.AddedRoots(s.Store, nil, "")
	if !errors.Is(err, baseline.ErrAddedRoots) || len(got) != baseline.MaxAddedRoots {
		t.Errorf("%d roots, error %v; want %d and baseline.ErrAddedRoots", len(got), err, baseline.MaxAddedRoots)
	}
}

// No store: no roots, no error.
func TestAddedRootsOfNoStoreAreNone(t *testing.T) {
	s := newStart(t)
	if got, err := baseline.AddedRoots(s.Store, nil, ""); err != nil || got != nil {
		t.Errorf("got %v, %v", got, err)
	}
}
