package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/claude/resolve"
)

// guard denies every use where a project's settings steer skillwire, or
// cannot be read safely, with steer's reason first; clean settings pass.
func TestGuardDeniesWhereProjectSettingsSteerSkillwire(t *testing.T) {
	for settings, want := range map[string]string{
		"":                                       "",
		`{"env":{"DEBUG":"1"}}`:                  "",
		`{"env":{"SKILLWIRE_STATE_DIR":"/tmp"}}`: "project settings set SKILLWIRE_STATE_DIR in env",
		`{"env":`:                                "project settings could not be read safely",
	} {
		p := t.TempDir()
		if settings != "" {
			must(t, os.MkdirAll(filepath.Join(p, ".claude"), 0o755))
			must(t, os.WriteFile(filepath.Join(p, ".claude", "settings.json"), []byte(settings), 0o644))
		}
		o, steered := guard(p)
		if steered != (want != "") || steered && (o.Answer != Deny || !strings.HasPrefix(o.Reason, want) || !strings.HasSuffix(o.Reason, "denied until the key is removed")) {
			t.Errorf("settings %q: %v %+v", settings, steered, o)
		}
	}
}

func TestRunAnswersAStoreThatCannotBeOpenedAsStrict(t *testing.T) {
	tr := newTree(t)
	tr.skill("user", "pdf")
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o600))
	tr.env.Store.Dir = filepath.Join(file, "state") // under a regular file: cannot be created
	o := run(context.Background(), Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 2*time.Second)
	if o.Answer != Deny || !strings.Contains(o.Reason, "the store could not be located or read") {
		t.Fatalf("%+v", o)
	}
}

func TestUnlocatedDenies(t *testing.T) {
	if f := unlocated(os.ErrNotExist); f.Answer != Deny || !strings.Contains(f.Note, "policy strict denies") {
		t.Fatalf("%+v", f)
	}
}
