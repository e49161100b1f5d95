package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/hookio"
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

func unread(c reconcile.Change) reconcile.Change {
	c.Unread, c.Why = true, reconcile.MismatchSHA256
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
		{"a hash that could not be compared is said, not read as unannounced", []reconcile.Change{unread(change("a", snapshot.Modified, "", "")), change("b", snapshot.Modified, "", "")},
			"2 files modified, 1 not announced in any audit log, 1 not checked against its audit entry (the content it names could not be read): a, b; see skillwire diff swid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summary(&reconcile.Reconciliation{Changes: tc.changes}, "swid")
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func anomalyLabel(p string) string { return anomaly.ShowPath([]byte(p)) }

func TestAdvisoryStaysUnderTheCapAndHoldsTheRestOver(t *testing.T) {
	var sts []baseline.Standing
	rec := map[string]*reconcile.Reconciliation{}
	long := strings.Repeat("d", 60) + "/" + strings.Repeat("e", 60) + "/" + strings.Repeat("f", anomaly.MaxPathShown-124)
	for i := range 8 {
		st := standing(fmt.Sprintf("c%02d", i)+strings.Repeat("n", anomaly.MaxNameLen-3), baseline.Changed)
		sts = append(sts, st)
		var chs []reconcile.Change
		for j := range 5 {
			chs = append(chs, change(fmt.Sprintf("%s%d", long, j), snapshot.Modified, "", ""))
		}
		rec[st.ID] = &reconcile.Reconciliation{Changes: chs}
	}
	adv := build(Input{Standings: sts, Reconciled: rec})
	if len(adv.Text) > hookio.MaxContext-500 {
		t.Fatalf("advisory of %d bytes", len(adv.Text))
	}
	if len(adv.Consume) == 8 || !strings.Contains(adv.Text, "more changed") {
		t.Fatalf("nothing held over: %d consumed\n%s", len(adv.Consume), adv.Text)
	}
}
