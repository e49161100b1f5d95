package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
)

func TestClearKeepsUndeliveredEventsUnlessConfirmed(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "CLAUDE_CONFIG_DIR": dir + "/cfg", "SKILLWIRE_STATE_DIR": dir + "/state",
		"CLAUDE_PROJECT_DIR": dir + "/project", "SKILLWIRE_LOCK_TIMEOUT": "1s"}
	run := func(args ...string) (int, string) {
		var out, errw bytes.Buffer
		code := runWith(args, streams{in: bytes.NewReader(nil), out: &out, err: &errw,
			getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		return code, out.String() + errw.String()
	}
	ev := cache.Event{ID: "swaaaaaaaaaaaaaa", Root: []byte(dir + "/cfg/skills"), Name: []byte("a"), At: time.Now()}
	appendEvents(t, dir+"/state", ev, ev, ev)

	for _, tc := range []struct {
		args []string
		code int
		says string
		left int
	}{
		{[]string{"clear"}, exitOK, "kept 3 undelivered change event(s)", 3},
		{[]string{"clear", "--events", "--dry-run"}, exitOK, "would be dropped", 3},
		{[]string{"clear", "--events"}, exitUsage, "This drops 3 change event(s) no session was told of yet", 3},
		{[]string{"clear", "--events", "--yes"}, exitOK, "dropped 3 undelivered change event(s)", 0},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out := run(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.says) {
				t.Fatalf("exit %d, output:\n%s\nwant exit %d saying %q", code, out, tc.code, tc.says)
			}
			if n := len(storedEvents(t, dir+"/state")); n != tc.left {
				t.Fatalf("%d events left, want %d", n, tc.left)
			}
		})
	}
}

// eventOnPrompt appends an event to the store the first time the prompt's
// count is written: the daemon recording a change while the person reads.
type eventOnPrompt struct {
	bytes.Buffer
	t    *testing.T
	dir  string
	done bool
}

func (w *eventOnPrompt) Write(p []byte) (int, error) {
	if !w.done && bytes.Contains(p, []byte("This drops")) {
		w.done = true
		appendEvents(w.t, w.dir, cache.Event{ID: "swbbbbbbbbbbbbbb", Root: []byte("/r"), Name: []byte("late"), At: time.Now()})
	}
	return w.Buffer.Write(p)
}

func TestClearEventsDropsOnlyTheEventsItCounted(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "CLAUDE_CONFIG_DIR": dir + "/cfg", "SKILLWIRE_STATE_DIR": dir + "/state",
		"CLAUDE_PROJECT_DIR": dir + "/project", "SKILLWIRE_LOCK_TIMEOUT": "1s"}
	ev := cache.Event{ID: "swaaaaaaaaaaaaaa", Root: []byte(dir + "/cfg/skills"), Name: []byte("a"), At: time.Now()}
	appendEvents(t, dir+"/state", ev, ev)
	out := &eventOnPrompt{t: t, dir: dir + "/state"}
	var errw bytes.Buffer
	code := runWith([]string{"clear", "--events", "--yes"}, streams{in: bytes.NewReader(nil), out: out, err: &errw,
		getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if code != exitOK || !strings.Contains(out.String(), "dropped 2 undelivered change event(s)") ||
		!strings.Contains(out.String(), "kept 1 change event(s) recorded since they were counted") {
		t.Fatalf("exit %d, output:\n%s%s", code, out.String(), errw.String())
	}
	evs := storedEvents(t, dir+"/state")
	if len(evs) != 1 || string(evs[0].Name) != "late" {
		t.Fatalf("left %d events, want only the one recorded after the count", len(evs))
	}
}

// appendEvents adds evs to the store in stateDir, creating it when absent.
func appendEvents(t *testing.T, stateDir string, evs ...cache.Event) {
	t.Helper()
	st, err := baseline.Open(baseline.Options{Dir: stateDir, Create: true, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(func(tx *baseline.Tx) error { return tx.Events().Append(evs) }); err != nil {
		t.Fatal(err)
	}
}

// storedEvents reads the undelivered change events of the store in stateDir.
func storedEvents(t *testing.T, stateDir string) []cache.Event {
	t.Helper()
	st, err := baseline.Open(baseline.Options{Dir: stateDir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var evs []cache.Event
	if err := st.View(func(tx *baseline.Tx) (err error) { evs, err = tx.Events().List(); return }); err != nil {
		t.Fatal(err)
	}
	return evs
}
