//go:build linux

package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// lockedLog is a log a test reads while the daemon writes it.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestDaemonTellsOnceEachSettingsFileThatSwitchesSkillwiresHooksOff(t *testing.T) {
	var log lockedLog
	notes := make(chan string, 8)
	h := startDaemonWith(t, func(cfg string) {
		write(t, filepath.Join(cfg, "settings.json"), `{"disableAllHooks":true}`)
	}, func(c *Config) {
		c.Log = zerolog.New(&log)
		c.Notify = func(title, body string) { notes <- title + ": " + body }
	})
	settings := filepath.Join(h.cfg, "settings.json")
	note := func(what string) string {
		t.Helper()
		select {
		case n := <-notes:
			return n
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification %s", what)
			return ""
		}
	}
	if n := note("at start"); !strings.Contains(n, settings) || !strings.Contains(n, "sudo skillwire hook install --managed") {
		t.Errorf("notification %q does not name the file and the advice", n)
	}
	if !strings.Contains(log.String(), `"file":"`+settings+`"`) || !strings.Contains(log.String(), "hooks off") {
		t.Errorf("log does not name the file:\n%s", log.String())
	}

	write(t, settings, `{"disableAllHooks":false}`)
	waitLog(t, &log, "hooks on again")
	write(t, settings, `{"disableAllHooks":true,"theme":"dark"}`)
	note("when switched off again")
	write(t, settings, `{"disableAllHooks":true,"theme":"light"}`)
	time.Sleep(300 * time.Millisecond) // a flush and a rescan or two
	select {
	case n := <-notes:
		t.Errorf("told again while nothing changed: %q", n)
	default:
	}
}

func waitLog(t *testing.T, l *lockedLog, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(l.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log never said %q:\n%s", s, l.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFile waits, bounded, until the file at p holds every one of want.
func waitFile(t *testing.T, p string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(p)
		if err == nil && containsAll(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q (%v):\n%s", p, want, err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
