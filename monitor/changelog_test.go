//go:build linux

package monitor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// The foreground daemon logged only its start and stop while five edits
// happened (issue 23): it logs each change it observes and a heartbeat.
func TestDaemonLogsEachChangeItObservesAndAHeartbeat(t *testing.T) {
	var log lockedLog
	h := startDaemonWith(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") },
		func(c *Config) { c.Log = zerolog.New(&log) })
	waitLog(t, &log, `"message":"heartbeat"`)
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "2")
	waitLog(t, &log, `"message":"candidate changed"`)
	write(t, filepath.Join(h.cfg, "skills/b/SKILL.md"), "1")
	waitLog(t, &log, `"message":"candidate appeared"`)
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.Contains(line, "candidate changed") && (!strings.Contains(line, `"name":"a"`) || !strings.Contains(line, `"candidate":"sw`)) {
			t.Errorf("the change does not name its candidate: %s", line)
		}
	}
}
