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
// cut by claude.Fact.String; at most maxFacts are told per candidate, and
// the advisory's text budget holds whatever does not fit over.
const maxFacts = 3

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

// factsText is the suffix of st's line: its facts, at most maxFacts, and
// how many more there are.
func factsText(st *baseline.Standing) string {
	fs := facts(st)
	if len(fs) == 0 {
		return ""
	}
	told := make([]string, 0, maxFacts)
	for _, f := range fs[:min(len(fs), maxFacts)] {
		told = append(told, f.String())
	}
	out := ": " + strings.Join(told, "; ")
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
