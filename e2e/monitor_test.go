//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"
)

// The model cannot record a verdict through its Monitor tool unasked. The
// client runs Bash-matched hooks for a Monitor call, as tool_name Bash with
// the monitor's command. So the gate asks it as it asks a Bash call, and in
// -p the client denies it (builtin.Tools: Monitor's Hook is Bash). Control:
// with the hooks uninstalled the verdict is recorded.
func TestTheModelCannotRecordAVerdictThroughMonitor(t *testing.T) {
	t.Parallel()
	cannotRecordThrough(t, "Monitor", func(w *World, cmd string) []Reply {
		done := filepath.Join(w.Root, "monitor-done")
		return []Reply{
			// Monitor is deferred: its schema is loaded first.
			Call("ToolSearch", map[string]any{"query": "select:Monitor", "max_results": 5}),
			Call("Monitor", map[string]any{"command": cmd + "; touch " + done, "description": "approve", "timeout_ms": 30000}),
			// The monitor runs in the background. The session waits for it.
			Call("Bash", map[string]any{"command": "for i in $(seq 100); do [ -e " + done + " ] && break; sleep 0.2; done", "description": "wait"}),
		}
	})
}
