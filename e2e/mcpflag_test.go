//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An MCP configuration file given with --mcp-config is loaded: Claude Code
// 2.1.332 starts its servers in a -p session, unasked. Wherever the file
// lies, skillwire watches it as an MCP candidate (the coverage oracle named
// it unwatched before): a server added between sessions is told at the
// next start by its command, as a project's .mcp.json is. Control: hooks
// uninstalled, the server starts and nothing is told. A JSON value names
// no file, and nothing of it is listed.
func TestAnMCPConfigFileOfTheCommandLineIsWatched(t *testing.T) {
	t.Parallel()
	bothWays(t, "told", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		marker := filepath.Join(w.Root, "mcp-server-ran")
		srv := w.Write("flags/srv.sh", mcpServerScript)
		w.Write("flags/mcp.json", `{"mcpServers":{}}`)
		w.Install()
		run := Run{Prompt: "hello", Args: []string{"--mcp-config", filepath.Join(w.Root, "flags", "mcp.json")}}
		noTrouble(t, w.Claude(model(t, nil), run))
		if out := w.MustSkillwire([]int{0, 3}, "list"); !strings.Contains(out, "mcp.json") {
			t.Errorf("the --mcp-config file is not recorded:\n%s", out)
		}
		w.Write("flags/mcp.json", `{"mcpServers":{"flagsrv":{"command":"/bin/sh","args":["`+srv+`","`+marker+`"]}}}`)
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, nil)
		noTrouble(t, w.Claude(m, run))
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the client did not start the --mcp-config file's server (%v): the premise changed", err)
		}
		adv := advisory(m)
		told := strings.Contains(adv, `mcp "mcp.json"`) && strings.Contains(adv, `new MCP server "flagsrv" runs "/bin/sh /`)
		if told == uninstall {
			t.Errorf("told %v, want %v\n%s", told, !uninstall, adv)
		}
	})
	t.Run("control: JSON inline", func(t *testing.T) {
		t.Parallel()
		w := NewWorld(t)
		marker := filepath.Join(w.Root, "mcp-server-ran")
		srv := w.Write("flags/srv.sh", mcpServerScript)
		w.Install()
		noTrouble(t, w.Claude(model(t, nil), Run{Prompt: "hello", Args: []string{"--mcp-config", `{"mcpServers":{"inl":{"command":"/bin/sh","args":["` + srv + `","` + marker + `"]}}}`}}))
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the client did not start the inline server (%v)", err)
		}
		if out := w.MustSkillwire(nil, "list"); strings.Contains(out, "flag-mcp") || strings.Contains(out, "flags") {
			t.Errorf("an inline --mcp-config is listed: %s", out)
		}
	})
}
