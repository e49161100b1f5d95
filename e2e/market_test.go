//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAConfigChangeBlockHolds: the model writes a Stop hook into the
// project's settings.local.json (blocked), then a noise key into its
// settings.json (a change that allows nothing). The client re-reads the
// settings files at the second change. The blocked hook must still never
// run: it stays blocked until a person decides (issue 32). Control:
// without skillwire's config-change hook the client runs it at Stop.
func TestAConfigChangeBlockHolds(t *testing.T) {
	t.Parallel()
	for _, gate := range []bool{true, false} {
		name := "gated"
		if !gate {
			name = "control: no config-change hook"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			if gate {
				w.Install()
			} else {
				w.Install("--events", "session-start,pre-tool-use")
			}
			marker := filepath.Join(w.Root, "stop-hook-ran")
			local := filepath.Join(w.Project, ".claude", "settings.local.json")
			settings := filepath.Join(w.Project, ".claude", "settings.json")
			m := model(t, []Reply{
				Call("Write", map[string]any{"file_path": local,
					"content": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"touch ` + marker + `"}]}]}}`}),
				Call("Bash", map[string]any{"command": "sleep 2", "description": "wait for the settings watcher"}),
				Call("Write", map[string]any{"file_path": settings, "content": `{"cleanupPeriodDays": 40}`}),
				Call("Bash", map[string]any{"command": "sleep 2", "description": "wait for the settings watcher"}),
			})
			r := w.Claude(m, Run{Prompt: "set up the project", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
			blockedLocal := strings.Contains(r.Debug, "ConfigChange hook blocked change to "+local)
			if blockedLocal != gate {
				t.Errorf("the client blocked the settings.local.json change: %v, want %v", blockedLocal, gate)
			}
			_, err := os.Stat(marker)
			if ran := err == nil; ran == gate {
				t.Errorf("the blocked Stop hook ran: %v, want %v\n%s", ran, !gate, grepLines(r.Debug, "ConfigChange"))
			}
			noTrouble(t, r)
		})
	}
}

// TestEachPluginIsACandidateWhereTheClientLoadsIt: a local marketplace laid
// out as anthropics/claude-code is, its entries "./plugins/NAME", a root
// .mcp.json and a .git/ beside them. The client loads the installed plugin
// from plugins/commit-commands: a hooks/hooks.json added there runs at the
// next start, and the root's .mcp.json server never starts. skillwire tells
// the session that plugin's new hook, by its command, and no MCP server.
// Control: without skillwire's hooks the hook runs and nothing is told.
func TestEachPluginIsACandidateWhereTheClientLoadsIt(t *testing.T) {
	t.Parallel()
	for _, hooked := range []bool{true, false} {
		name := "hooked"
		if !hooked {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			mcpRan, hookRan := filepath.Join(w.Root, "root-mcp-ran"), filepath.Join(w.Root, "plugin-hook-ran")
			w.Write("cc/.claude-plugin/marketplace.json", `{"name":"cc","owner":{"name":"e2e"},"plugins":[
 {"name":"commit-commands","source":"./plugins/commit-commands","category":"productivity"},
 {"name":"code-review","source":"./plugins/code-review","category":"productivity"}]}`)
			w.Write("cc/.mcp.json", `{"mcpServers":{"rootsrv":{"command":"sh","args":["-c","touch `+mcpRan+`"]}}}`)
			w.Write("cc/.git/HEAD", "ref: refs/heads/main\n")
			w.Write("cc/CHANGELOG.md", "# 1.0\n")
			for _, p := range []string{"commit-commands", "code-review"} {
				w.Write("cc/plugins/"+p+"/.claude-plugin/plugin.json", `{"name":"`+p+`","version":"1.0.0"}`)
				w.Write("cc/plugins/"+p+"/commands/"+p+".md", "---\ndescription: the "+p+" command\n---\nDo it.\n")
			}
			w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "cc"))
			w.ClaudeCmd("plugin", "install", "commit-commands@cc")
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			w.Write("cc/plugins/commit-commands/hooks/hooks.json",
				`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+hookRan+`"}]}]}}`)
			w.Write("cc/CHANGELOG.md", "# 1.1\n")
			w.Write("cc/.git/ORIG_HEAD", "0000\n")
			if !hooked {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m := model(t, nil)
			r := w.Claude(m, Run{Prompt: "hello"})
			if _, err := os.Stat(hookRan); err != nil {
				t.Errorf("the client did not run the plugin's new hook: it does not load plugins/commit-commands (%v)", err)
			}
			if _, err := os.Stat(mcpRan); err == nil {
				t.Errorf("the client started the root .mcp.json's server for the plugin")
			}
			told := m.Sent(`plugin \"commit-commands@cc\"`) && m.Sent(`new SessionStart hook runs \"touch `)
			if told != hooked {
				t.Errorf("the session was told the plugin's new hook: %v, want %v", told, hooked)
			}
			if m.Sent("rootsrv") || m.Sent(".git/") || m.Sent("code-review@cc") {
				t.Errorf("the session was told of the root's .mcp.json, .git/ or a plugin not installed")
			}
			noTrouble(t, r)
		})
	}
}

