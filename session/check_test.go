package session

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/reconcile"
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
