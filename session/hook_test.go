package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
)

// told runs h and returns what was delivered, text and notice.
func told(t *testing.T, h Hook) (texts []string) {
	t.Helper()
	out := &Out{Write: func(text, notice string) bool { texts = append(texts, text, notice); return true }}
	RunHook(context.Background(), h, out)
	return texts
}

func worldOf(s Start) func() (World, error) {
	return func() (World, error) { return World{Start: s}, nil }
}

func TestASteeredProjectIsToldOneLineAndItsWorldIsNotRead(t *testing.T) {
	project := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	must(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"env":{"SKILLWIRE_STATE_DIR":"/tmp/x"}}`), 0o644))
	read := false
	got := told(t, Hook{Projects: []string{project}, World: func() (World, error) { read = true; return World{}, nil }})
	if read {
		t.Error("the world of a steered project was read")
	}
	if len(got) != 2 || got[0] != got[1] || !strings.Contains(got[0], "SKILLWIRE_STATE_DIR in env") {
		t.Fatalf("told %q, want the one steering line twice", got)
	}
}

func TestAWorldThatCannotBeReadIsToldIncomplete(t *testing.T) {
	got := told(t, Hook{World: func() (World, error) { return World{}, errors.New("no config dir") }})
	if len(got) != 2 || got[0] != TextIncomplete || got[1] != NoticeIncomplete {
		t.Fatalf("told %q", got)
	}
}

func TestTheWorldsLinesAreSaidBeforeTheAdvisory(t *testing.T) {
	s := newStart(t)
	got := told(t, Hook{World: func() (World, error) { return World{Start: s, Told: []string{"first", "second"}}, nil }})
	if len(got) != 2 || !strings.HasPrefix(got[0], "first\nsecond\n") || !strings.Contains(got[0], firstRunWords) ||
		!strings.HasPrefix(got[1], "first\nsecond\n") {
		t.Fatalf("told %q", got)
	}
}

// A warning alone is delivered: the session hears it even when the
// advisory has nothing to say.
func TestAWarningIsDeliveredWhenTheAdvisoryIsEmpty(t *testing.T) {
	s := newStart(t)
	told(t, Hook{World: worldOf(s)}) // the first run, delivered
	got := told(t, Hook{World: func() (World, error) { return World{Start: s, Told: []string{"warned"}}, nil }})
	if len(got) != 2 || got[0] != "warned" || got[1] != "warned" {
		t.Fatalf("told %q, want the warning alone", got)
	}
}

// The gate's later hooks find no plugins kept, and hold every plugin:name.
// The session is told why, first.
func TestStartPluginsThatCannotBeKeptAreToldFirst(t *testing.T) {
	s := newStart(t)
	w := World{Start: s, Plugins: StartPlugins{Given: true, Names: []string{"docs@inline"}}}
	got := told(t, Hook{World: func() (World, error) { return w, nil }})
	if len(got) != 2 || !strings.HasPrefix(got[0], startPluginsTold("the hook input names no session to keep them for")+"\n") {
		t.Fatalf("told %q", got)
	}
}

func TestStartPluginsAreKeptForTheSession(t *testing.T) {
	s := newStart(t)
	s.Session = "s1"
	w := World{Start: s, Plugins: StartPlugins{Given: true, Names: []string{"docs@inline"}}}
	got := told(t, Hook{World: func() (World, error) { return w, nil }})
	if len(got) != 2 || strings.Contains(got[0], "could not keep") {
		t.Fatalf("told %q", got)
	}
	must(t, baseline.View(s.Store, func(tx *baseline.Tx) error {
		p, err := tx.SessionPlugins().Of("s1")
		if err == nil && (!p.Kept || p.Missing([]string{"docs@inline"})) {
			t.Errorf("kept %+v", p)
		}
		return err
	}))
}

func TestNoFolderGivenKeepsNoStartPlugins(t *testing.T) {
	if why := keepStartPlugins(baseline.Options{}, "", StartPlugins{}, time.Time{}); why != "" {
		t.Fatalf("why %q", why)
	}
}

func TestOutDeliversOnlyTheFirstAdvisory(t *testing.T) {
	var got []string
	out := &Out{Write: func(text, _ string) bool { got = append(got, text); return true }}
	out.Warn("")
	if out.warned() {
		t.Error("an empty line counts as a warning")
	}
	out.Warn("w")
	if !out.Deliver("a", "n") || out.Deliver("b", "n") {
		t.Error("want the first delivery only")
	}
	if len(got) != 1 || got[0] != "w\na" {
		t.Fatalf("wrote %q", got)
	}
}

// A start's plugins that cannot be kept are said, in fixed words: no
// session, a garbage session id, a store that cannot be written.
func TestStartPluginsNotKeptAreSaid(t *testing.T) {
	s := newStart(t)
	now := time.Now()
	if why := keepStartPlugins(s.Store, "s", StartPlugins{Names: []string{"a@inline"}}, now); why != "" {
		t.Errorf("no folder given: %q", why)
	}
	given := StartPlugins{Given: true, Names: []string{"a@inline"}}
	for _, id := range []string{"", "x\x1b[2J", strings.Repeat("s", 1000)} {
		if why := keepStartPlugins(s.Store, id, given, now); why == "" || strings.Contains(why, "\x1b") {
			t.Errorf("session %q: %q", id, why)
		}
	}
	o := s.Store
	o.Dir = "/proc/nonexistent/state"
	if why := keepStartPlugins(o, "s", StartPlugins{Given: true}, now); why == "" {
		t.Error("a store that cannot be written kept the start")
	}
	if told := startPluginsTold("why"); !strings.Contains(told, "(why)") || !strings.Contains(told, "asks for every plugin") {
		t.Errorf("%q", told)
	}
}
