package history

import (
	"slices"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

func candidate(name string, partial bool) *walker.Candidate {
	return &walker.Candidate{Name: []byte(name), Manifest: snapshot.Manifest{Partial: partial}}
}

func standing(id string, state baseline.State, partial bool) baseline.Standing {
	s := baseline.Standing{ID: id, State: state}
	if state != baseline.Removed {
		s.Observed = candidate(id, partial)
	}
	return s
}

// kept is each want as "id how", in order, for comparing.
func kept(ws []Want) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.ID+" "+string(w.How))
	}
	return out
}

func TestWantsKeepOnlyNewOrChangedCompleteObservations(t *testing.T) {
	sts := []baseline.Standing{
		standing("new", baseline.New, false),
		standing("changed", baseline.Changed, false),
		standing("unchanged", baseline.Unchanged, false),
		standing("removed", baseline.Removed, false),
		standing("partial", baseline.Changed, true),
		standing("", baseline.New, false),
	}
	for _, tc := range []struct {
		name      string
		bootstrap bool
		how       baseline.How
		want      []string
	}{
		{"as the deliverer", false, baseline.HowSession, []string{"new session", "changed session"}},
		{"new ones on first use", true, baseline.HowDaemon, []string{"new first-use", "changed daemon"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kept(Wants(sts, tc.bootstrap, tc.how)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeliveredKeepsTheConsumedAndTheCompleteAutoAccepted(t *testing.T) {
	consumed := []baseline.Standing{standing("c", baseline.Changed, false), standing("u", baseline.Unchanged, false)}
	whole, partial := standing("a", baseline.Changed, false), standing("p", baseline.Changed, true)
	got := kept(Delivered(consumed, false, []*baseline.Standing{&whole, &partial}))
	if want := []string{"c session", "a auto-accept"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestOnVerdictNeedsACompleteObservationAndABoundVerdict(t *testing.T) {
	d := snapshot.Hash{1}
	for _, tc := range []struct {
		name    string
		partial bool
		digest  *snapshot.Hash
		want    []string
	}{
		{"complete and bound", false, &d, []string{"id verdict"}},
		{"partial observation", true, &d, nil},
		{"verdict bound to no digest", false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := OnVerdict("id", candidate("x", tc.partial), baseline.Verdict{Verdict: "safe", Digest: tc.digest, Reviewer: "r"})
			if got := kept(ws); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if len(ws) == 1 && (ws[0].Verdict != "safe" || ws[0].Reviewer != "r") {
				t.Fatalf("the verdict is not carried: %+v", ws[0])
			}
		})
	}
}

func TestObservedKeepsChangedAppearedOrFreshCompleteCandidates(t *testing.T) {
	root := func(path string, cs ...*walker.Candidate) *walker.Root {
		r := &walker.Root{Spec: walker.RootSpec{Path: path}}
		for _, c := range cs {
			r.Candidates = append(r.Candidates, *c)
		}
		return r
	}
	d := snapshot.Hash{1}
	roots := []*walker.Root{
		root("/old", candidate("changed", false), candidate("gone", false), candidate("quiet", false), candidate("cut", true)),
		root("/fresh", candidate("any", false), candidate("cut", true)),
	}
	events := []cache.Event{
		{Root: []byte("/old"), Name: []byte("changed"), After: &d},
		{Root: []byte("/old"), Name: []byte("gone"), Before: &d},
		{Root: []byte("/old"), Name: []byte("cut"), After: &d},
	}
	id := func(root string, name []byte) string { return root + ":" + string(name) }
	got := kept(Observed(roots, map[string]bool{"/fresh": true}, events, id))
	if want := []string{"/old:changed daemon", "/fresh:any daemon"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
