package unrecorded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
)

func TestAMarkSetIsReadBackWithItsTimeAndReason(t *testing.T) {
	at := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		err   error
		why   string
		words string
	}{
		{fmt.Errorf("update: %w", baseline.ErrBusy), "busy", "(the store was busy)"},
		{fmt.Errorf("update: %w", baseline.ErrCorrupt), "corrupt", "(the store was corrupt)"},
		{errors.New("record: kind flag-settings unknown"), Refused, "(the store refused it)"},
	} {
		dir := t.TempDir()
		if m := Read(dir); m != nil {
			t.Fatalf("no mark yet, read %+v", m)
		}
		if err := Set(dir, at.In(time.FixedZone("x", 3600)), tc.err); err != nil {
			t.Fatal(err)
		}
		m := Read(dir)
		if m == nil || !m.At.Equal(at) || m.Why != tc.why {
			t.Fatalf("%v: read %+v, want %v %q", tc.err, m, at, tc.why)
		}
		w := m.Words()
		if !strings.Contains(w, "2026-12-03T14:00:00Z") || !strings.Contains(w, tc.words) || !strings.Contains(w, "could not record") {
			t.Errorf("%v: words %q", tc.err, w)
		}
		if err := Clear(dir); err != nil || Read(dir) != nil {
			t.Fatalf("cleared (%v), still read %+v", err, Read(dir))
		}
		if err := Clear(dir); err != nil {
			t.Fatalf("clearing no mark: %v", err)
		}
	}
}

// A mark skillwire did not write is still a mark: told, with its time and
// reason unknown, and none of its bytes shown.
func TestAMarkOfAnyOtherShapeIsToldWithoutItsBytes(t *testing.T) {
	for name, content := range map[string]string{
		"empty":          "",
		"garbage":        "\x1b[31mhello\u202e world\x00",
		"no reason":      "2026-12-03T14:00:00Z",
		"unknown reason": "2026-12-03T14:00:00Z ok",
		"hostile reason": "2026-12-03T14:00:00Z busy\x1b]0;x\x07",
		"bad time":       "yesterday busy",
		"huge":           strings.Repeat("2026-12-03T14:00:00Z busy ", 100_000),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			m := Read(dir)
			if m == nil || !m.At.IsZero() || m.Why != "" {
				t.Fatalf("read %+v, want a mark of unknown time and reason", m)
			}
			if w := m.Words(); !strings.Contains(w, "why is unknown") || strings.ContainsAny(w, "\x1b\x00\u202e\x07") || strings.Contains(w, "hello") {
				t.Errorf("words %q", w)
			}
		})
	}
}

// A link, a FIFO or a folder at the mark's name is a mark (something is
// there that only skillwire writes) read without following or blocking,
// and left in place by Clear.
func TestAMarkThatIsNoRegularFileIsToldAndLeft(t *testing.T) {
	for name, make := range map[string]func(p string) error{
		"link":   func(p string) error { return os.Symlink("/etc/passwd", p) },
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"folder": func(p string) error { return os.Mkdir(p, 0o700) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, FileName)
			if err := make(p); err != nil {
				t.Fatal(err)
			}
			if m := Read(dir); m == nil || m.Why != "" {
				t.Fatalf("read %+v, want a mark of unknown reason", m)
			}
			if err := Clear(dir); err == nil {
				t.Errorf("cleared a %s", name)
			}
			if _, err := os.Lstat(p); err != nil {
				t.Errorf("the %s is gone: %v", name, err)
			}
			if err := Set(dir, time.Now(), baseline.ErrBusy); err == nil && name != "link" {
				t.Errorf("set over a %s", name)
			}
		})
	}
}
