package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// life is a store and one global skills root, run through sessions as the
// hook runs them. Observe, compare, build, deliver, apply.
type life struct {
	t    *testing.T
	opts baseline.Options
	root claude.Root
	now  time.Time
	// global and project are the audit logs' entries; kept stands for the
	// content store: every observed file's bytes, by BLAKE3.
	global, project []auditlog.Entry
	kept            map[snapshot.Hash][]byte
	noContent       bool
	// undelivered: the advisory does not reach the session (the deadline
	// text went out instead), so nothing is applied.
	undelivered bool
	// more are roots observed beside root.
	more []claude.Root
}

func newLife(t *testing.T) *life {
	dir := t.TempDir()
	opts := baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: time.Second}
	st, err := baseline.Open(opts)
	must(t, err)
	st.Close()
	root := claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills}
	must(t, os.MkdirAll(root.Path, 0o755))
	return &life{t: t, opts: opts, root: root, now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
		kept: map[snapshot.Hash][]byte{}}
}

// announce appends an audit entry for rel, relative to the root. It holds
// its content's SHA-256, from source, in the global or the project's log.
func (l *life) announce(rel, source string, project bool) {
	b, err := os.ReadFile(filepath.Join(l.root.Path, rel))
	must(l.t, err)
	sum := sha256.Sum256(b)
	e := auditlog.Entry{Timestamp: l.now.Add(30 * time.Minute), Operation: auditlog.Refine, FilePath: filepath.Join(l.root.Path, rel),
		Source: source, SHA256: hex.EncodeToString(sum[:])}
	if project {
		l.project = append(l.project, e)
	} else {
		l.global = append(l.global, e)
	}
}

func (l *life) trust(source string) {
	must(l.t, l.update(func(tx *baseline.Tx) error { return tx.Trust().Add(source) }))
}

// keep records the bytes of every file observed, as the content store does.
func (l *life) keep(obs []baseline.Observation) {
	for _, o := range obs {
		for _, c := range o.Walk.Candidates {
			for _, e := range c.Manifest.Entries {
				if e.Kind == snapshot.File {
					b, err := os.ReadFile(filepath.Join(o.Root.Path, string(c.Name), string(e.Path)))
					must(l.t, err)
					l.kept[e.Hash] = b
				}
			}
		}
	}
}

func (l *life) notes(name string) []baseline.Note {
	var out []baseline.Note
	id := l.standing(name).ID
	must(l.t, l.view(func(tx *baseline.Tx) (err error) { out, err = tx.Notes().Of(id); return }))
	return out
}

// view and update open the store for one transaction, as every process
// does: nobody holds it between operations.
func (l *life) view(fn func(*baseline.Tx) error) error {
	st, err := baseline.Open(l.opts)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.View(fn)
}

func (l *life) update(fn func(*baseline.Tx) error) error {
	st, err := baseline.Open(l.opts)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Update(fn)
}

