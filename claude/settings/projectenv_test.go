package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/testtree"
	"golang.org/x/sys/unix"
)

func TestProjectEnvKeysReadsBothSettingsFilesWithoutFollowingLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, project string)
		want  []string
		err   bool
	}{
		{"no .claude sets nothing", func(t *testing.T, p string) {}, nil, false},
		{"settings.json and settings.local.json, in order", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":{"A":"1","SKILLWIRE_STATE_DIR":"/tmp/x"},"hooks":{}}`)
			write(t, p, "settings.local.json", `{"env":{"CLAUDE_CONFIG_DIR":"rel"}}`)
		}, []string{"A", "SKILLWIRE_STATE_DIR", "CLAUDE_CONFIG_DIR"}, false},
		{"duplicate env objects are all read", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":{"A":"1"},"env":{"B":"2"}}`)
		}, []string{"A", "B"}, false},
		{"env that is not an object is unknown", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":["SKILLWIRE_STATE_DIR"]}`)
		}, nil, true},
		{"a file that is not JSON is unknown", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":`)
		}, nil, true},
		{"an unreadable file leaves the other's keys known", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":`)
			write(t, p, "settings.local.json", `{"env":{"HOME":"/tmp/h"}}`)
		}, []string{"HOME"}, true},
		{"a settings file that is a link is never followed", func(t *testing.T, p string) {
			write(t, p, "elsewhere.json", `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/x"}}`)
			testtree.Must(t, os.Symlink("elsewhere.json", filepath.Join(p, ".claude", "settings.local.json")))
		}, nil, true},
		{"a .claude that is a link is never followed", func(t *testing.T, p string) {
			write(t, p+"/other", "settings.json", `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/x"}}`)
			testtree.Must(t, os.Symlink("other/.claude", filepath.Join(p, ".claude")))
		}, nil, true},
		{"a FIFO is never opened for reading", func(t *testing.T, p string) {
			testtree.Must(t, os.MkdirAll(filepath.Join(p, ".claude"), 0o755))
			testtree.Must(t, unix.Mkfifo(filepath.Join(p, ".claude", "settings.json"), 0o644))
		}, nil, true},
		{"a file over the size cap is unknown", func(t *testing.T, p string) {
			write(t, p, "settings.json", `{"env":{}}`+strings.Repeat(" ", config.MaxJSON))
		}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := t.TempDir()
			tc.setup(t, p)
			got, err := ProjectEnvKeys(p)
			if tc.err != (err != nil) || tc.err && !errors.Is(err, ErrProjectSettings) {
				t.Fatalf("error %v", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("keys %q, want %q", got, tc.want)
			}
		})
	}
}

func write(t *testing.T, project, name, content string) {
	t.Helper()
	testtree.Must(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	testtree.Must(t, os.WriteFile(filepath.Join(project, ".claude", name), []byte(content), 0o644))
}
