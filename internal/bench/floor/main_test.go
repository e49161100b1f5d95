package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/internal/testtree"
)

// TestFloorStartsAsSkillwireDoes: the floor links and initializes every
// package skillwire's command does. So its start costs what skillwire's does,
// and only the work differs.
func TestFloorStartsAsSkillwireDoes(t *testing.T) {
	cmd, err := build.ImportDir("../../../cmd/skillwire", 0)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cmd.Imports {
		if strings.Contains(p, ".") && !slices.Contains(floor.Imports, p) {
			t.Errorf("skillwire imports %s and the floor does not: add it to internal/bench/floor's imports", p)
		}
	}
}

// The floor's modes: -inits does nothing past its start; a look counts
// every entry; -session leaves the session marked and kept, as a start
// with a session does; bad usage is 2 and a failed step 1.
func TestFloorModes(t *testing.T) {
	dir := t.TempDir()
	state, tree := filepath.Join(dir, "state"), filepath.Join(dir, "skills")
	testtree.Make(t, tree, "a/SKILL.md=x", "a/f=1", "b/SKILL.md=y")
	st, err := baseline.Open(baseline.Options{Dir: state, Create: true})
	testtree.Must(t, err)
	st.Close()
	newSession = func() string { return "floor-test" }
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"-inits"}, 0, ""},
		{[]string{"-inits", tree}, 2, ""},
		{nil, 2, ""},
		{[]string{"-state", state}, 2, ""},
		{[]string{"-state", filepath.Join(dir, "none"), tree}, 1, ""},
		{[]string{"-state", state, filepath.Join(dir, "none")}, 1, ""},
		{[]string{"-state", state, tree}, 0, "5\n"},
		{[]string{"-state", state, "-session", tree}, 0, "5\n"},
	} {
		var out, errs strings.Builder
		if code := run(c.args, &out, &errs); code != c.code || out.String() != c.out {
			t.Errorf("floor %q: exit %d, printed %q (%s); want %d, %q", c.args, code, out.String(), errs.String(), c.code, c.out)
		}
	}
	testtree.Must(t, baseline.View(baseline.Options{Dir: state}, func(tx *baseline.Tx) error {
		sv, err := tx.SessionServed().Of("floor-test")
		if err != nil || !sv.Start || !sv.Kept {
			t.Errorf("after -session: %+v, %v; want the session marked and kept", sv, err)
		}
		return nil
	}))
}
