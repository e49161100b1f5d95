package session

import (
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
)

// servedOf is what the store keeps of session's served copies.
func servedOf(t *testing.T, s Start, session string) hookstate.Served {
	t.Helper()
	var sv hookstate.Served
	must(t, baseline.View(s.Store, func(tx *baseline.Tx) (err error) { sv, err = tx.SessionServed().Of(session); return err }))
	return sv
}

// A session start keeps what its walk observed of the folders the client
// serves as read at its start, for the gate to judge their uses on. A
// nested skills folder is left out: the client reads it later, at a touch.
// A start that names no session keeps nothing.
func TestASessionStartKeepsTheCopiesTheClientServes(t *testing.T) {
	s := newStart(t)
	sub := filepath.Join(filepath.Dir(s.Store.Dir), "proj", "sub")
	nested := claude.Root{Path: filepath.Join(sub, ".claude", "skills"), Scope: claude.Project, Kind: claude.Skills}
	testtree.Make(t, nested.Path, "n/SKILL.md=nested")
	s.Roots = append(s.Roots, nested)
	s.Places.Nested = []string{sub}
	if _, err := run(t, s, true); err != nil {
		t.Fatal(err)
	}
	if sv := servedOf(t, s, "s1"); sv.Start {
		t.Errorf("a start with no session kept %+v", sv)
	}
	s.Session = "s1"
	if _, err := run(t, s, true); err != nil {
		t.Fatal(err)
	}
	sv := servedOf(t, s, "s1")
	f, ok := sv.Folder(s.Roots[0].Path)
	if !sv.Start || !ok || len(f.Skills) != 1 || f.Skills[0].Digest == nil || f.Skills[0].Unstamped {
		t.Errorf("the start kept %+v", sv)
	}
	if _, ok := sv.Folder(nested.Path); ok {
		t.Errorf("the start kept the nested folder: %+v", sv)
	}
}
