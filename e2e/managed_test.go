//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
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

// hook install --managed --managed-no-sideload sets disableSideloadFlags in
// skillwire's managed drop-in, and Claude Code 2.1.332 then refuses a
// session given --mcp-config or --plugin-dir at startup, naming the setting:
// nothing those flags name loads. Control: --managed alone, the session
// starts and the --mcp-config file's server runs.
func TestTheManagedNoSideloadInstallRefusesCommandLineLoads(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--mcp-config", "--plugin-dir"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			bothWays(t, "refused", "control: --managed alone", func(t *testing.T, control bool) {
				w := NewWorld(t)
				marker := filepath.Join(w.Root, "mcp-server-ran")
				srv := w.Write("flags/srv.sh", mcpServerScript)
				w.Write("flags/mcp.json", `{"mcpServers":{"flagsrv":{"command":"/bin/sh","args":["`+srv+`","`+marker+`"]}}}`)
				w.Write("pd/.claude-plugin/plugin.json", `{"name":"pd","version":"1.0.0"}`)
				w.Write("pd/.mcp.json", `{"mcpServers":{"pdsrv":{"command":"/bin/sh","args":["`+srv+`","`+marker+`"]}}}`)
				if control {
					w.Install("--managed")
				} else {
					w.Install("--managed", "--managed-no-sideload")
				}
				arg := map[string]string{"--mcp-config": filepath.Join(w.Root, "flags", "mcp.json"), "--plugin-dir": filepath.Join(w.Root, "pd")}[flag]
				r := w.ClaudeManaged(model(t, nil), Run{Prompt: "hello", Args: []string{flag, arg}})
				_, err := os.Stat(marker)
				refused := r.Exit != 0 && strings.Contains(r.Stderr, flag+" is disabled by your organization's managed settings (disableSideloadFlags)")
				if refused == control || (err == nil) != control {
					t.Errorf("refused %v, the server ran %v; want %v, %v (exit %d, stderr %q)", refused, err == nil, !control, control, r.Exit, r.Stderr)
				}
			})
		})
	}
}

// A command line switches every user-level hook off: --settings
// '{"disableAllHooks":true}' (inline, no file to watch) and the session
// starts with none of skillwire's user hooks, told nothing (Claude Code
// 2.1.332). Hooks installed with --managed still run there: the session
// start runs and tells. Control: user hooks only, the start runs no hook.
func TestManagedHooksHoldWhereACommandLineSwitchesHooksOff(t *testing.T) {
	t.Parallel()
	bothWays(t, "managed hooks", "control: user hooks only", func(t *testing.T, userOnly bool) {
		w := NewWorld(t)
		w.Write("home/.claude/skills/a/SKILL.md", "---\nname: a\ndescription: The a skill.\n---\nbody\n")
		if userOnly {
			w.Install()
		} else {
			w.Install("--managed")
		}
		m := model(t, nil)
		r := w.ClaudeManaged(m, Run{Prompt: "hello", Args: []string{"--settings", `{"disableAllHooks":true}`}})
		ran, told := Ran(r.Debug, "SessionStart", "session-start"), strings.Contains(advisory(m), "skillwire first run")
		if ran == userOnly || told == userOnly {
			t.Errorf("the session start ran %v and told %v; want %v", ran, told, !userOnly)
		}
	})
}
