//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
