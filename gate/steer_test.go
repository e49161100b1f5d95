package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSteeredNamesTheEnvKeyAProjectSetsToSteerSkillwire(t *testing.T) {
	for _, tc := range []struct {
		name, settings, want string
	}{
		{"no settings", "", ""},
		{"unrelated env", `{"env":{"DEBUG":"1","PATH":"/bin"}}`, ""},
		{"the state directory", `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/fresh"}}`, "project settings set SKILLWIRE_STATE_DIR in env"},
		{"the lock timeout", `{"env":{"SKILLWIRE_LOCK_TIMEOUT":"bogus"}}`, "project settings set SKILLWIRE_LOCK_TIMEOUT in env"},
		{"Claude Code's config directory", `{"env":{"CLAUDE_CONFIG_DIR":"/tmp/c"}}`, "project settings set CLAUDE_CONFIG_DIR in env"},
		{"the home directory", `{"env":{"HOME":"/tmp/h"}}`, "project settings set HOME in env"},
		{"a key with hostile bytes is escaped", `{"env":{"SKILLWIRE_\u001b[2J":"x"}}`, `project settings set "SKILLWIRE_\x1b\x5b2J" in env`},
		{"unreadable settings", `{"env":`, "project settings could not be read safely, so the env they set is unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := t.TempDir()
			if tc.settings != "" {
				must(t, os.MkdirAll(filepath.Join(p, ".claude"), 0o755))
				must(t, os.WriteFile(filepath.Join(p, ".claude", "settings.json"), []byte(tc.settings), 0o644))
			}
			if got := Steered("", p, p); got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
			o, steered := Guard(p)
			if steered != (tc.want != "") || steered && (o.Answer != Deny || !strings.HasPrefix(o.Reason, tc.want)) {
				t.Fatalf("%v %+v", steered, o)
			}
			if n := SessionNotice(p); (n != "") != steered || strings.Contains(n, "\n") {
				t.Fatalf("notice %q", n)
			}
		})
	}
}

func TestRunAnswersAStoreThatCannotBeOpenedAsStrict(t *testing.T) {
	tr := newTree(t)
	tr.skill("user", "pdf")
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o600))
	tr.env.Store.Dir = filepath.Join(file, "state") // under a regular file: cannot be created
	o := Run(context.Background(), Use{Kind: Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 2*time.Second)
	if o.Answer != Deny || !strings.Contains(o.Reason, "the store could not be located or read") {
		t.Fatalf("%+v", o)
	}
}

func TestUnlocatedDenies(t *testing.T) {
	if f := Unlocated(os.ErrNotExist); f.Answer != Deny || !strings.Contains(f.Note, "policy strict denies") {
		t.Fatalf("%+v", f)
	}
}
