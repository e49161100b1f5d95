//go:build linux

package monitor

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// Each change the daemon observes is also a fleet event (an OCSF Detection
// Finding in events.ndjson beside the store), and shipping runs on its own
// goroutine when it is switched on.
func TestDaemonChangesAreFleetEventsAndShippingRuns(t *testing.T) {
	var log lockedLog
	shipped := make(chan struct{}, 1)
	h := startDaemonWith(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") },
		func(c *Config) {
			c.Log = zerolog.New(&log)
			c.ShipEvery = 10 * time.Millisecond
			c.Ship = func(context.Context) error {
				select {
				case shipped <- struct{}{}:
				default:
				}
				return nil
			}
		})
	waitLog(t, &log, `"message":"heartbeat"`)
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "2")
	waitLog(t, &log, `"message":"candidate changed"`)
	// The change is logged before its fleet event is appended: wait for
	// the event itself, never for a time.
	waitFile(t, filepath.Join(h.state, "events.ndjson"), `"class_uid":2004`, `"via":"daemon"`)
	select {
	case <-shipped:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon never shipped")
	}
}

// A script a settings hook runs is logged by where it lies, never by the
// hash it is bound under (issue 23); a component that fails the display
// rules stays hashed.
func TestDaemonLogsABoundScriptByWhereItLies(t *testing.T) {
	var log lockedLog
	settings := func(cfg string, scripts ...string) string {
		var hooks []string
		for _, s := range scripts {
			hooks = append(hooks, `{"type":"command","command":"bash \"`+filepath.Join(cfg, "hooks", s)+`\""}`)
		}
		return `{"hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[` + strings.Join(hooks, ",") + `]}]}}`
	}
	h := startDaemonWith(t, func(cfg string) {
		write(t, filepath.Join(cfg, "hooks/format.sh"), "#!/bin/sh\n")
		write(t, filepath.Join(cfg, "hooks/my hook.sh"), "#!/bin/sh\n")
		write(t, filepath.Join(cfg, "settings.json"), settings(cfg, "format.sh"))
	}, func(c *Config) { c.Log = zerolog.New(&log) })
	waitLog(t, &log, `"message":"heartbeat"`)
	write(t, filepath.Join(h.cfg, "settings.json"), settings(h.cfg, "format.sh", "my hook.sh"))
	waitLog(t, &log, `"message":"candidate changed"`)
	var line string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "candidate changed") && strings.Contains(l, `"name":"settings.json"`) {
			line = l
		}
	}
	if want := `"added ` + filepath.Join(h.cfg, "hooks/format.sh") + ` (unexpected)"`; !strings.Contains(line, want) {
		t.Errorf("the change does not name the script %s: %s", want, line)
	}
	if !regexp.MustCompile(`"added [^"]*/hooks/#[0-9a-f]{8} \(unexpected\)"`).MatchString(line) || strings.Contains(line, "my hook") {
		t.Errorf("a script whose name fails the display rules is not shown by its hash: %s", line)
	}
	if regexp.MustCompile(`scripts/[0-9a-f]{32}`).MatchString(line) {
		t.Errorf("a bound script is shown by its entry: %s", line)
	}
}
