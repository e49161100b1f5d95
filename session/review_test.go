package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// life is a store and one global skills root, run through sessions the
// way the hook runs them: observe, compare, build, deliver, apply.
type life struct {
	t    *testing.T
	st   *baseline.Store
	root claude.Root
	now  time.Time
}

func newLife(t *testing.T) *life {
	dir := t.TempDir()
	st, err := baseline.Open(baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: time.Second})
	must(t, err)
	t.Cleanup(func() { st.Close() })
	root := claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills}
	must(t, os.MkdirAll(root.Path, 0o755))
	return &life{t: t, st: st, root: root, now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
}

func (l *life) write(rel, content string) {
	p := filepath.Join(l.root.Path, rel)
	must(l.t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(l.t, os.WriteFile(p, []byte(content), 0o644))
}

func (l *life) observe() []baseline.Observation {
	return Observe(context.Background(), []claude.Root{l.root}, walker.DefaultConfig(), nil)
}

// session runs one session start and returns what it was told.
func (l *life) session() Advisory {
	l.t.Helper()
	l.now = l.now.Add(time.Hour)
	obs := l.observe()
	var in Input
	must(l.t, l.st.View(func(tx *baseline.Tx) error {
		var err error
		in = Input{Obs: obs, Bootstrap: !tx.FirstRunDone()}
		in.Standings, err = tx.Compare(obs)
		return err
	}))
	adv := Build(in)
	if adv.Applies() {
		must(l.t, l.st.Update(func(tx *baseline.Tx) error { return adv.Apply(tx, l.now) }))
	}
	return adv
}

func (l *life) standing(name string) baseline.Standing {
	l.t.Helper()
	var out baseline.Standing
	must(l.t, l.st.View(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(l.observe())
		for _, s := range sts {
			if string(s.Name) == name {
				out = s
			}
		}
		return err
	}))
	return out
}

func (l *life) recordSafe(name string) {
	l.t.Helper()
	s := l.standing(name)
	must(l.t, l.st.Update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()},
			baseline.Verdict{Verdict: baseline.Safe, Digest: s.Digest(), At: l.now})
		return err
	}))
}

func TestPendingIsToldInEverySessionUntilRecorded(t *testing.T) {
	l := newLife(t)
	l.write("a/SKILL.md", "reviewed words")
	l.session()
	l.recordSafe("a")
	l.write("a/SKILL.md", "changed by nobody known")

	wants := []string{
		"- changed since it was reviewed SAFE-TO-PROPOSE, pending a new review: global skill \"a\" id ",
		"told once since 2026-11-30",
		"told 2 times since 2026-11-30",
	}
	for i := range 3 {
		adv := l.session()
		if !strings.Contains(adv.Text, wants[0]) {
			t.Fatalf("session %d not told of the pending change:\n%s", i+1, adv.Text)
		}
		if i > 0 && !strings.Contains(adv.Text, wants[i]) {
			t.Errorf("session %d lacks %q:\n%s", i+1, wants[i], adv.Text)
		}
		if i == 0 && strings.Contains(adv.Text, "told ") {
			t.Errorf("first tell counts earlier tells:\n%s", adv.Text)
		}
	}
	if s := l.standing("a"); s.Status() != baseline.StatusPending {
		t.Fatalf("status %q after three sessions, want pending", s.Status())
	}
	l.recordSafe("a")
	if adv := l.session(); adv.Text != "" {
		t.Fatalf("recorded, yet the session is still told:\n%s", adv.Text)
	}
}

func TestUnreviewedChangeIsToldOnce(t *testing.T) {
	l := newLife(t)
	l.write("a/SKILL.md", "1")
	l.session()
	l.write("a/SKILL.md", "2")
	if adv := l.session(); !strings.Contains(adv.Text, "- changed since the last session: global skill \"a\"") {
		t.Fatalf("change not told:\n%s", adv.Text)
	}
	if adv := l.session(); adv.Text != "" {
		t.Fatalf("an unreviewed change is told again:\n%s", adv.Text)
	}
}

func TestEmptyFirstRunIsTheFirstRun(t *testing.T) {
	l := newLife(t)
	adv := l.session()
	if !strings.Contains(adv.Text, "first run: 0 skill(s)") {
		t.Fatalf("first run not told:\n%s", adv.Text)
	}
	l.write("dropped-in/SKILL.md", "appeared after the first run")
	adv = l.session()
	if strings.Contains(adv.Text, "first run") || !strings.Contains(adv.Text, "- new since the last session: global skill \"dropped-in\"") {
		t.Fatalf("a skill appearing after an empty first run was accepted as first use:\n%s", adv.Text)
	}
	if s := l.standing("dropped-in"); s.Status() != baseline.StatusSeen {
		t.Fatalf("status %q, want seen (never baseline)", s.Status())
	}
}

func TestAdverseVerdictKeepsFollowingContentIntoEverySession(t *testing.T) {
	l := newLife(t)
	l.write("a/SKILL.md", "bad")
	l.session()
	s := l.standing("a")
	must(t, l.st.Update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()},
			baseline.Verdict{Verdict: baseline.Block, Digest: s.Digest(), At: l.now})
		return err
	}))
	for i := range 2 {
		if adv := l.session(); !strings.Contains(adv.Text, "under an adverse verdict") {
			t.Fatalf("session %d not told of the BLOCK:\n%s", i+1, adv.Text)
		}
	}
}

func TestDaemonEventsCarryTheirReconciliation(t *testing.T) {
	l := newLife(t)
	l.write("a/SKILL.md", "1")
	l.session()
	l.write("a/SKILL.md", "2")
	l.write("a/run.sh", "x")
	obs := l.observe()
	c := &obs[0].Walk.Candidates[0]
	d := c.Digest
	events := []baseline.Event{{Root: []byte(l.root.Path), Name: c.Name, After: &d, At: l.now}}
	opts := baseline.Options{Dir: filepath.Join(filepath.Dir(l.root.Path), "state"), LockTimeout: time.Second}
	l.st.Close() // the daemon reconciles while nobody holds the store
	err := ReconcileEvents(opts, nil, events, func(root string, name []byte) *walker.Candidate {
		if root == l.root.Path && string(name) == "a" {
			return c
		}
		return nil
	}, walker.DefaultLimits, l.now)
	must(t, err)
	got := events[0].Changes
	if len(got) != 2 || got[0].Path != "SKILL.md" || got[0].Change != "modified" || got[1].Path != "run.sh" ||
		got[1].Change != "added" || got[1].Class != "unexpected" {
		t.Fatalf("changes %+v", got)
	}
}
