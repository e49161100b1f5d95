package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

var skills = claude.Root{Path: "/cfg/skills", Scope: claude.Global, Kind: claude.Skills}

// standing is a candidate named name in state s. anomalous adds a symlink
// entry; partial cuts it short.
func standing(name string, s baseline.State, mods ...func(*baseline.Standing)) baseline.Standing {
	st := baseline.Standing{ID: "sw" + strings.Repeat("a", 4) + name, Root: skills, Name: []byte(name), State: s}
	if s != baseline.Removed {
		st.Observed = &walker.Candidate{Name: []byte(name), Digest: snapshot.Hash{byte(len(name))},
			Manifest: snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.Dir, Mode: 0o755}}}}
	}
	for _, m := range mods {
		m(&st)
	}
	return st
}

func anomalous(st *baseline.Standing) {
	st.Observed.Manifest.Entries = append(st.Observed.Manifest.Entries, snapshot.Entry{Path: []byte("l"), Kind: snapshot.Symlink, Target: []byte("/etc")})
}

func partial(st *baseline.Standing) { st.Observed.Manifest.Partial = true }

func adverse(st *baseline.Standing) { st.Verdict = &baseline.Verdict{Verdict: verdict.Block} }

func names(sts []baseline.Standing) []string {
	var out []string
	for _, s := range sts {
		out = append(out, string(s.Name))
	}
	return out
}

func lines(a Advisory) []string { return strings.Split(a.Text, "\n") }

const footer = "These are observations by skillwire, a file integrity tripwire; text in double quotes is the files' own, escaped, and never skillwire's. Details: skillwire status"

func TestAdvisoryNamesAtMostEightAndHoldsTheRestOver(t *testing.T) {
	var sts []baseline.Standing
	for i := range 11 {
		sts = append(sts, standing(fmt.Sprintf("c%02d", i), baseline.Changed))
	}
	sts = append(sts, standing("n", baseline.New))
	adv := build(Input{Standings: sts})
	got := lines(adv)
	if len(got) != 8+2 {
		t.Fatalf("want 8 named lines, the count and the footer; got %q", got)
	}
	if want := "Not listed here: 3 more changed, 1 more new."; got[8] != want {
		t.Fatalf("count line %q, want %q", got[8], want)
	}
	if c := names(adv.Consume); len(c) != 8 || c[0] != "c00" || c[7] != "c07" {
		t.Fatalf("consumed %v: only the named deltas may be consumed", c)
	}
	// The next session, with the named ones consumed, names the held ones.
	adv = build(Input{Standings: sts[8:]})
	if c := names(adv.Consume); strings.Join(c, " ") != "c08 c09 c10 n" {
		t.Fatalf("held-over deltas not told next: %v", c)
	}
}

// A person's adverse verdict is listed first (issue 21, finding 9), then
// real changes before recurring findings.
func TestAdvisoryListsAdverseVerdictsFirstAndRealChangesBeforeRecurringFindings(t *testing.T) {
	sts := []baseline.Standing{
		standing("anom", baseline.Unchanged, anomalous),
		standing("bad", baseline.Unchanged, adverse),
		standing("rest", baseline.Unchanged),
		standing("gone", baseline.Removed),
		standing("new", baseline.New),
		standing("chg", baseline.Changed),
	}
	at := time.Date(2026, 11, 12, 10, 0, 0, 0, time.FixedZone("x", 3600))
	adv := build(Input{Standings: sts, Events: []cache.Event{{ID: sts[2].ID, At: at}}})
	want := []string{
		`- under an adverse verdict: global skill "bad" id swaaaabad, verdict BLOCK`,
		`- changed since the last session: global skill "chg" id swaaaachg`,
		`- new since the last session: global skill "new" id swaaaanew`,
		`- removed since the last session: global skill "gone" id swaaaagone`,
		`- modified since the last session and since restored: global skill "rest" id swaaaarest, first modified at 2026-11-12T09:00:00Z`,
		`- not fully observable (symlink): global skill "anom" id swaaaaanom`,
		footer,
	}
	if got := lines(adv); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", adv.Text, strings.Join(want, "\n"))
	}
	if c := names(adv.Consume); strings.Join(c, " ") != "chg new gone" {
		t.Fatalf("consumed %v: only deltas are consumed", c)
	}
	if len(adv.Events) != 1 || adv.Events[0].ID != sts[2].ID {
		t.Fatalf("the told restoration's events are not dropped: %+v", adv.Events)
	}
}

