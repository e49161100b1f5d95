package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/session/unrecorded"
	"github.com/skillwire/skillwire/walker"
)

const firstRunWords = "skillwire first run"

// newStart is a session start of one global skills root holding skill a,
// with a store that does not exist yet.
func newStart(t *testing.T) Start {
	dir := t.TempDir()
	root := claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills}
	testtree.Make(t, root.Path, "a/SKILL.md=hello")
	return Start{Roots: []claude.Root{root}, Walk: walker.DefaultConfig(), WalkTimeout: time.Minute,
		Store: baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: 200 * time.Millisecond},
		Audit: func() ([]reconcile.Source, string) { return nil, "" }, Log: zerolog.Nop()}
}

// run runs s; delivered is what deliver reports, and the texts it was given
// are returned.
func run(t *testing.T, s Start, delivered bool) ([]string, error) {
	t.Helper()
	var told []string
	_, err := Run(context.Background(), s, func(text, _ string) bool { told = append(told, text); return delivered })
	return told, err
}

func firstRunDone(t *testing.T, s Start) (done bool) {
	t.Helper()
	must(t, baseline.View(s.Store, func(tx *baseline.Tx) error { done = tx.FirstRunDone(); return nil }))
	return done
}

func TestRunNeverAdvancesBeforeDelivery(t *testing.T) {
	s := newStart(t)
	called := false
	_, err := Run(context.Background(), s, func(text, _ string) bool {
		called = true
		if !strings.Contains(text, firstRunWords) {
			t.Errorf("told %q, want the first run", text)
		}
		if firstRunDone(t, s) {
			t.Error("the first run was recorded before its advisory was delivered")
		}
		return true
	})
	must(t, err)
	if !called || !firstRunDone(t, s) {
		t.Fatalf("delivered %v, first run recorded %v: want both", called, firstRunDone(t, s))
	}
}

func TestRunAFailedDeliveryIsToldAgainNextSession(t *testing.T) {
	s := newStart(t)
	for i, delivered := range []bool{false, true} {
		told, err := run(t, s, delivered)
		must(t, err)
		if len(told) != 1 || !strings.Contains(told[0], firstRunWords) {
			t.Fatalf("session %d told %q, want the first run", i+1, told)
		}
	}
	if told, err := run(t, s, true); err != nil || len(told) != 0 {
		t.Fatalf("after a delivery, told %q (%v), want nothing", told, err)
	}
}

// runHeld runs a start of s whose store another process takes between
// delivery and record: it must fail busy.
func runHeld(t *testing.T, s Start) {
	t.Helper()
	var held *baseline.Store
	_, err := Run(context.Background(), s, func(string, string) bool {
		var err error
		held, err = baseline.Open(s.Store)
		must(t, err)
		return true
	})
	held.Close()
	if !errors.Is(err, baseline.ErrBusy) {
		t.Fatalf("got %v, want the store's busy error", err)
	}
}

func TestRunReturnsWhyWhatWasDeliveredWasNotRecorded(t *testing.T) {
	s := newStart(t)
	runHeld(t, s)
	if told, _ := run(t, s, true); len(told) != 1 || !strings.Contains(told[0], firstRunWords) {
		t.Fatalf("next session told %q, want the first run again", told)
	}
}

// A start that told its session and could not record it is told at the
// next start, to the model and the person, with its time and why; a start
// that records clears it. Without the mark the next session hears "first
// run" again and never why (how a refused record went unseen, issue 31).
func TestAStartThatCouldNotRecordIsToldNextStart(t *testing.T) {
	s := newStart(t)
	runHeld(t, s)
	const words = "skillwire's last session start ("
	for i, want := range []bool{true, false} {
		var text, notice string
		_, err := Run(context.Background(), s, func(t, n string) bool { text, notice = t, n; return true })
		must(t, err)
		told := strings.Contains(text, words) && strings.Contains(text, "could not record it (the store was busy)") &&
			strings.Contains(notice, "its last session start was not recorded")
		if told != want || strings.Contains(text, words) != want {
			t.Fatalf("start %d after: told %v, want %v:\n%s\n%s", i+1, told, want, text, notice)
		}
		if i == 0 && !strings.Contains(text, firstRunWords) {
			t.Errorf("the first run was not told again:\n%s", text)
		}
	}
}

