package session

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
)

// A configuration candidate is told by its facts ("new SessionStart hook
// runs …"), not as "changed". Facts hold attacker text, quoted, escaped and
// cut by config.Fact.String. Every dangerous fact is told
// (config.Fact.Dangerous) while the item's budget holds. Other facts fill
// up to maxFacts. The rest are counted per kind, never dropped unsaid.
const maxFacts = 3

// itemReserve is what an item's line keeps free for its other parts (the
// pending note, the reconciliation summary) when its facts are sized.
const itemReserve = 1200

// facts lists what changed in st's configuration since the form last
// delivered, in config.Facts order (hooks, helpers, env, MCP servers,
// then permissions and the rest). A candidate told for the first time has
// everything new.
func facts(st *baseline.Standing) []config.Fact {
	if st.Observed == nil || st.Observed.Canonical == nil {
		return nil
	}
	return config.Facts(st.PriorCanonical, st.Observed.Canonical)
}

// replacedOf is, for a plugin version told as new, the version it
// replaces (Input.Replaces), else nil: its facts are told against that
// version's form.
func replacedOf(in Input, st *baseline.Standing) *Replaced {
	if r := in.Replaces[st.ID]; r != nil && (st.State == baseline.New || isPending(st)) {
		return r
	}
	return nil
}

// factsFirst orders the items by category (pending before changed before
// new), and within one those with dangerous facts before those with other
// facts, before the rest. A mod's change comes before all of them. Only a dangerous fact lifts a delta above its
// category: a harmless one (a frontmatter name) never outranks a pending
// review. Pending reviews told before go least told first.
func factsFirst(in Input, items []item) {
	rank := func(it item) int {
		if !it.delta && it.cat != catPending {
			return 3 * int(it.cat)
		}
		fs := toldFacts(in, it.st, it.cat == catPending)
		switch {
		case len(fs) > 0 && fs[0].Kind == config.FactHooksModule: // a mod: before every other item
			return 3 * (int(it.cat) - 2*int(numCategories))
		case len(fs) > 0 && fs[0].Dangerous(): // toldFacts puts dangerous facts first
			if it.delta {
				return 3 * (int(it.cat) - int(numCategories))
			}
			return 3 * int(it.cat)
		case len(fs) > 0:
			return 3*int(it.cat) + 1
		}
		return 3*int(it.cat) + 2
	}
	// Among pending reviews told before, the least told go first: those
	// held over by limit are told in the next sessions.
	told := func(it item) int {
		if toldBefore(it) {
			return it.st.Prior.Told
		}
		return 0
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Or(rank(a)-rank(b), told(a)-told(b)) })
}

// factsText is the suffix of st's line: the version a plugin version
// replaces (its files that differ are named by the reconciliation's
// summary, measured against that version), then its facts within budget
// bytes (every dangerous one that fits, others up to maxFacts), and the
// rest counted per kind. A pending change is told against
// the reviewed form, in every session until a person decides.
func factsText(in Input, st *baseline.Standing, pending bool, budget int) string {
	fs := toldFacts(in, st, pending)
	var parts []string
	if r := replacedOf(in, st); r != nil {
		parts = append(parts, r.versionText())
	}
	size := 0
	for _, p := range parts {
		size += len(p) + 2
	}
	var untold, dangerUntold []config.Fact
	for _, f := range fs {
		t := f.String()
		switch {
		case f.Dangerous() && size+len(t)+2 <= budget:
		case f.Dangerous():
			dangerUntold = append(dangerUntold, f)
			continue
		case len(parts) >= maxFacts || size+len(t)+2 > budget:
			untold = append(untold, f)
			continue
		}
		parts = append(parts, t)
		size += len(t) + 2
	}
	if len(parts) == 0 && len(dangerUntold) == 0 && len(untold) == 0 {
		return ""
	}
	out := ": " + strings.Join(parts, "; ")
	if len(dangerUntold) > 0 {
		out += fmt.Sprintf(" (and %d more that run code or ask less, over the advisory's size: %s; see skillwire status)", len(dangerUntold), config.CountFacts(dangerUntold))
	}
	if len(untold) > 0 {
		out += " (also " + config.CountFacts(untold) + "; see skillwire status)"
	}
	return out
}

// toldFacts are the facts st's line tells, dangerous ones first: against
// the reviewed form while pending, against the version a new plugin version
// replaces, else against the form last delivered; then its standing facts.
func toldFacts(in Input, st *baseline.Standing, pending bool) []config.Fact {
	fs := facts(st)
	if pending && st.ReviewedCanonical != nil && st.Observed != nil && st.Observed.Canonical != nil {
		fs = config.Facts(st.ReviewedCanonical, st.Observed.Canonical)
	}
	if st.Observed == nil || st.Observed.Canonical == nil {
		return fs
	}
	if r := replacedOf(in, st); r != nil && st.State == baseline.New {
		fs = config.Facts(r.Canonical, st.Observed.Canonical)
	}
	fs = append(fs, st.Root.StandingFacts(st.Name, st.Observed.Canonical)...)
	slices.SortStableFunc(fs, func(a, b config.Fact) int { return a.Rank() - b.Rank() })
	return fs
}

// KindOf is the kind of the candidate of st (claude.KindOf), from its
// observation when there is one.
func KindOf(st *baseline.Standing) string {
	if st.Observed == nil {
		return claude.CandidateKind(st.Root.Kind, st.Name)
	}
	return claude.KindOf(st.Root.Kind, st.Name, &st.Observed.Manifest)
}