func TestAnomaliesNeverCrowdOutAChange(t *testing.T) {
	var sts []baseline.Standing
	for i := range 9 {
		sts = append(sts, standing(fmt.Sprintf("a%d", i), baseline.Unchanged, anomalous))
	}
	sts = append(sts, standing("chg", baseline.Changed))
	adv := build(Input{Standings: sts})
	if got := lines(adv); !strings.HasPrefix(got[0], "- changed since the last session") || got[8] != "Not listed here: 2 more not fully observable." {
		t.Fatalf("got %q", got)
	}
	if c := names(adv.Consume); len(c) != 1 || c[0] != "chg" {
		t.Fatalf("consumed %v", c)
	}
}

func TestHeldOverEventsAreNotDropped(t *testing.T) {
	var sts []baseline.Standing
	var evs []cache.Event
	for i := range 9 {
		sts = append(sts, standing(fmt.Sprintf("r%d", i), baseline.Unchanged))
		evs = append(evs, cache.Event{ID: sts[i].ID, At: time.Unix(int64(i), 0)})
	}
	adv := build(Input{Standings: sts, Events: evs})
	if len(adv.Events) != 8 || adv.Events[7].ID != sts[7].ID {
		t.Fatalf("events of untold candidates would be dropped: %d", len(adv.Events))
	}
}

func TestFirstRunAcceptsEveryFullyObservedCandidateAndSaysSo(t *testing.T) {
	sts := []baseline.Standing{
		standing("a", baseline.New), standing("b", baseline.New),
		standing("p", baseline.New, partial),
		standing("x", baseline.New, anomalous),
	}
	adv := build(Input{Standings: sts, Bootstrap: true})
	got := lines(adv)
	if got[0] != "skillwire first run: accepted 3 skills as the baseline on first use, without review." {
		t.Fatalf("first line %q", got[0])
	}
	if c := names(adv.Consume); strings.Join(c, " ") != "a b x" {
		t.Fatalf("accepted %v: a partial candidate has no digest to accept", c)
	}
	for _, l := range got {
		if strings.HasPrefix(l, "- new since") {
			t.Fatalf("a first run lists its candidates as new: %q", l)
		}
	}
	if !strings.Contains(adv.Text, `- not fully observable (budget): global skill "p"`) || !strings.Contains(adv.Text, `- not fully observable (symlink): global skill "x"`) {
		t.Fatalf("what is not fully observable is still told on a first run:\n%s", adv.Text)
	}
}

// A first run says what it accepted kind by kind (issue #23). The advisory
// and the person's line both say it. A settings file or an MCP
// configuration accepted unseen is not "a skill".
func TestFirstRunCountsWhatItAcceptedByKind(t *testing.T) {
	agents := claude.Root{Path: "/cfg/agents", Scope: claude.Global, Kind: claude.Agents}
	var sts []baseline.Standing
	add := func(n int, root claude.Root, names ...string) {
		for i := range n {
			name := fmt.Sprintf("c%d", len(sts))
			if i < len(names) {
				name = names[i]
			}
			st := standing(name, baseline.New)
			st.Root = root
			sts = append(sts, st)
		}
	}
	add(12, skills)
	add(3, agents)
	add(2, userConfig, "settings.json", "settings.local.json")
	add(1, userConfig, ".mcp.json")
	add(1, userConfig, "CLAUDE.md")
	add(1, claude.Root{Path: "/cfg", Scope: claude.Global, Kind: claude.Config}, "unheard-of.json")
	partialSkill := standing("p", baseline.New, partial)
	sts = append(sts, partialSkill)
	adv := build(Input{Standings: sts, Bootstrap: true})
	kinds := "accepted 12 skills, 3 agents, 2 settings files, 1 MCP configuration, 1 instruction file, 1 other candidate as the baseline"
	if got := lines(adv)[0]; got != "skillwire first run: "+kinds+" on first use, without review." {
		t.Errorf("advisory %q", got)
	}
	if want := "skillwire: first run, " + kinds + " without review"; !strings.HasPrefix(adv.Notice, want) {
		t.Errorf("notice %q, want %q", adv.Notice, want)
	}
	// Control: a first run that accepted nothing says so, not "0 skills".
	adv = build(Input{Standings: []baseline.Standing{partialSkill}, Bootstrap: true})
	if got := lines(adv)[0]; got != "skillwire first run: accepted nothing as the baseline on first use, without review." {
		t.Errorf("empty first run %q", got)
	}
}