// A start whose delivery failed leaves the mark for the next: it told
// nothing, so nothing it told was recorded, and the earlier start's mark
// still stands.
func TestAnUndeliveredStartKeepsTheMark(t *testing.T) {
	s := newStart(t)
	must(t, os.MkdirAll(s.Store.Dir, 0o700))
	must(t, unrecorded.Set(s.Store.Dir, time.Now(), baseline.ErrBusy))
	for i, delivered := range []bool{false, true} {
		told, err := run(t, s, delivered)
		must(t, err)
		if len(told) != 1 || !strings.Contains(told[0], "could not record it") {
			t.Fatalf("start %d told %q, want the mark", i+1, told)
		}
	}
	if unrecorded.Read(s.Store.Dir) != nil {
		t.Fatal("a start that delivered and recorded left the mark")
	}
}

func TestRunWithoutAUsableStoreSaysSoAndRecordsNothing(t *testing.T) {
	s := newStart(t)
	must(t, os.MkdirAll(s.Store.Dir, 0o700))
	must(t, os.Chmod(s.Store.Dir, 0o770))
	told, err := run(t, s, true)
	if !errors.Is(err, baseline.ErrUntrusted) {
		t.Fatalf("got %v, want untrusted", err)
	}
	if len(told) != 1 || !strings.Contains(told[0], "untrusted") {
		t.Fatalf("told %q, want the store's problem", told)
	}
	if _, err := os.Stat(filepath.Join(s.Store.Dir, baseline.FileName)); !os.IsNotExist(err) {
		t.Fatalf("an untrusted directory got a store: %v", err)
	}
}

func TestRunKeepsTheVersionsItDelivered(t *testing.T) {
	s := newStart(t)
	_, err := run(t, s, true)
	must(t, err)
	must(t, baseline.View(s.Store, func(tx *baseline.Tx) error {
		id := tx.ID(s.Roots[0].Path, []byte("a"))
		vs, err := tx.Versions().Of(id)
		if len(vs) != 1 || vs[0].How != baseline.HowFirstUse || !vs[0].Restorable {
			t.Errorf("versions of a: %+v, want one restorable first-use version", vs)
		}
		return err
	}))
}

func TestRunDeliversNothingWhenThereIsNothingToSayUnlessWarned(t *testing.T) {
	s := newStart(t)
	_, err := run(t, s, true)
	must(t, err)
	if told, _ := run(t, s, true); len(told) != 0 {
		t.Fatalf("told %q of an unchanged tree", told)
	}
	s.Warned = true
	if told, _ := run(t, s, true); len(told) != 1 || told[0] != "" {
		t.Fatalf("warned: told %q, want one empty advisory for the warning", told)
	}
}

func TestScannedAdvancesWhatWasPrintedAndLeavesEventsForTheNextSession(t *testing.T) {
	s := newStart(t)
	obs := observe(context.Background(), s.Roots, s.Walk, nil)
	var sts []baseline.Standing
	must(t, baseline.Update(s.Store, func(tx *baseline.Tx) error {
		var err error
		if sts, err = tx.Compare(obs); err != nil {
			return err
		}
		d := sts[0].Digest()
		return tx.Events().Append([]cache.Event{{ID: sts[0].ID, Root: []byte(s.Roots[0].Path), Name: []byte("a"), After: d, At: time.Now()}})
	}))
	delivered, err := Deliver(Delivery{Store: s.Store, Advisory: Scanned(sts, true)}, func() bool { return true })
	if err != nil || !delivered {
		t.Fatalf("Deliver = %v, %v", delivered, err)
	}
	must(t, baseline.View(s.Store, func(tx *baseline.Tx) error {
		now, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		evs, err := tx.Events().List()
		if !tx.FirstRunDone() || now[0].State != baseline.Unchanged || len(evs) != 1 {
			t.Errorf("first run %v, a %s, %d events: want the first run, a unchanged, its event kept", tx.FirstRunDone(), now[0].State, len(evs))
		}
		return err
	}))
}

