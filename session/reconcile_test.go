package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/reconcile"
	"github.com/skillwire/skillwire/snapshot"
)

// change is one reconciled file change: class "" is unexpected.
func change(path string, t snapshot.ChangeType, class reconcile.Class, source string) reconcile.Change {
	c := reconcile.Change{Candidate: "swid", Change: snapshot.Change{Path: []byte(path), Type: t,
		New: &snapshot.Entry{Kind: snapshot.File}, Old: &snapshot.Entry{Kind: snapshot.File}}}
	if class != "" {
		c.Expected, c.Class = true, class
		c.Entry = &auditlog.Entry{Source: source}
	}
	return c
}

func TestSummarySaysWhoAnnouncedTheChanges(t *testing.T) {
	const exp, proj = reconcile.ClassExpected, reconcile.ClassAnnouncedByProject
	many := func(n int) []reconcile.Change {
		var out []reconcile.Change
		for i := range n {
			out = append(out, change(fmt.Sprintf("f%d.md", i), snapshot.Modified, "", ""))
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		changes []reconcile.Change
		want    string
	}{
		{"nobody announced two modifications", []reconcile.Change{change("SKILL.md", snapshot.Modified, "", ""), change("x.sh", snapshot.Modified, "", "")},
			"2 files modified, not announced in any audit log: SKILL.md, x.sh; see skillwire diff swid"},
		{"a trusted tool announced it", []reconcile.Change{change("SKILL.md", snapshot.Modified, exp, "skill-creator")},
			"1 file modified, announced by skill-creator: SKILL.md; see skillwire diff swid"},
		{"only the project's log announced it", []reconcile.Change{change("SKILL.md", snapshot.Modified, proj, "x")},
			"1 file modified, announced only in the project's own audit log (which proves nothing): SKILL.md; see skillwire diff swid"},
		{"mixed classes are counted", []reconcile.Change{change("a", snapshot.Modified, exp, "s"), change("b", snapshot.Added, "", "")},
			"1 file modified, 1 added, 1 announced by s, 1 not announced in any audit log: a, b; see skillwire diff swid"},
		{"at most five files are named", many(7),
			"7 files modified, not announced in any audit log: f0.md, f1.md, f2.md, f3.md, f4.md and 2 more; see skillwire diff swid"},
		{"a hostile path is shown by its label", []reconcile.Change{change("a/\x1b[2J\u202e.md", snapshot.Added, "", "")},
			"1 file added, not announced in any audit log: " + anomalyLabel("a/\x1b[2J\u202e.md") + "; see skillwire diff swid"},
		{"a hostile source is never named", []reconcile.Change{change("a", snapshot.Modified, exp, "evil\x1b]0;x\a")},
			"1 file modified, announced by a source whose name is hidden: a; see skillwire diff swid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Reconciliation{Changes: tc.changes}).Summary("swid")
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func anomalyLabel(p string) string { return DisplayPath([]byte(p)) }

func TestDisplayPathNeverShowsHostileBytes(t *testing.T) {
	for _, p := range []string{"a/\x1b[31m", "\u202eevil", "a/../b", strings.Repeat("a/", 200) + "b", "a b"} {
		got := DisplayPath([]byte(p))
		if strings.Contains(got, p) || !strings.HasPrefix(got, "depth") {
			t.Errorf("DisplayPath(%q) = %q, want a label", p, got)
		}
	}
	if got := DisplayPath([]byte("scripts/run.sh")); got != "scripts/run.sh" {
		t.Errorf("a plain path is shown as %q", got)
	}
}

func TestFilesFollowTheJSONContract(t *testing.T) {
	r := Reconciliation{Changes: []reconcile.Change{change("SKILL.md", snapshot.Modified, reconcile.ClassExpected, "skill-creator"),
		change("x", snapshot.Added, "", ""), change("y", snapshot.Removed, reconcile.ClassAnnouncedByProject, "p")}}
	got := r.Files()
	want := []baseline.FileChange{{Path: "SKILL.md", Change: "modified", Class: "expected"}, {Path: "x", Change: "added", Class: "unexpected"},
		{Path: "y", Change: "removed", Class: "announced-by-project"}}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Change != want[i].Change || got[i].Class != want[i].Class {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[0].Source == nil || *got[0].Source != "skill-creator" || got[1].Source != nil {
		t.Errorf("sources: %v %v", got[0].Source, got[1].Source)
	}
}

func TestAdvisoryStaysUnderTheCapAndHoldsTheRestOver(t *testing.T) {
	var sts []baseline.Standing
	rec := map[string]*Reconciliation{}
	long := strings.Repeat("d", 60) + "/" + strings.Repeat("e", 60) + "/" + strings.Repeat("f", maxPathShown-124)
	for i := range 8 {
		st := standing(fmt.Sprintf("c%02d", i)+strings.Repeat("n", anomaly.MaxNameLen-3), baseline.Changed)
		sts = append(sts, st)
		var chs []reconcile.Change
		for j := range 5 {
			chs = append(chs, change(fmt.Sprintf("%s%d", long, j), snapshot.Modified, "", ""))
		}
		rec[st.ID] = &Reconciliation{Changes: chs}
	}
	adv := Build(Input{Standings: sts, Reconciled: rec})
	if len(adv.Text) > claude.MaxContext-500 {
		t.Fatalf("advisory of %d bytes", len(adv.Text))
	}
	if len(adv.Consume) == 8 || !strings.Contains(adv.Text, "more changed") {
		t.Fatalf("nothing held over: %d consumed\n%s", len(adv.Consume), adv.Text)
	}
}
