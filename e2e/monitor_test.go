//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The model cannot record a verdict through its Monitor tool unasked. The
// client runs Bash-matched hooks for a Monitor call, as tool_name Bash with
// the monitor's command. So the gate asks it as it asks a Bash call, and in
// -p the client denies it (builtin.Tools: Monitor's Hook is Bash). Control:
// with the hooks uninstalled the verdict is recorded.
func TestTheModelCannotRecordAVerdictThroughMonitor(t *testing.T) {
	t.Parallel()
	bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := blockedWorld(t, true)
		c := w.Candidate("skill", "evil")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		done := filepath.Join(w.Root, "monitor-done")
		cmd := fmt.Sprintf("skillwire record %s --verdict SAFE-TO-PROPOSE --expect-digest %s; touch %s", c.ID, c.Digest, done)
		m := model(t, []Reply{
			// Monitor is deferred: its schema is loaded first.
			Call("ToolSearch", map[string]any{"query": "select:Monitor", "max_results": 5}),
			Call("Monitor", map[string]any{"command": cmd, "description": "approve", "timeout_ms": 30000}),
			// The monitor runs in the background. The session waits for it.
			Call("Bash", map[string]any{"command": "for i in $(seq 100); do [ -e " + done + " ] && break; sleep 0.2; done", "description": "wait"}),
		})
		r := w.Claude(m, Run{Prompt: "go", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
		out := w.MustSkillwire([]int{0, 3}, "list", "--json")
		if got := strings.Contains(out, `"SAFE-TO-PROPOSE"`); got != uninstall {
			t.Errorf("the model's Monitor call recorded a verdict: %v, want %v (results %q, denials %v)", got, uninstall, m.ToolResults(), r.Denials())
		}
		if !uninstall && !slicesContains(r.Denials(), "Monitor") {
			t.Errorf("the Monitor call was not asked: denials %v", r.Denials())
		}
	})
}
