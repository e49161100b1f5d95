package match

import (
	"encoding/json"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
)

// A use loads more than the candidate it names. An agent preloads the
// skills its frontmatter lists (skills:). A skill runs the agent it names
// (agent:, with context: fork). A BLOCK anywhere in that closure must
// deny, so the gate judges every candidate a use reaches, bounded.
const (
	maxRefDepth = 4 // references of references, this deep
	// MaxRefs bounds the candidates reached through references.
	MaxRefs = 32
)

// ref is one reference a candidate's frontmatter makes.
type ref struct {
	kind resolve.Kind
	name string
	via  string // how the referring candidate loads it, for the reason
}

// Referenced is every candidate of found that matched reach through their
// references, transitively and bounded. Each is marked with the path to
// it. matched were reached by name. capped is true when the bounds cut
// the closure short: what lies past them is unknown, and judged so.
func Referenced(name string, found, matched []Located) (out []Located, capped bool) {
	seen := map[string]bool{}
	// Each candidate goes with the name it was reached by. A plugin's
	// version directory holds many skills and agents: the name says
	// which one's frontmatter to read.
	type reached struct {
		l    Located
		name string
	}
	var frontier []reached
	for _, m := range matched {
		seen[m.Key()] = true
		frontier = append(frontier, reached{m, name})
	}
	for depth := 0; len(frontier) > 0; depth++ {
		var next []reached
		for _, f := range frontier {
			refs, unknown := refsOf(f.l, f.name)
			if unknown || len(refs) > 0 && depth == maxRefDepth {
				return out, true
			}
			for _, r := range refs {
				for _, m := range Resolve(r.kind, r.name, found) {
					if seen[m.Key()] {
						continue
					}
					if len(out) == MaxRefs {
						return out, true
					}
					seen[m.Key()] = true
					m.Cand.Via = r.via
					out = append(out, m)
					next = append(next, reached{m, r.name})
				}
			}
		}
		frontier = next
	}
	return out, false
}

// refsOf reads the frontmatter of l, reached by name, for the candidates
// it loads with it. Only its front file is read, through the walker. For a
// plugin's version directory, that is the file of the skill, command or
// agent name names in it. unknown is true when a plugin's file could not
// be read whole: what it references is then unknown, and judged so.
func refsOf(l Located, name string) (refs []ref, unknown bool) {
	if l.Cand.Kind == 0 || l.Cand.Kind == resolve.Workflow {
		return nil, false // a script's agent() calls are not read
	}
	var canon []byte
	if l.Cand.Scope == resolve.Plugin {
		if canon, unknown = pluginFront(l, name); unknown {
			return nil, true
		}
	} else {
		front := walker.Fronts(l.Root.Spec(), [][]byte{l.Name})[0]
		if front.Reason != 0 {
			return nil, false // unreadable: the candidate itself is judged anomalous
		}
		canon = front.Canonical
	}
	if canon == nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(canon, &m) != nil {
		return nil, false
	}
	who := l.Cand.Kind.String()
	if n := l.Cand.Display(); n != "" {
		who += ` "` + n + `"`
	}
	var out []ref
	switch l.Cand.Kind {
	case resolve.Agent:
		var skills []string
		if json.Unmarshal(m["skills"], &skills) == nil {
			for _, s := range skills {
				out = append(out, ref{resolve.Skill, claude.SkillName(s), who + " preloads it (skills:)"})
			}
		}
	case resolve.Skill, resolve.Command:
		var agent string
		if json.Unmarshal(m["agent"], &agent) == nil && agent != "" {
			out = append(out, ref{resolve.Agent, agent, who + " runs it as its agent (agent:)"})
		}
	}
	return out, false
}

// pluginFront is the frontmatter of the skill, command or agent a
// plugin:name use names inside the version directory l. That is
// skills/<name>/SKILL.md, commands/<name>.md or agents/<name>.md. It is
// read through the walker, never through a link at the file or its
// folder. It is nil when there is none. unknown means one is there but
// could not be read whole.
func pluginFront(l Located, name string) (canon []byte, unknown bool) {
	_, local, ok := strings.Cut(name, ":")
	if !ok || !claude.ValidName(claude.Skills, []byte(local)) {
		return nil, false
	}
	type try struct{ inside, sub, file string }
	tries := []try{{"", "agents", local + ".md"}}
	if l.Cand.Kind != resolve.Agent {
		tries = []try{{"skills", local, "SKILL.md"}, {"", "commands", local + ".md"}}
	}
	for _, t := range tries {
		data, missing, unknown, err := readPluginFile(l, t.inside, t.sub, t.file, maxPluginFront)
		switch {
		case missing || err != nil:
			continue
		case unknown:
			return nil, true
		}
		return config.Frontmatter(data).Canonical, false
	}
	return nil, false
}

// maxPluginFront bounds the plugin file read for its frontmatter. A
// larger one's references are unknown.
const maxPluginFront = 8 << 20
