//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A marketplace entry's inline SessionStart hook is told by what it runs
// (issue #22). plug's folder is untouched; the client runs the entry's hook
// at the next session. The advisory tells plug@mkt's "marketplace entry: new
// SessionStart hook runs "touch …"". It tells more than that the plugin
// changed. Another plugin's entry and plug's description, edited in the same
// file, are no change of it. Control: skillwire's hooks uninstalled, the hook
// runs and nothing is told.
func TestAMarketplaceEntrysNewHookIsToldByItsCommand(t *testing.T) {
	t.Parallel()
	bothWays(t, "hooks installed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		hooks := !uninstall
		w := NewWorld(t)
		installPlugin(w)
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		// Noise alone: plug's description and another plugin's entry.
		w.Write("market/.claude-plugin/marketplace.json",
			`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"edited"},{"name":"other","source":"./other"}]}`)
		quiet := model(t, nil)
		w.Claude(quiet, Run{Prompt: "hello"})
		if hooks && quiet.Sent(`plug@mkt`) {
			t.Errorf("noise of the marketplace.json was told as a change of plug@mkt")
		}
		marker := filepath.Join(w.Root, "entry-hook-ran")
		w.Write("market/.claude-plugin/marketplace.json",
			`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"edited",`+
				`"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}},{"name":"other","source":"./other"}]}`)
		if !hooks {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, nil)
		r := w.Claude(m, Run{Prompt: "hello"})
		ran := false
		for _, h := range HookRuns(r.Debug) {
			ran = ran || h.Event == "SessionStart" && strings.Contains(h.Command, "touch "+marker) && h.Status == 0
		}
		if _, err := os.Stat(marker); err != nil || !ran {
			t.Fatalf("the entry's hook did not run (debug log %v, marker %v): the finding is not reproduced", ran, err)
		}
		fact := `global plugin "plug@mkt"`
		if told := m.Sent(fact) && m.Sent(`marketplace entry: new SessionStart hook runs "touch `+marker+`"`); told != hooks {
			t.Errorf("the session was told the entry's new hook by its command: %v, want %v", told, hooks)
		}
		if !hooks && m.Sent("marketplace entry") {
			t.Error("without skillwire's hooks something was told")
		}
		noTrouble(t, r)
	})
}

// mcpServerScript leaves the marker file, then answers an MCP client's
// initialize and tools/list over stdio. Each JSON message is one line. That
// is enough for the client to start and list it without an error.
const mcpServerScript = `touch "$1"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"e2e","version":"1.0.0"}}}\n' "$id" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
  *) if [ -n "$id" ]; then printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; fi ;;
  esac
done
`

// A marketplace entry's MCP server is told as the entry's, by the command it
// runs (issue #22). A plugin without a plugin.json (strict: false) takes its
// manifest from its marketplace entry, MCP servers included. The client
// starts the entry's server, and its marker file appears. Control:
// skillwire's hooks uninstalled, the server starts and nothing is told.
func TestAMarketplaceEntrysMCPServerIsStartedAndTold(t *testing.T) {
	t.Parallel()
	bothWays(t, "hooks installed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		hooks := !uninstall
		w := NewWorld(t)
		entry := `{"name":"plug","source":"./plug","strict":false,"description":"an e2e plugin"`
		w.Write("market/.claude-plugin/marketplace.json", `{"name":"mkt","owner":{"name":"e2e"},"plugins":[`+entry+`}]}`)
		w.Write("market/plug/skills/ps/SKILL.md", "---\nname: ps\ndescription: The ps skill.\n---\n\n"+pluginSkillBody+"\n")
		w.Write("market/plug/srv.sh", mcpServerScript)
		w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "market"))
		w.ClaudeCmd("plugin", "install", "plug@mkt")
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		marker := filepath.Join(w.Root, "mcp-server-ran")
		srv := filepath.Join(w.Root, "market/plug/srv.sh")
		w.Write("market/.claude-plugin/marketplace.json", `{"name":"mkt","owner":{"name":"e2e"},"plugins":[`+entry+
			`,"mcpServers":{"e2esrv":{"command":"/bin/sh","args":["`+srv+`","`+marker+`"]}}}]}`)
		if !hooks {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, nil)
		r := w.Claude(m, Run{Prompt: "hello"})
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the entry's MCP server was not started (%v): the finding is not reproduced", err)
		}
		// The command is long (the test's folder, twice): cut keeping its head and its tail.
		told := m.Sent(`global plugin "plug@mkt" id `) && m.Sent(`marketplace entry: new MCP server "e2esrv" runs "/bin/sh /`) && m.Sent(`/mcp-server-ran"`)
		if told != hooks {
			t.Errorf("the session was told the entry's server by its command: %v, want %v", told, hooks)
		}
		if !hooks && m.Sent("marketplace entry") {
			t.Error("without skillwire's hooks something was told")
		}
		noTrouble(t, r)
	})
}