// startDaemon runs skillwire's daemon in the world until the test ends,
// and waits for its first heartbeat.
func startDaemon(t *testing.T, w *World) {
	t.Helper()
	cmd := exec.Command(skillwireBin, "daemon")
	cmd.Dir, cmd.Env = w.Project, w.Env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	for range 100 {
		if out, _ := w.Skillwire("status", "--json"); strings.Contains(out, `"alive": true`) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // its first rescan and watches
}

// TestTheDaemonAndAWalkAreTheSameObservation: with the daemon running, a
// session is told of an installed plugin what a walk tells: nothing when
// nothing changed, never "1 file removed: marketplace.json". An edit of the
// plugin's marketplace.json entry, outside the plugin's folder, is told as
// the entry's new hook (issue 32). Control: without skillwire's hooks
// nothing is told.
func TestTheDaemonAndAWalkAreTheSameObservation(t *testing.T) {
	t.Parallel()
	for _, hooked := range []bool{true, false} {
		name := "daemon on"
		if !hooked {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			entry := func(more string) string {
				return `{"name":"cc","owner":{"name":"e2e"},"plugins":[{"name":"commit","source":"./plugins/commit"` + more + `}]}`
			}
			w.Write("cc/.claude-plugin/marketplace.json", entry(""))
			w.Write("cc/plugins/commit/.claude-plugin/plugin.json", `{"name":"commit","version":"1.0.0"}`)
			w.Write("cc/plugins/commit/commands/commit.md", "---\ndescription: commit\n---\nCommit.\n")
			w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "cc"))
			w.ClaudeCmd("plugin", "install", "commit@cc")
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			if !hooked {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			startDaemon(t, w)
			m := model(t, nil)
			r := w.Claude(m, Run{Prompt: "hello"})
			if m.Sent("file removed") || m.Sent(`plugin \"commit@cc\"`) {
				t.Errorf("nothing changed, yet the session was told of commit@cc")
			}
			noTrouble(t, r)
			w.Write("cc/.claude-plugin/marketplace.json", entry(`,"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo entry-hook"}]}]}`))
			time.Sleep(2 * time.Second) // the daemon's debounce and walk
			m = model(t, nil)
			r = w.Claude(m, Run{Prompt: "hello"})
			told := m.Sent(`plugin \"commit@cc\"`) && m.Sent(`new SessionStart hook runs \"echo entry-hook\"`)
			if told != hooked {
				t.Errorf("the session was told the entry's new hook: %v, want %v", told, hooked)
			}
			if m.Sent("file removed") {
				t.Errorf("the session was told a file removed")
			}
			noTrouble(t, r)
		})
	}
}
