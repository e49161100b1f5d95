package baseline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

func TestTheDeliveredCanonicalFormIsWhatTheNextComparisonTellsAgainst(t *testing.T) {
	st, _ := openNew(t)
	dir := t.TempDir()
	root := claude.Root{Path: dir, Scope: claude.Global, Kind: claude.Config, Names: []string{"settings.json"}}
	observe := func(content string) []Observation {
		must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(content), 0o644))
		w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())
		return []Observation{{Root: root, Walk: &w[0]}}
	}
	first := advance(t, st, observe(`{"env":{"A":"1"},"theme":"x"}`))["settings.json"]
	if first.PriorCanonical != nil {
		t.Fatalf("a new candidate has a prior form %q", first.PriorCanonical)
	}
	got := compare(t, st, observe(`{"env":{"B":"2"}}`))["settings.json"]
	if got.State != Changed || string(got.PriorCanonical) != `{"env":{"A":"1"}}` {
		t.Fatalf("state %s, prior %q", got.State, got.PriorCanonical)
	}
	// Delivered, the new form is the prior of the next comparison.
	advance(t, st, observe(`{"env":{"B":"2"}}`))
	if got := compare(t, st, observe(`{"env":{"C":"3"}}`))["settings.json"]; string(got.PriorCanonical) != `{"env":{"B":"2"}}` {
		t.Fatalf("prior %q after delivery", got.PriorCanonical)
	}
	// Forgotten, nothing is kept.
	must(t, st.Update(func(tx *Tx) error {
		if err := tx.Forget([]string{got.ID}); err != nil {
			return err
		}
		if b := tx.Extract(got.ID); b != nil {
			t.Errorf("forgotten candidate keeps %q", b)
		}
		return nil
	}))
}

func TestARecordOfAnotherRootInTheSameDirectoryIsNeverRemoved(t *testing.T) {
	st, _ := openNew(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{}`), 0o644))
	a := claude.Root{Path: dir, Scope: claude.Global, Kind: claude.Config, Names: []string{"settings.json"}}
	b := claude.Root{Path: dir, Scope: claude.Project, Kind: claude.Config, Names: []string{".mcp.json"}}
	obs := func(r claude.Root) Observation {
		w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())
		return Observation{Root: r, Walk: &w[0]}
	}
	advance(t, st, []Observation{obs(a), obs(b)})
	got := compare(t, st, []Observation{obs(a)})
	if s, ok := got[".mcp.json"]; ok {
		t.Errorf(".mcp.json judged %s by a root that does not hold it", s.State)
	}
}

// TestAReviewedCLAUDEMdKeepsItsLifecycle: a reviewed instruction file or
// output style that changes is pending until a person decides, as a skill
// or an agent is. It was told once, then "seen" with no verdict, and
// silent the next session (issue 32).
func TestAReviewedCLAUDEMdKeepsItsLifecycle(t *testing.T) {
	for _, tc := range []struct {
		root claude.Root
		name string
		want bool // pending
	}{
		{claude.Root{Scope: claude.Project, Kind: claude.Config, Names: []string{"CLAUDE.md"}}, "CLAUDE.md", true},
		{claude.Root{Scope: claude.Project, Kind: claude.Rules}, "style.md", true},
		{claude.Root{Scope: claude.Global, Kind: claude.OutputStyles}, "terse.md", true},
		{claude.Root{Scope: claude.Global, Kind: claude.Agents}, "rev.md", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := openNew(t)
			dir := t.TempDir()
			tc.root.Path = dir
			observe := func(content string) []Observation {
				must(t, os.WriteFile(filepath.Join(dir, tc.name), []byte(content), 0o644))
				w := walker.Scan(context.Background(), []walker.RootSpec{tc.root.Spec()}, walker.DefaultConfig())
				return []Observation{{Root: tc.root, Walk: &w[0]}}
			}
			sts := advance(t, st, observe("one"))
			record(t, st, tc.name, sts, verdict.Safe)
			advance(t, st, observe("two"))
			s := compare(t, st, observe("two"))[tc.name]
			if got := s.Status() == StatusPending; got != tc.want {
				t.Errorf("pending %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAPendingChangeKeepsTheFormThePersonReviewed(t *testing.T) {
	st, _ := openNew(t)
	dir := t.TempDir()
	root := claude.Root{Path: dir, Scope: claude.Global, Kind: claude.Config, Names: []string{"settings.json"}}
	observe := func(content string) []Observation {
		must(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(content), 0o644))
		w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())
		return []Observation{{Root: root, Walk: &w[0]}}
	}
	sts := advance(t, st, observe(`{"env":{"A":"1"}}`))
	record(t, st, "settings.json", sts, verdict.Safe)
	advance(t, st, observe(`{"env":{"B":"1"}}`))
	got := compare(t, st, observe(`{"env":{"C":"1"}}`))["settings.json"]
	if got.Status() != StatusPending || string(got.ReviewedCanonical) != `{"env":{"A":"1"}}` || string(got.PriorCanonical) != `{"env":{"B":"1"}}` {
		t.Errorf("status %s, reviewed %s, prior %s", got.Status(), got.ReviewedCanonical, got.PriorCanonical)
	}
}
