package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
)

// A configuration candidate is told by its facts ("new SessionStart hook
// runs …"), not as "changed". Facts hold attacker text, quoted, escaped and
// cut by claude.Fact.String; these bounds keep the advisory under the
// hook's cap whatever the files say.
const (
	maxFactsPerCandidate = 3    // the rest are counted
	maxFactChars         = 5000 // over the whole advisory; past it, facts are counted
)

// facts lists what changed in st's configuration since the form last
// delivered, in claude.ConfigFacts order (hooks, helpers, env, MCP servers,
// then permissions and the rest). A candidate told for the first time has
// everything new.
func facts(st *baseline.Standing) []claude.Fact {
	if st.Observed == nil || st.Observed.Canonical == nil {
		return nil
	}
	return claude.ConfigFacts(st.PriorCanonical, st.Observed.Canonical)
}

// factsFirst orders the deltas with facts (a new hook, env or MCP server)
// before every other item, then by category: they are never crowded out
// of the listed items by content changes.
func factsFirst(items []item) {
	rank := func(it item) int {
		if it.delta && len(facts(it.st)) > 0 {
			return -1
		}
		return int(it.cat)
	}
	slices.SortStableFunc(items, func(a, b item) int { return rank(a) - rank(b) })
}

// factBudget spends maxFactChars over one advisory.
type factBudget struct{ left int }

func newFactBudget() *factBudget { return &factBudget{left: maxFactChars} }

// tell is the suffix of st's line: its facts, at most maxFactsPerCandidate
// and within the budget, and how many more there are.
func (fb *factBudget) tell(st *baseline.Standing) string {
	fs := facts(st)
	if len(fs) == 0 {
		return ""
	}
	var told []string
	for _, f := range fs {
		s := f.String()
		if len(told) == maxFactsPerCandidate || len(s) > fb.left {
			break
		}
		fb.left -= len(s)
		told = append(told, s)
	}
	out := ""
	if len(told) > 0 {
		out = ": " + strings.Join(told, "; ")
	}
	if more := len(fs) - len(told); more > 0 {
		out += fmt.Sprintf(" (%d more change(s) of what it runs or allows; see skillwire status)", more)
	}
	return out
}

// KindOf is the kind of the candidate of st (claude.KindOf), from its
// observation when there is one.
func KindOf(st *baseline.Standing) string {
	if st.Observed == nil {
		return claude.CandidateKind(st.Root.Kind, st.Name)
	}
	return claude.KindOf(st.Root.Kind, st.Name, &st.Observed.Manifest)
}
