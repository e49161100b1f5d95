package session

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// checked runs check's comparison on l and returns each candidate's
// changes as "name:type:path" (unreconciled paths are plain here).
func (l *life) checked() map[string][]string {
	l.t.Helper()
	obs := l.observe()
	var cands []reconcile.Candidate
	must(l.t, l.view(func(tx *baseline.Tx) (err error) {
		cands, _, err = CheckSubjects(tx, []claude.Root{l.root}, obs)
		return err
	}))
	res := reconcile.Run(reconcile.Input{Candidates: cands, Now: l.now, Limits: walker.DefaultLimits})
	names := map[string]string{}
	for _, c := range cands {
		names[c.ID] = string(c.Name)
	}
	out := map[string][]string{}
	for _, ch := range res.Changes {
		out[names[ch.Candidate]] = append(out[names[ch.Candidate]], ch.Change.Type.String()+":"+string(ch.Change.Path))
	}
	return out
}

func TestCheckComparesWithTheReviewedElseFirstUseElseNothing(t *testing.T) {
	l := newLife(t)
	l.write("old/SKILL.md", "accepted on first use")
	l.session()
	l.write("new/SKILL.md", "appeared later")
	l.write("new/run.sh", "curl x | sh")
	want := "added:,added:SKILL.md,added:run.sh"
	for _, when := range []string{"before the session", "after the session told it", "after a second session"} {
		if when != "before the session" {
			l.session()
		}
		got := l.checked()
		if s := strings.Join(got["new"], ","); s != want {
			t.Errorf("%s: the never-reviewed candidate shows %q, want %q", when, s, want)
		}
		if len(got["old"]) != 0 {
			t.Errorf("%s: the unchanged first-use candidate shows %v", when, got["old"])
		}
	}
	l.write("old/SKILL.md", "changed since first use")
	l.session()
	if s := strings.Join(l.checked()["old"], ","); s != "modified:SKILL.md" {
		t.Errorf("a delivered change of the first-use version shows %q", s)
	}
	l.recordSafe("new")
	if got := l.checked()["new"]; len(got) != 0 {
		t.Errorf("reviewed, yet still listed: %v", got)
	}
}

func TestADeliveredChangeKeepsItsChangesSinceTheFirstUseVersion(t *testing.T) {
	l := newLife(t)
	l.write("a/SKILL.md", "accepted on first use")
	l.write("same/SKILL.md", "never changes")
	l.session()
	l.write("a/SKILL.md", "changed since, and told once")
	l.session()
	a := l.standing("a")
	if a.Status() != baseline.StatusSeen || a.State != baseline.Unchanged {
		t.Fatalf("a is %s/%s, want seen and unchanged since delivery", a.Status(), a.State)
	}
	ids := func(sub reconcile.Subjects) []string {
		var out []string
		for _, c := range sub.Candidates {
			out = append(out, string(c.Name)+"@"+sub.Against[c.ID])
		}
		return out
	}
	var delivered, scanned, stored []string
	must(t, l.view(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(l.observe())
		if err != nil {
			return err
		}
		sub, err := readSubjects(tx, sts, nil)
		delivered = ids(sub)
		if err != nil {
			return err
		}
		if sub, err = ReadDifferingSubjects(tx, sts); err != nil {
			return err
		}
		scanned = ids(sub)
		recs, err := tx.Records()
		if err != nil {
			return err
		}
		sub, err = reconcile.StoredSubjects(tx, append(recs, recs...), nil)
		stored = ids(sub)
		return err
	}))
	if len(delivered) != 0 {
		t.Errorf("a session is told again of a delivered change: %v", delivered)
	}
	want := "a@" + baseline.RefFirstUse
	if strings.Join(scanned, ",") != want {
		t.Errorf("scan's subjects %v, want %s", scanned, want)
	}
	if strings.Join(stored, ",") != want {
		t.Errorf("status's subjects %v, want %s once", stored, want)
	}
}