// A delivered session start tells a fleet what it told. It writes one
// OCSF event per candidate it consumed, with the session's id. An
// undelivered one writes none: never before delivery.
func TestRunTellsAFleetWhatItDeliveredAndNothingBefore(t *testing.T) {
	s := newStart(t)
	s.Session = "sess-42"
	_, err := run(t, s, true) // the first run
	must(t, err)
	testtree.Make(t, s.Roots[0].Path, "b/SKILL.md=new")
	events := filepath.Join(s.Store.Dir, "events.ndjson")
	before, _ := os.ReadFile(events)
	_, err = run(t, s, false)
	must(t, err)
	if after, _ := os.ReadFile(events); string(after) != string(before) {
		t.Fatalf("an undelivered session start wrote events: %s", after[len(before):])
	}
	_, err = run(t, s, true)
	must(t, err)
	b, err := os.ReadFile(events)
	must(t, err)
	got := string(b[len(before):])
	if !strings.Contains(got, `"sess-42"`) || !strings.Contains(got, `"state":"new"`) || !strings.Contains(got, `"class_uid":2004`) {
		t.Fatalf("%s", got)
	}
}

// Each changed file of a delivered candidate is a File System Activity
// event with its reconciliation class and, for its new bytes, SHA-256.
func TestRunTellsAFleetEachChangedFile(t *testing.T) {
	s := newStart(t)
	_, err := run(t, s, true) // the first run: a/SKILL.md accepted
	must(t, err)
	testtree.Make(t, s.Roots[0].Path, "a/SKILL.md=hello, changed")
	_, err = run(t, s, true)
	must(t, err)
	b, err := os.ReadFile(filepath.Join(s.Store.Dir, "events.ndjson"))
	must(t, err)
	var fileEvent string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"class_uid":1001`) {
			fileEvent = l
		}
	}
	if fileEvent == "" || !strings.Contains(fileEvent, `"algorithm_id":3`) || !strings.Contains(fileEvent, `"unexpected"`) || !strings.Contains(fileEvent, "SKILL.md") {
		t.Fatalf("no file event with its class and SHA-256:\n%s", b)
	}
}

// A session start whose fleet events cannot be written still answers. It
// says so on stderr. Issue 24's fault: the events file cannot be written.
func TestRunAnswersAndSaysSoWhenTheFleetEventsCannotBeWritten(t *testing.T) {
	s := newStart(t)
	must(t, os.MkdirAll(filepath.Join(s.Store.Dir, "events.ndjson"), 0o700)) // not a file: every append fails
	var stderr strings.Builder
	s.Stderr = &stderr
	told, err := run(t, s, true)
	must(t, err)
	if len(told) != 1 || !strings.Contains(told[0], firstRunWords) {
		t.Fatalf("the session start did not answer: %q", told)
	}
	if !strings.Contains(stderr.String(), "fleet events of this session start were not written") {
		t.Fatalf("stderr: %q", stderr.String())
	}
}

// A start with a session marks it and keeps what its client serves: both
// stand after it. A start of the same session again finds the mark (read
// by its flag alone, writing nothing) and keeps what the first kept.
func TestAStartMarksItsSessionAndKeepsWhatItServes(t *testing.T) {
	s := newStart(t)
	s.Session = "s1"
	for i := range 2 {
		if _, err := run(t, s, true); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		must(t, baseline.View(s.Store, func(tx *baseline.Tx) error {
			sv, err := tx.SessionServed().Of("s1")
			f, _ := sv.Folder(s.Roots[0].Path)
			if err != nil || !sv.Start || !sv.Kept || len(f.Skills) != 1 {
				t.Errorf("start %d: the session's record %+v, %v; want it marked, with skill a kept", i+1, sv, err)
			}
			return nil
		}))
	}
}
