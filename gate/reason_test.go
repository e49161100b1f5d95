package gate

import (
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/resolve"
)

const testID = "swbybm4kq2rx7a3c"

func TestReason(t *testing.T) {
	day := time.Date(2026, 11, 12, 23, 0, 0, 0, time.UTC)
	pdf := cand(testID, resolve.Skill, resolve.User, "pdf", "", "")
	for _, tc := range []struct {
		name string
		f    Finding
		want string
	}{
		{"changed since SAFE", Finding{Candidate: pdf, State: Pending,
			Change: Change{Modified: 1, Since: SinceSafe, On: day}},
			`skill "pdf" (swbybm4kq2rx7a3c) changed since it was reviewed SAFE on 2026-11-12: 1 file modified, not announced; see 'skillwire diff swbybm4kq2rx7a3c'`},
		{"changed since told, announced", Finding{Candidate: pdf, State: Pending,
			Change: Change{Added: 2, Removed: 1, Announced: true, Since: SinceTold}},
			`skill "pdf" (swbybm4kq2rx7a3c) changed since skillwire first told of it: 2 files added, 1 file removed, announced; see 'skillwire diff swbybm4kq2rx7a3c'`},
		{"new", Finding{Candidate: pdf, State: New},
			`skill "pdf" (swbybm4kq2rx7a3c) is new since the last session and was never reviewed; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"familiar", Finding{Candidate: pdf, State: Familiar, Change: Change{On: day}},
			`skill "pdf" (swbybm4kq2rx7a3c) was never reviewed; it is unchanged since skillwire first told of it on 2026-11-12; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"pending", Finding{Candidate: pdf, State: Pending},
			`skill "pdf" (swbybm4kq2rx7a3c) is waiting for a review; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"anomalous names the anomaly", Finding{Candidate: pdf, State: Anomalous, Anomaly: anomaly.Symlink},
			`skill "pdf" (swbybm4kq2rx7a3c) has an anomaly (symlink), so it cannot be judged; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"partial", Finding{Candidate: pdf, State: Anomalous, Partial: true, Change: Change{Modified: 3}},
			`skill "pdf" (swbybm4kq2rx7a3c) could only be partly read, so it cannot be judged; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"suspect", Finding{Candidate: pdf, State: Suspect, Reviewed: day},
			`skill "pdf" (swbybm4kq2rx7a3c) was reviewed SUSPECT on 2026-11-12; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"block outweighs a change", Finding{Candidate: pdf, State: Blocked, Reviewed: day, Change: Change{Modified: 1}},
			`skill "pdf" (swbybm4kq2rx7a3c) was reviewed BLOCK on 2026-11-12; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"an invalid state reads as anomalous", Finding{Candidate: pdf, State: 0, Change: Change{Modified: 1}},
			`skill "pdf" (swbybm4kq2rx7a3c) is anomalous, so it cannot be judged; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"a plugin skill by its namespaced name", Finding{Candidate: cand(testID, resolve.Skill, resolve.Plugin, "x", "pdf", "docs"), State: New},
			`skill "docs:pdf" (swbybm4kq2rx7a3c) is new since the last session and was never reviewed; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"an agent by frontmatter name", Finding{Candidate: cand(testID, resolve.Agent, resolve.Project, "rev", "reviewer", ""), State: New},
			`agent "reviewer" (swbybm4kq2rx7a3c) is new since the last session and was never reviewed; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"an ungated name is shown by id only", Finding{Candidate: cand(testID, resolve.Command, resolve.Project, "de\x1b[2Jploy", "", ""), State: New},
			`command swbybm4kq2rx7a3c is new since the last session and was never reviewed; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"an ungated plugin hides the name", Finding{Candidate: cand(testID, resolve.Skill, resolve.Plugin, "pdf", "", "../evil"), State: New},
			`skill swbybm4kq2rx7a3c is new since the last session and was never reviewed; see 'skillwire history swbybm4kq2rx7a3c'`},
		{"an unknown plugin skill by its namespaced name", Finding{Candidate: resolve.Candidate{Kind: resolve.Skill, Folder: []byte("pd:ps")}, State: New, Unknown: true},
			`the skill "pd:ps" is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed`},
		{"an unknown namespaced name with an ungated part", Finding{Candidate: resolve.Candidate{Kind: resolve.Skill, Folder: []byte("pd:p\x1b[2Js")}, State: New, Unknown: true},
			`the skill a name that cannot be shown is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed`},
		{"an unknown dot-leading name as the client spells it", Finding{Candidate: resolve.Candidate{Kind: resolve.Skill, Folder: []byte(".hidden-tools")}, State: New, Unknown: true},
			`the skill ".hidden-tools" is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed`},
		{"an unknown name spelled as the client's file stays hidden", Finding{Candidate: resolve.Candidate{Kind: resolve.Skill, Folder: []byte(".mcp.json")}, State: New, Unknown: true},
			`the skill a name that cannot be shown is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed`},
		{"an unknown name of two colons", Finding{Candidate: resolve.Candidate{Kind: resolve.Skill, Folder: []byte("a:b:c")}, State: New, Unknown: true},
			`the skill a name that cannot be shown is none that skillwire has observed nor one of Claude Code's own, so what it loads cannot be judged: it is new and never reviewed`},
		{"a bad id is never printed", Finding{Candidate: cand("sw$(rm -rf)", resolve.Skill, resolve.User, "pdf", "", ""), State: New},
			`skill "pdf" (unknown id) is new since the last session and was never reviewed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reason(tc.f); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestJudgeTakesTheWorstMatch(t *testing.T) {
	safe := Finding{Candidate: cand(testID, resolve.Skill, resolve.User, "pdf", "", ""), State: Vetted}
	bad := Finding{Candidate: cand("swaaaaaaaaaaaaaa", resolve.Skill, resolve.User, "x", "pdf", ""), State: Suspect}
	newer := Finding{Candidate: cand("swbbbbbbbbbbbbbb", resolve.Skill, resolve.User, "y", "pdf", ""), State: New}
	for _, tc := range []struct {
		name     string
		p        Policy
		fs       []Finding
		want     Answer
		reasonOf string
	}{
		{"no match answers nothing", Strict, nil, None, ""},
		{"one vetted match answers nothing", Strict, []Finding{safe}, None, ""},
		{"a suspect among vetted asks under balanced", Balanced, []Finding{safe, bad}, Ask, "swaaaaaaaaaaaaaa"},
		{"a suspect among vetted denies under strict", Strict, []Finding{safe, newer, bad}, Deny, "swaaaaaaaaaaaaaa"},
		{"the first worst match gives the reason", Balanced, []Finding{newer, bad}, Ask, "swbbbbbbbbbbbbbb"},
		{"audit answers nothing whatever matches", Audit, []Finding{bad, newer}, None, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, r := Judge(tc.p, tc.fs)
			if a != tc.want || !strings.Contains(r, tc.reasonOf) || (tc.reasonOf == "") != (r == "") {
				t.Fatalf("got %s %q", a, r)
			}
			if len(tc.fs) > 1 && r != "" && !strings.Contains(r, "candidates answer to this name") {
				t.Fatalf("ambiguity not said: %q", r)
			}
		})
	}
}

func TestReasonIsPrintableASCII(t *testing.T) {
	for s := State(0); s <= Blocked+1; s++ {
		f := Finding{Candidate: cand(testID, resolve.Skill, resolve.Plugin, "p\u202edf", "\x00", "d\xffocs"), State: s,
			Anomaly: anomaly.Reason(200), Change: Change{Modified: -1, Added: 1}}
		for _, c := range []byte(Reason(f)) {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("state %d: byte %#x in %q", s, c, Reason(f))
			}
		}
	}
}
