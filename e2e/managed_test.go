//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// 7. Hooks installed with `hook install --managed` hold where a project
// disables hooks. One line in a cloned project, {"disableAllHooks": true},
// switches off every user-level skillwire hook. The BLOCKed skill then loads.
// The managed hooks still run there, and deny it. Both runs read the
// world's managed folder as /etc/claude-code (ClaudeManaged). The machine's
// own is never written.
func TestManagedHooksHoldWhereAProjectSwitchesHooksOff(t *testing.T) {
	for _, managed := range []bool{true, false} {
		name := "managed hooks"
		if !managed {
			name = "control: user hooks only"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := blockedWorld(t, true)
			w.Write("proj/.claude/settings.json", `{"disableAllHooks": true}`)
			if managed {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				w.Install("--managed") // into the world's managed folder
			}
			m := model(t, []Reply{Skill("evil")})
			r := w.ClaudeManaged(m, Run{Prompt: "go"})
			res := strings.Join(m.ToolResults()["Skill"], "\n")
			if got := m.Sent(evilBody); got == managed {
				t.Errorf("the BLOCKed body reached the model: %v, want %v (%q)", got, !managed, res)
			}
			if managed && (!strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK")) {
				t.Errorf("not denied by the managed hook: %q", res)
			}
			if !managed && Ran(r.Debug, "PreToolUse", "pre-tool-use") {
				t.Errorf("the client ran a user hook under the project's disableAllHooks: the premise changed")
			}
		})
	}
}
