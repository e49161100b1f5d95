//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// The model's EnterWorktree moves the session into a new worktree under
// .claude/worktrees. A BLOCK on a project skill still holds there
// (builtin.Tools:
// EnterWorktree needs no gate of its own). Control: with the hooks
// uninstalled its body reaches the model.
func TestABlockedProjectSkillIsDeniedInAWorktreeTheModelEnters(t *testing.T) {
	t.Parallel()
	bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		gitInit(t, w.Project)
		w.Skill("proj/.claude/skills", "evil", evilBody)
		gitIn(t, w.Project, "add", "-A")
		gitIn(t, w.Project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "the evil skill")
		w.TrustProject()
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Record("skill", "evil", "BLOCK")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{
			// EnterWorktree is deferred: its schema is loaded first.
			Call("ToolSearch", map[string]any{"query": "select:EnterWorktree", "max_results": 5}),
			Call("EnterWorktree", map[string]any{"name": "w1"}),
			Skill("evil"),
		})
		r := w.Claude(m, Run{Prompt: "go", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
		if res := m.ToolResults()["EnterWorktree"]; len(res) == 0 || !strings.Contains(res[0], "Created worktree") {
			t.Fatalf("no worktree was entered: %q", res)
		}
		if got := m.Sent(evilBody); got != uninstall {
			t.Errorf("the BLOCKed body reached the model in the worktree: %v, want %v (results %q)", got, uninstall, m.ToolResults())
		}
		if !uninstall && !slicesContains(r.Denials(), "Skill") {
			t.Errorf("not denied: denials %v", r.Denials())
		}
	})
}
