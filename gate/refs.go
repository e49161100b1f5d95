package gate

import (
	"encoding/json"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// A use loads more than the candidate it names: an agent preloads the
// skills its frontmatter lists (skills:), a skill runs the agent it names
// (agent:, with context: fork). A BLOCK anywhere in that closure must deny,
// so the gate judges every candidate a use reaches, bounded.
const (
	maxRefDepth = 4  // references of references, this deep
	maxRefs     = 32 // candidates reached through references, at most
)

// ref is one reference a candidate's frontmatter makes.
type ref struct {
	use Use
	via string // how the referring candidate loads it, for the reason
}

// referenced is every candidate of found that matched reach through their
// references, transitively and bounded, each marked with the path to it;
// capped is true when the bounds cut the closure short (what lies past
// them is unknown, and judged so).
func referenced(u Use, found, matched []located) (out []located, capped bool) {
	key := func(l located) string { return l.root.Path + "\x00" + string(l.name) }
	seen := map[string]bool{}
	for _, m := range matched {
		seen[key(m)] = true
	}
	frontier := matched
	for depth := 0; len(frontier) > 0; depth++ {
		var next []located
		for _, l := range frontier {
			refs := refsOf(l)
			if len(refs) > 0 && depth == maxRefDepth {
				return out, true
			}
			for _, r := range refs {
				r.use.Event = u.Event
				for _, m := range resolveFound(r.use, found) {
					if seen[key(m)] {
						continue
					}
					if len(out) == maxRefs {
						return out, true
					}
					seen[key(m)] = true
					m.cand.Via = r.via
					out = append(out, m)
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	return out, false
}

// refsOf reads l's frontmatter (its front file alone, through the walker)
// for the candidates it loads with it.
func refsOf(l located) []ref {
	if l.cand.Scope == Plugin || l.cand.Kind == 0 {
		return nil
	}
	front := walker.Fronts(l.root.Spec(), [][]byte{l.name})[0]
	if front.Reason != 0 || front.Canonical == nil {
		return nil // unreadable: the candidate itself is judged anomalous
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(front.Canonical, &m) != nil {
		return nil
	}
	who := l.cand.Kind.String()
	if name := displayName(l.cand); name != "" {
		who += ` "` + name + `"`
	}
	var out []ref
	switch l.cand.Kind {
	case Agent:
		var skills []string
		if json.Unmarshal(m["skills"], &skills) == nil {
			for _, s := range skills {
				out = append(out, ref{Use{Kind: Skill, Name: claude.SkillName(s)}, who + " preloads it (skills:)"})
			}
		}
	case Skill, Command:
		var agent string
		if json.Unmarshal(m["agent"], &agent) == nil && agent != "" {
			out = append(out, ref{Use{Kind: Agent, Name: agent}, who + " runs it as its agent (agent:)"})
		}
	}
	return out
}
