package steer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config"
	"golang.org/x/sys/unix"
)

func TestSteeredNamesTheEnvKeyAProjectSetsToSteerSkillwire(t *testing.T) {
	const unreadable = "project settings could not be read safely, so the env they set is unknown"
	for _, tc := range []struct {
		name, settings, local, want string
		// notice: the session says only the one line. warn: the
		// session says the warning line, then its advisory.
		notice, warn bool
	}{
		{"no settings", "", "", "", false, false},
		{"unrelated env", `{"env":{"DEBUG":"1","PATH":"/bin"}}`, "", "", false, false},
		{"the state directory", `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/fresh"}}`, "", "project settings set SKILLWIRE_STATE_DIR in env", true, false},
		{"the lock timeout", `{"env":{"SKILLWIRE_LOCK_TIMEOUT":"bogus"}}`, "", "project settings set SKILLWIRE_LOCK_TIMEOUT in env", true, false},
		{"Claude Code's config directory", `{"env":{"CLAUDE_CONFIG_DIR":"/tmp/c"}}`, "", "project settings set CLAUDE_CONFIG_DIR in env", true, false},
		{"the home directory", `{"env":{"HOME":"/tmp/h"}}`, "", "project settings set HOME in env", true, false},
		{"a key with hostile bytes is escaped", `{"env":{"SKILLWIRE_\u001b[2J":"x"}}`, "", `project settings set "SKILLWIRE_\x1b\x5b2J" in env`, true, false},
		{"unreadable settings warn and the session goes on", `{"env":`, "", unreadable, false, true},
		{"unreadable settings beside a steering key: the key", `{"env":`, `{"env":{"HOME":"/tmp/h"}}`, "project settings set HOME in env", true, false},
		{"unreadable local settings beside unrelated env warn", `{"env":{"A":"1"}}`, `[`, unreadable, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := t.TempDir()
			for name, content := range map[string]string{"settings.json": tc.settings, "settings.local.json": tc.local} {
				if content != "" {
					must(t, os.MkdirAll(filepath.Join(p, ".claude"), 0o755))
					must(t, os.WriteFile(filepath.Join(p, ".claude", name), []byte(content), 0o644))
				}
			}
			checkSteering(t, p, tc.want, tc.notice, tc.warn)
		})
	}
}

func TestSteeringOfSettingsThatAreNotRegularFiles(t *testing.T) {
	for name, setup := range map[string]func(dir string){
		"a link": func(dir string) { must(t, os.Symlink("/etc/hostname", filepath.Join(dir, "settings.json"))) },
		"a FIFO": func(dir string) { must(t, unix.Mkfifo(filepath.Join(dir, "settings.local.json"), 0o644)) },
		"oversize": func(dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"x":"`+strings.Repeat("a", config.MaxJSON)+`"}`), 0o644))
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(p, ".claude"), 0o755))
			setup(filepath.Join(p, ".claude"))
			checkSteering(t, p, "project settings could not be read safely, so the env they set is unknown", false, true)
		})
	}
}

// checkSteering: Steered says want; the session start says only the
// notice, or the warning before its advisory.
func checkSteering(t *testing.T, p, want string, notice, warn bool) {
	t.Helper()
	if got := Steered("", p, p); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	n, w := SessionNotice(p), SessionWarning(p)
	if (n != "") != notice || (w != "") != warn || strings.Contains(n+w, "\n") {
		t.Fatalf("notice %q, warning %q", n, w)
	}
	if warn && WithWarning(w, "advisory") != w+"\nadvisory" {
		t.Fatalf("%q", WithWarning(w, "advisory"))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