// A marketplace field the client once refused, made valid, is told (issue
// #22). The client stubs an entry with a field that fails its schema. It logs
// "Stubbing unparseable marketplace plugin entry (plug): version: …". A
// marketplace whose owner is not an object does not load. Either way the
// entry's SessionStart hook does not run. Recorded SAFE so, the value is made
// valid. "version": 5 becomes "1.0.0"; "owner": "x" becomes {"name":"x"}.
// That is no noise to skillwire: the hook now runs. The session is told the
// field now holds a value the client accepts. plug@mkt is pending, and its
// skill's use asked (refused under -p). Control: hooks uninstalled, the hook
// runs, the skill loads, nothing is told.
func TestAStubbedEntryMadeToParseIsToldAndHeld(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, key, bad, good, stub string }{
		{"entry version", "version", `"version":5`, `"version":"1.0.0"`, `Stubbing unparseable marketplace plugin entry (plug): version:`},
		{"marketplace owner", "owner", `"owner":"x"`, `"owner":{"name":"x"}`, ""},
	} {
		for _, hooks := range []bool{true, false} {
			name := c.name + "/hooks installed"
			if !hooks {
				name = c.name + "/control: hooks uninstalled"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				installPlugin(w)
				w.Install()
				marker := filepath.Join(w.Root, "entry-hook-ran")
				hook := `"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch ` + marker + `"}]}]}`
				mk := func(v string) string {
					if c.key == "owner" {
						return `{"name":"mkt",` + v + `,"plugins":[{"name":"plug","source":"./plug","description":"an e2e plugin",` + hook + `}]}`
					}
					return `{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"an e2e plugin",` + v + `,` + hook + `}]}`
				}
				w.Write("market/.claude-plugin/marketplace.json", mk(c.bad))
				r := w.Claude(model(t, nil), Run{Prompt: "hello"})
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("the hook of an entry failing the client's schema ran: the stub is not reproduced")
				}
				if c.stub != "" && !strings.Contains(r.Debug, c.stub) {
					t.Errorf("the debug log does not say the entry is stubbed (%q)", c.stub)
				}
				w.Record("plugin", "plug@mkt", "SAFE-TO-PROPOSE")
				w.Write("market/.claude-plugin/marketplace.json", mk(c.good))
				if !hooks {
					w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				}
				m := model(t, []Reply{Skill("plug:ps")}, Say("done."))
				r = w.Claude(m, Run{Prompt: "run the ps skill"})
				ran := false
				for _, h := range HookRuns(r.Debug) {
					ran = ran || h.Event == "SessionStart" && strings.Contains(h.Command, "touch "+marker) && h.Status == 0
				}
				if _, err := os.Stat(marker); err != nil || !ran {
					t.Fatalf("the hook of the entry made valid did not run (debug log %v, marker %v): the finding is not reproduced", ran, err)
				}
				told := m.Sent(`pending a new review: global plugin \"plug@mkt\"`) && m.Sent(`field "`+c.key+`" now holds a value the client accepts`)
				if told != hooks {
					t.Errorf("the session was told the field now passes and plug@mkt pending: %v, want %v", told, hooks)
				}
				if got := m.Sent(pluginSkillBody); got == hooks {
					t.Errorf("the skill's body reached the model: %v, want %v (results %q)", got, !hooks, m.ToolResults())
				}
				if !hooks {
					if m.Sent("marketplace entry") || m.Sent("marketplace.json: field") {
						t.Error("without skillwire's hooks something was told")
					}
					return
				}
				if d := r.Denials(); len(d) != 1 || d[0] != "Skill" {
					t.Errorf("permission denials %q, want the asked Skill call", d)
				}
				noTrouble(t, r)
			})
		}
	}
}