func TestWithoutAStoreNothingIsAChangeOrConsumed(t *testing.T) {
	obs := []baseline.Observation{{Root: skills, Walk: &walker.Root{Anomalies: []anomaly.Reason{anomaly.Unreadable}}}}
	sts := []baseline.Standing{standing("a", baseline.New), standing("b", baseline.Changed, adverse)}
	adv := build(Input{Obs: obs, Standings: sts, StoreProblem: storeProblem(baseline.ErrCorrupt)})
	want := []string{
		"skillwire could not compare with its store (it is corrupt; run skillwire status): what changed since the last session is unknown.",
		"The global skills directory could not be listed (unreadable).",
		`- under an adverse verdict: global skill "b" id swaaaab, verdict BLOCK`,
		footer,
	}
	if adv.Text != strings.Join(want, "\n") {
		t.Fatalf("got\n%s", adv.Text)
	}
	if len(adv.Consume) != 0 {
		t.Fatalf("consumed %v without a store", names(adv.Consume))
	}
}

func TestNothingToSayIsSilence(t *testing.T) {
	adv := build(Input{Standings: []baseline.Standing{standing("a", baseline.Unchanged), standing("b", baseline.Unchanged)}})
	if adv.Text != "" || adv.Consume != nil || adv.Events != nil {
		t.Fatalf("got %+v", adv)
	}
}

func TestAHiddenNameNeverReachesTheSession(t *testing.T) {
	st := standing("evil\x1b]0;\u202ename", baseline.Changed)
	st.ID = "swaaaaaaaa"
	adv := build(Input{Standings: []baseline.Standing{st}})
	if !strings.Contains(adv.Text, "global skill (name hidden) id swaaaaaaaa, not fully observable: badname") || strings.ContainsAny(adv.Text, "\x1b\u202e") {
		t.Fatalf("got %q", adv.Text)
	}
}

func TestStoreProblemSaysWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("open: %w", baseline.ErrBusy), "busy: another skillwire process held it, so this session was not compared"},
		{fmt.Errorf("open: %w", baseline.ErrAbsent), "it could not be created"},
		{baseline.ErrUntrusted, "it is untrusted; run skillwire status"},
		{baseline.ErrStale, "it is stale; run skillwire status"},
		{errors.New("i/o"), "it is corrupt; run skillwire status"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := storeProblem(tc.err); got != tc.want {
				t.Fatalf("got %q", got)
			}
		})
	}
}

func TestPendingReviewsToldBeforeYieldLinesUpToHalf(t *testing.T) {
	toldTwice := func(st *baseline.Standing) {
		st.Prior = &baseline.Record{Kind: st.Root.Kind, Name: st.Name, Told: 2, Review: &baseline.Verdict{Verdict: verdict.Safe, Digest: &snapshot.Hash{0xee}}}
	}
	for _, tc := range []struct {
		news int
		want string
	}{
		{1, "Not listed here: 1 more pending review."},
		{6, "Not listed here: 4 more pending review, 2 more new."},
	} {
		t.Run(fmt.Sprintf("%d new", tc.news), func(t *testing.T) {
			var sts []baseline.Standing
			for i := range maxListed {
				sts = append(sts, standing(fmt.Sprintf("p%d", i), baseline.Unchanged, toldTwice))
			}
			for i := range tc.news {
				sts = append(sts, standing(fmt.Sprintf("n%d", i), baseline.New))
			}
			adv := build(Input{Standings: sts})
			if got := lines(adv); got[maxListed] != tc.want {
				t.Fatalf("count line %q, want %q\n%s", got[maxListed], tc.want, adv.Text)
			}
			if len(adv.Told)+len(adv.Consume) != maxListed || len(adv.Consume) != min(tc.news, maxListed/2) {
				t.Fatalf("told %v, consumed %v", adv.Told, names(adv.Consume))
			}
		})
	}
}

// However many new candidates arrive, a BLOCK is never crowded out of the
// advisory. It is named, and the new ones are counted.
func TestABlockIsNeverCrowdedOutByNewCandidates(t *testing.T) {
	var sts []baseline.Standing
	for i := range 12 {
		sts = append(sts, standing(fmt.Sprintf("n%02d", i), baseline.New))
	}
	sts = append(sts, standing("bad", baseline.Unchanged, adverse), standing("badchg", baseline.Changed, adverse))
	got := lines(build(Input{Standings: sts}))
	if len(got) < 2 || !strings.Contains(got[0], `"bad"`) && !strings.Contains(got[0], `"badchg"`) {
		t.Fatalf("the first line is not a BLOCK: %q", got)
	}
	text := strings.Join(got, "\n")
	for _, n := range []string{`"bad" id`, `"badchg" id`} {
		if !strings.Contains(text, n) {
			t.Errorf("BLOCKed %s not named:\n%s", n, text)
		}
	}
}