func (l *life) write(rel, content string) {
	p := filepath.Join(l.root.Path, rel)
	must(l.t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(l.t, os.WriteFile(p, []byte(content), 0o644))
}

func (l *life) observe() []baseline.Observation {
	return observe(context.Background(), append([]claude.Root{l.root}, l.more...), walker.DefaultConfig(), nil)
}

// session runs one session start as the hook does and returns what it was
// told.
func (l *life) session() Advisory {
	l.t.Helper()
	l.now = l.now.Add(time.Hour)
	obs := l.observe()
	if !l.noContent {
		l.keep(obs)
	}
	sc := []auditlog.Scope{{Scope: claude.Global, Base: filepath.Dir(l.root.Path), Roots: []string{l.root.Path}}}
	start := comparison{Store: l.opts, Obs: obs, Limits: walker.DefaultLimits, Now: l.now,
		Audit: func() ([]reconcile.Source, string) {
			return []reconcile.Source{{Entries: l.global, Scopes: sc}, {Entries: l.project, Scopes: sc, ProjectLog: true}}, ""
		},
		Content: func(h snapshot.Hash) ([]byte, bool) { b, ok := l.kept[h]; return b, ok }}
	in, err := start.prepare()
	must(l.t, err)
	adv := build(in)
	if adv.Applies() && !l.undelivered {
		must(l.t, l.update(func(tx *baseline.Tx) error { return adv.Apply(tx, l.now) }))
	}
	return adv
}

func (l *life) standing(name string) baseline.Standing {
	l.t.Helper()
	var out baseline.Standing
	must(l.t, l.view(func(tx *baseline.Tx) error {
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
	must(l.t, l.update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()},
			baseline.Verdict{Verdict: verdict.Safe, Digest: s.Digest(), At: l.now})
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
	if !strings.Contains(adv.Text, "first run: accepted nothing") {
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
	must(t, l.update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()},
			baseline.Verdict{Verdict: verdict.Block, Digest: s.Digest(), At: l.now})
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
	events := []cache.Event{{Root: []byte(l.root.Path), Name: c.Name, After: &d, At: l.now}}
	opts := baseline.Options{Dir: filepath.Join(filepath.Dir(l.root.Path), "state"), LockTimeout: time.Second}
	err := reconcile.Events(opts, nil, events, func(root string, name []byte) *walker.Candidate {
		if root == l.root.Path && string(name) == "a" {
			return c
		}
		return nil
	}, func(string) *claude.Root { return nil }, walker.DefaultLimits, l.now)
	must(t, err)
	got := events[0].Changes
	if len(got) != 2 || got[0].Path != "SKILL.md" || got[0].Change != "modified" || got[1].Path != "run.sh" ||
		got[1].Change != "added" || got[1].Class != "unexpected" {
		t.Fatalf("changes %+v", got)
	}
}

// reviewed is a skill of 100 words reviewed SAFE by a person, with
// skill-creator trusted.
func reviewed(t *testing.T) *life {
	l := newLife(t)
	l.write("s/SKILL.md", "---\nname: s\n---\n"+words(96))
	l.session()
	l.recordSafe("s")
	l.trust("skill-creator")
	return l
}

func words(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }

func (l *life) refine(extra int, source string, project bool) {
	l.write("s/SKILL.md", "---\nname: s\n---\n"+words(96+extra))
	l.announce("s/SKILL.md", source, project)
}

func TestAuditedRefineByATrustedSourceWithinBoundsIsAutoAccepted(t *testing.T) {
	l := reviewed(t)
	l.refine(10, "skill-creator", false)
	adv := l.session()
	if !strings.Contains(adv.Text, "auto-accepted within the bounds a person set: global skill \"s\"") ||
		!strings.Contains(adv.Text, "announced by skill-creator, drift 10 %, cumulative 10 %") {
		t.Fatalf("auto-accept not told:\n%s", adv.Text)
	}
	s := l.standing("s")
	if s.Status() != baseline.StatusVetted || s.Verdict == nil || s.Verdict.Reviewer != "auto:skill-creator" {
		t.Fatalf("status %q verdict %+v, want vetted by auto:skill-creator", s.Status(), s.Verdict)
	}
	if n := l.notes("s"); len(n) != 1 || n[0].Kind != baseline.NoteAutoAccept {
		t.Fatalf("notes %+v", n)
	}
	if adv := l.session(); adv.Text != "" {
		t.Fatalf("an auto-accepted change is told again:\n%s", adv.Text)
	}
}

// An auto-accept is recorded when decided but consumed only when told. An
// advisory that was not delivered leaves it to the next session.
func TestAnAutoAcceptNotDeliveredIsToldNextSession(t *testing.T) {
	l := reviewed(t)
	l.refine(10, "skill-creator", false)
	l.undelivered = true
	if adv := l.session(); !strings.Contains(adv.Text, "auto-accepted within the bounds") {
		t.Fatalf("auto-accept not told:\n%s", adv.Text)
	}
	l.undelivered = false
	adv := l.session()
	if !strings.Contains(adv.Text, "auto-accepted within the bounds a person set: global skill \"s\"") ||
		!strings.Contains(adv.Text, "announced by skill-creator, drift 10 %, cumulative 10 %") {
		t.Fatalf("an undelivered auto-accept was not told again:\n%s", adv.Text)
	}
	if adv := l.session(); adv.Text != "" {
		t.Fatalf("a delivered auto-accept is told again:\n%s", adv.Text)
	}
}

// Held over by the cap, an auto-accept stays untold until listed.
func TestAnAutoAcceptHeldOverByTheCapIsToldLater(t *testing.T) {
	l := reviewed(t)
	for i := range maxListed {
		l.write(fmt.Sprintf("p%d/SKILL.md", i), words(20))
	}
	l.session()
	for i := range maxListed {
		l.recordSafe(fmt.Sprintf("p%d", i))
		l.write(fmt.Sprintf("p%d/SKILL.md", i), words(40)) // pending, listed first
	}
	l.refine(10, "skill-creator", false)
	if adv := l.session(); strings.Contains(adv.Text, "auto-accepted within") || !strings.Contains(adv.Text, "1 more auto-accepted") {
		t.Fatalf("not held over:\n%s", adv.Text)
	}
	for i := range maxListed {
		l.recordSafe(fmt.Sprintf("p%d", i))
	}
	if adv := l.session(); !strings.Contains(adv.Text, "auto-accepted within the bounds a person set: global skill \"s\"") {
		t.Fatalf("a held-over auto-accept was never told:\n%s", adv.Text)
	}
}

func TestTheSameRefineFromTheProjectLogIsNotAutoAccepted(t *testing.T) {
	l := reviewed(t)
	l.refine(10, "skill-creator", true)
	adv := l.session()
	if !strings.Contains(adv.Text, "halted: file change not announced by a trusted source in the global audit log") {
		t.Fatalf("not halted:\n%s", adv.Text)
	}
	if s := l.standing("s"); s.Status() != baseline.StatusHalted {
		t.Fatalf("status %q, want halted", s.Status())
	}
}

func TestA25PercentSingleChangeDriftHalts(t *testing.T) {
	l := reviewed(t)
	l.refine(25, "skill-creator", false)
	if adv := l.session(); !strings.Contains(adv.Text, "; halted: drift 25 % > 20 %") {
		t.Fatalf("not halted:\n%s", adv.Text)
	}
	if n := l.notes("s"); len(n) != 1 || n[0].Kind != baseline.NoteHalt || n[0].Text != "drift 25 % > 20 %" {
		t.Fatalf("notes %+v", n)
	}
}

func TestASecondSmallEditAfterAHaltStaysHalted(t *testing.T) {
	l := reviewed(t)
	l.refine(25, "skill-creator", false)
	l.session()
	l.refine(26, "skill-creator", false) // one word more: well inside the bounds on its own
	adv := l.session()
	if !strings.Contains(adv.Text, "halted: drift 25 % > 20 %") || strings.Contains(adv.Text, "auto-accepted") {
		t.Fatalf("a halt was lifted by a small edit:\n%s", adv.Text)
	}
	l.recordSafe("s")
	if s := l.standing("s"); s.Status() != baseline.StatusVetted {
		t.Fatalf("a recorded verdict did not clear the halt: %q", s.Status())
	}
}

func TestCumulativeDriftPast60PercentHalts(t *testing.T) {
	l := reviewed(t)
	for i, extra := range []int{18, 36, 54} {
		l.refine(extra, "skill-creator", false)
		if adv := l.session(); !strings.Contains(adv.Text, "auto-accepted") {
			t.Fatalf("refine %d not accepted:\n%s", i+1, adv.Text)
		}
	}
	l.refine(64, "skill-creator", false)
	if adv := l.session(); !strings.Contains(adv.Text, "halted: cumulative drift 64 % > 60 %") {
		t.Fatalf("not halted:\n%s", adv.Text)
	}
}

func TestAReversalHalts(t *testing.T) {
	l := reviewed(t)
	l.refine(10, "skill-creator", false)
	l.session()
	l.refine(0, "skill-creator", false) // back to what the person reviewed
	if s := l.standing("s"); s.Status() != baseline.StatusPending {
		t.Fatalf("status %q before the session", s.Status())
	}
	if adv := l.session(); !strings.Contains(adv.Text, "halted: reverses an earlier auto-accept") {
		t.Fatalf("a reversal was not halted:\n%s", adv.Text)
	}
}

// Permission bits other than the executable bit do not disguise a return
// to what an auto-accept replaced.
func TestAReversalWithItsPermissionsTweakedHalts(t *testing.T) {
	l := reviewed(t)
	l.refine(10, "skill-creator", false)
	l.session()
	l.refine(0, "skill-creator", false)
	must(t, os.Chmod(filepath.Join(l.root.Path, "s/SKILL.md"), 0o600))
	if adv := l.session(); !strings.Contains(adv.Text, "halted: reverses an earlier auto-accept") {
		t.Fatalf("a reversal after a chmod was not halted:\n%s", adv.Text)
	}
}

func TestWithoutKeptContentAChangeHaltsNeverAccepts(t *testing.T) {
	l := reviewed(t)
	l.noContent = true
	l.kept = map[snapshot.Hash][]byte{}
	l.refine(5, "skill-creator", false)
	if adv := l.session(); !strings.Contains(adv.Text, "halted: previous content not kept") {
		t.Fatalf("not halted:\n%s", adv.Text)
	}
}

func TestWithoutATrustedSourcePendingStaysPending(t *testing.T) {
	l := newLife(t)
	l.write("s/SKILL.md", words(100))
	l.session()
	l.recordSafe("s")
	l.write("s/SKILL.md", words(101))
	l.announce("s/SKILL.md", "skill-creator", false)
	l.session()
	if s := l.standing("s"); s.Status() != baseline.StatusPending || len(l.notes("s")) != 0 {
		t.Fatalf("status %q, notes %v: auto-accept acted while off", s.Status(), l.notes("s"))
	}
}

func (l *life) rename(from, to string) {
	must(l.t, os.Rename(filepath.Join(l.root.Path, from), filepath.Join(l.root.Path, to)))
}

// Renaming a reviewed skill's directory keeps its review. Under its new
// name the candidate is pending, told every session, until a person acts.
func TestARenamedReviewedSkillStaysPendingUntilAPersonActs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(l *life) // between the review and the rename
		after  func(l *life) // after the rename
	}{
		{"a plain rename", nil, nil},
		{"a pending change, then a rename", func(l *life) { l.write("s/SKILL.md", "---\nname: s\n---\n"+words(150)) }, nil},
		{"a rename that rewrites every file but keeps the frontmatter name", nil,
			func(l *life) { l.write("t/SKILL.md", "---\nname: s\n---\nall new "+words(3)) }},
		{"a rename of a skill with more files, one of them edited", func(l *life) {
			l.write("s/a.md", "a")
			l.write("s/b.md", "b")
			l.session()
			l.recordSafe("s")
		}, func(l *life) { l.write("t/SKILL.md", "---\nname: other\n---\nedited") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := reviewed(t)
			if tc.before != nil {
				tc.before(l)
				l.session()
			}
			l.rename("s", "t")
			if tc.after != nil {
				tc.after(l)
			}
			for i := range 3 {
				adv := l.session()
				if !strings.Contains(adv.Text, "pending a new review: global skill \"t\"") || !strings.Contains(adv.Text, "renamed from \"s\" id ") {
					t.Fatalf("session %d after the rename:\n%s", i+1, adv.Text)
				}
				if strings.Contains(adv.Text, "removed since the last session") || strings.Contains(adv.Text, "new since the last session") {
					t.Fatalf("a rename told as a removal and a new candidate:\n%s", adv.Text)
				}
			}
			if s := l.standing("t"); s.Status() != baseline.StatusPending {
				t.Fatalf("status %q, want pending", s.Status())
			}
			l.recordSafe("t")
			if adv := l.session(); adv.Text != "" {
				t.Fatalf("told after a person acted:\n%s", adv.Text)
			}
		})
	}
}

func TestARemovalAndAnUnrelatedNewSkillAreNoRename(t *testing.T) {
	for _, tc := range []struct {
		name string
		prep func(l *life)
	}{
		{"other content and name, reviewed", func(l *life) {
			must(l.t, os.RemoveAll(filepath.Join(l.root.Path, "s")))
			l.write("t/SKILL.md", "---\nname: t\n---\n"+words(5))
		}},
		{"same content, never reviewed", func(l *life) {
			l.write("u/SKILL.md", "---\nname: u\n---\n"+words(10))
			l.session()
			must(l.t, os.RemoveAll(filepath.Join(l.root.Path, "s")))
			l.rename("u", "v")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := reviewed(t)
			tc.prep(l)
			adv := l.session()
			if strings.Contains(adv.Text, "renamed") || !strings.Contains(adv.Text, "new since the last session") {
				t.Fatalf("paired as a rename:\n%s", adv.Text)
			}
			if adv := l.session(); adv.Text != "" {
				t.Fatalf("told again:\n%s", adv.Text)
			}
		})
	}
}

// Eight pending reviews told in every session used to fill every listed
// line: new candidates behind them were never named.
func TestPendingReviewsNeverKeepNewCandidatesUnnamed(t *testing.T) {
	l := newLife(t)
	for i := range maxListed {
		l.write(fmt.Sprintf("p%d/SKILL.md", i), "reviewed")
	}
	l.session()
	for i := range maxListed {
		l.recordSafe(fmt.Sprintf("p%d", i))
		l.write(fmt.Sprintf("p%d/SKILL.md", i), "changed")
	}
	for i := range 10 {
		l.write(fmt.Sprintf("n%d/SKILL.md", i), "---\nname: n\n---\nnew")
	}
	c := instrChange(1, "CLAUDE.md")
	must(t, l.update(func(tx *baseline.Tx) error { return tx.Instructions().Put(c) }))

	unnamed := map[string]bool{"instruction": true}
	for i := range 10 {
		unnamed[fmt.Sprintf("n%d", i)] = true
	}
	pendingTold := map[string]int{}
	const sessions = 5
	for range sessions {
		adv := l.session()
		if strings.Contains(adv.Text, "instruction file \"CLAUDE.md\"") {
			delete(unnamed, "instruction")
		}
		for i := range 10 {
			if strings.Contains(adv.Text, fmt.Sprintf("new since the last session: global skill \"n%d\"", i)) {
				delete(unnamed, fmt.Sprintf("n%d", i))
			}
		}
		for i := range maxListed {
			if strings.Contains(adv.Text, fmt.Sprintf("pending a new review: global skill \"p%d\"", i)) {
				pendingTold[fmt.Sprintf("p%d", i)]++
			}
		}
		if strings.Count(adv.Text, "\n- ") > maxListed+maxInstructions {
			t.Fatalf("more than %d lines listed:\n%s", maxListed, adv.Text)
		}
	}
	if len(unnamed) > 0 {
		t.Errorf("never named in %d sessions: %v", sessions, unnamed)
	}
	for i := range maxListed {
		if n := pendingTold[fmt.Sprintf("p%d", i)]; n < 2 {
			t.Errorf("pending p%d told in %d of %d sessions: held-over reviews must come round again", i, n, sessions)
		}
	}
	for i := range maxListed {
		if s := l.standing(fmt.Sprintf("p%d", i)); s.Status() != baseline.StatusPending {
			t.Errorf("p%d is %q: a review held over is still pending", i, s.Status())
		}
	}
}

// A renamed skill's old name is shown as the client spells it (issue 32):
// a folder ".hidden-tools", which the client lists and runs, was "(name
// hidden)" there, since only the display gate judged it.
func TestARenamedDotLeadingSkillIsToldByItsOldName(t *testing.T) {
	for _, tc := range []struct{ from, want string }{
		{".hidden-tools", `renamed from ".hidden-tools" id `},
	} {
		t.Run(tc.from, func(t *testing.T) {
			l := newLife(t)
			l.write(tc.from+"/SKILL.md", "---\nname: s\n---\n"+words(96))
			l.session()
			l.recordSafe(tc.from)
			l.rename(tc.from, "t")
			if adv := l.session(); !strings.Contains(adv.Text, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, adv.Text)
			}
		})
	}
}
