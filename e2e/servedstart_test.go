//go:build e2e

package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A top-level skill is served as the client's watcher last read it. Under
// balanced, foo reviewed SAFE is changed mid-session. The watcher reloads
// it: its ConfigChange is asked (left to the use), so not blocked. The
// model puts the reviewed bytes back and calls Skill foo at once, before
// the watcher reads it again. The disk is the reviewed foo, but the client
// serves the changed copy: the call is asked (refused under -p, even with
// permissions skipped) and the changed body never reaches the model. Controls: with the hooks
// uninstalled the changed body reaches the model; an untouched foo loads;
// put back and used after the watcher read it again, the reviewed foo
// loads.
func TestATopLevelSkillReloadedChangedAndPutBackIsHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tamper    bool
		uninstall bool
		reread    bool // the put back is used after the watcher read it
	}{
		{name: "changed, reloaded, put back, used at once", tamper: true},
		{name: "control: hooks uninstalled", tamper: true, uninstall: true},
		{name: "control: untouched"},
		{name: "control: put back, used after the reload", tamper: true, reread: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			foo := w.Write("home/.claude/skills/foo/SKILL.md", fooFront+fooBody+"\n")
			bad := w.Write("bad.md", fooFront+evilBody+"\n")
			kept := filepath.Join(w.Root, "foo.kept")
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			w.Record("skill", "foo", "SAFE-TO-PROPOSE")
			if tc.uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			w.Settle()
			script := []Reply{bash("sleep 8"), bash("true"), Skill("foo")}
			if tc.tamper {
				script = []Reply{bash("cp " + foo + " " + kept + " && cp " + bad + " " + foo), bash("sleep 8"), bash("mv " + kept + " " + foo), Skill("foo")}
			}
			if tc.reread {
				script = slices.Insert(script, 3, bash("sleep 8"))
			}
			m := model(t, script)
			r := w.Claude(m, bypass("use foo"))
			res, got := served(m, evilBody)
			wantEvil := tc.tamper && tc.uninstall
			if got != wantEvil {
				t.Errorf("the changed body reached the model: %v, want %v (Skill: %q, denials %v)", got, wantEvil, res, r.Denials())
			}
			loaded := m.Sent(fooBody) && !slices.Contains(r.Denials(), "Skill")
			if want := !tc.tamper || tc.reread; loaded != want {
				t.Errorf("the reviewed foo loaded: %v, want %v (Skill: %q, denials %v)", loaded, want, res, r.Denials())
			}
			if held := tc.tamper && !tc.uninstall && !tc.reread; held && (!slices.Contains(r.Denials(), "Skill") || !strings.Contains(res, "after Claude Code read it")) {
				t.Errorf("the Skill call was not asked with skillwire's reason (refused under -p): %q, denials %v", res, r.Denials())
			}
			noTrouble(t, r)
		})
	}
}
