//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A prompt the model schedules fires into the session as a typed one. So
// the client expands a /name in it through UserPromptExpansion. A fired
// /evil of a BLOCKed skill is blocked, and its body never reaches the
// model. So neither CronCreate nor ScheduleWakeup needs a gate of its own
// (builtin.Tools). Control: with the hooks uninstalled the fired /evil
// sends the body. Both fire on a minute: a CronCreate job at the next one,
// a wakeup of 60 s one to two minutes on.
func TestAScheduledSlashNameOfABlockedSkillIsBlockedWhenItFires(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool   string
		script []Reply
		within time.Duration
	}{
		{"CronCreate", []Reply{
			// CronCreate is deferred: its schema is loaded first.
			Call("ToolSearch", map[string]any{"query": "select:CronCreate", "max_results": 5}),
			Call("CronCreate", map[string]any{"cron": "* * * * *", "prompt": "/evil", "recurring": false}),
		}, 100 * time.Second},
		{"ScheduleWakeup", []Reply{
			Call("ScheduleWakeup", map[string]any{"delaySeconds": 60, "prompt": "/evil", "reason": "the test", "noop": false}),
		}, 170 * time.Second},
	} {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
				scheduledSlashName(t, uninstall, c.script, c.within)
			})
		})
	}
}

// scheduledSlashName runs one interactive session whose model schedules
// /evil with script, and judges what the fired prompt sent.
func scheduledSlashName(t *testing.T, uninstall bool, script []Reply, within time.Duration) {
	w := blockedWorld(t, true)
	w.TrustProject()
	if uninstall {
		w.MustSkillwire(nil, "hook", "uninstall", "--yes")
	}
	debug := filepath.Join(w.Root, "interactive-debug.log")
	m := model(t, append(script, Say("scheduled.")))
	// The session ends once the body is sent, or 3 s after the expansion
	// hook answered: a send would have come by then.
	var answered time.Time
	done := func() bool {
		d, _ := os.ReadFile(debug)
		if answered.IsZero() && strings.Contains(string(d), "Hook UserPromptExpansion (UserPromptExpansion) success") {
			answered = time.Now()
		}
		return m.Sent(evilBody) || !answered.IsZero() && time.Since(answered) > 3*time.Second
	}
	screen := w.Interactive(m, Typed{
		Prompt: "go",
		Args:   []string{"--permission-mode", "default", "--debug-file", debug},
		Then:   []Step{{After: "Doyouwanttoproceed", Keys: "\r", Pause: 800 * time.Millisecond}},
		Done:   done,
		Within: within,
	})
	d, _ := os.ReadFile(debug)
	if !strings.Contains(string(d), "[ScheduledTasks] firing") {
		t.Fatalf("the scheduled prompt never fired (results %q)\n%s", m.ToolResults(), DrawnWords(screen))
	}
	if got := m.Sent(evilBody); got != uninstall {
		t.Errorf("the fired /evil sent the BLOCKed body: %v, want %v", got, uninstall)
	}
	if blocked := strings.Contains(DrawnWords(screen), "UserPromptExpansionoperationblockedbyhook"); blocked == uninstall {
		t.Errorf("the fired /evil was blocked: %v, want %v\n%s", blocked, !uninstall, DrawnWords(screen))
	}
}
