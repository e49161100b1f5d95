// Package mainagent is what a settings file's "agent" makes the session's
// main agent, among the candidates observed. The session start tells the
// model and the person of it when it is under an adverse verdict,
// changed and unreviewed, ambiguous or unknown.
package mainagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/builtin"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/snapshot"
)

// Match is one settings file's "agent" and the observed agents it may name.
type Match struct {
	Settings *baseline.Standing
	Name     string // the settings' "agent", as written
	// Agents are what the client takes for Name: every agent named it
	// exactly, and, unless an own agent or built-in is, every one whose
	// name ends in ":" and it. The client takes the first of those by its
	// sort. skillwire tells them all.
	Agents []*baseline.Standing
	// Unread are agents skillwire cannot name. Any may be the main agent,
	// even over an exact one: ambiguous, and told.
	Unread []*baseline.Standing
	// Builtin: one of the client's own agents is named Name exactly.
	Builtin bool
}

// Unknown reports whether no observed agent answers to the name, and no
// built-in does. What the client loads for it is then unreviewed.
func (m Match) Unknown() bool {
	return len(m.Agents) == 0 && len(m.Unread) == 0 && !m.Builtin && !builtin.Is(m.Name, true)
}

// Of is every settings standing of sts that sets "agent", with the agents
// it may name. A plugin's agent files are read again for their names.
func Of(sts []baseline.Standing) []Match {
	var out []Match
	reads := maxAgentReads
	for i := range sts {
		st := &sts[i]
		if claude.CandidateKind(st.Root.Kind, st.Name) != claude.KindSettings || st.Observed == nil || st.Observed.Canonical == nil {
			continue
		}
		var doc struct {
			Agent *string `json:"agent"`
		}
		if json.Unmarshal(st.Observed.Canonical, &doc) != nil || doc.Agent == nil || *doc.Agent == "" {
			continue
		}
		m := Match{Settings: st, Name: *doc.Agent, Builtin: builtinNamed(*doc.Agent)}
		var exacts, suffixes, unread []*baseline.Standing
		hides := m.Builtin // an exact name the client surely loads
		for j := range sts {
			f, maybe := fitOfStanding(&sts[j], m.Name, &reads)
			switch {
			case f == exact:
				exacts = append(exacts, &sts[j])
				hides = hides || sts[j].Root.Kind == claude.Agents
			case f == suffix:
				suffixes = append(suffixes, &sts[j])
			case maybe:
				m.Unread = append(m.Unread, &sts[j])
			}
			if maybe && f != none {
				unread = append(unread, &sts[j])
			}
		}
		// Only an own agent or a built-in hides the ":"-suffixed names: a
		// plugin's exact agent may fail to load in ways skillwire does not
		// judge, and the client then takes a suffix.
		m.Agents = exacts
		if !hides {
			m.Agents = append(m.Agents, suffixes...)
		}
		// One with a name that fits and another unread is unread too when
		// the fit is not what the client takes.
		for _, ag := range unread {
			if !slices.Contains(m.Agents, ag) {
				m.Unread = append(m.Unread, ag)
			}
		}
		out = append(out, m)
	}
	return out
}

// builtinNamed reports whether one of the client's own agents is named n
// exactly. It then hides every ":n" (the client's exact match first). So
// the match is exact, never folded: "explore" hides no "plug:explore".
// "fork" is the Agent tool's, no agent the settings can name.
func builtinNamed(n string) bool {
	return n != "fork" && slices.Contains(builtin.Agents, n)
}

// fitOfStanding is how ag answers to the setting n: the best fit of its
// names, and whether it has a name skillwire cannot read. An agent of its
// own is named by its frontmatter name (a file without one is no agent to
// the client). A plugin is named by each of its agent files
// (pluginAgentName).
func fitOfStanding(ag *baseline.Standing, n string, reads *int) (best fit, unread bool) {
	if ag.Observed == nil {
		return none, false
	}
	switch ag.Root.Kind {
	case claude.Agents:
		name, ok := nameOf(ag.Observed.Canonical)
		switch {
		case !ok:
			return none, true
		case !ownNameValid(name) || fitOf(name, n) != exact:
			return none, false // an own name holds no ":": never a suffix
		}
		// An exact name hides every ":n". So it must be one the client
		// loads: its description is read again.
		if *reads == 0 {
			return none, true
		}
		*reads--
		loads, read := ownLoads(ag)
		if !read {
			return none, true
		}
		if !loads {
			return none, false
		}
		return exact, false
	case claude.Plugins, claude.PluginSources:
	case claude.Skills: // a skills folder holding a plugin loads as one
		if claude.KindOf(ag.Root.Kind, ag.Name, &ag.Observed.Manifest) != claude.KindPlugin {
			return none, false
		}
	default:
		return none, false
	}
	// Agents its plugin.json or marketplace entry lists replace agents/
	// and are named by their own names alone: unread to skillwire.
	// A walk cut short, or an anomaly below agents/, may hide agent files.
	named, lists, ok := pluginJSON(ag, reads)
	unread = lists || !ok || ag.Observed.Manifest.Partial || slices.ContainsFunc(ag.Observed.Manifest.Entries, func(e snapshot.Entry) bool {
		return e.Reason != 0 && bytes.HasPrefix(e.Path, []byte("agents/"))
	})
	plugin := resolve.PluginName(ag.Name)
	switch ag.Root.Kind {
	case claude.PluginSources:
		plugin = ag.Root.SourcePlugin(ag.Name)
	case claude.Skills:
		plugin = nil // its plugin.json's name; without one, unread
		if named != "" {
			plugin = []byte(named)
		}
	}
	for _, e := range ag.Observed.Manifest.Entries {
		rel, ok := bytes.CutPrefix(e.Path, []byte("agents/"))
		if !ok || e.Kind == snapshot.Dir || !bytes.HasSuffix(rel, []byte(".md")) {
			continue
		}
		front, read := "", false
		if plugin != nil && *reads > 0 {
			*reads--
			front, read = frontName(ag.Root.Path+"/"+string(ag.Name), e)
		}
		if !read {
			unread = true
			continue
		}
		best = max(best, fitOf(pluginAgentName(string(plugin), string(rel), front), n))
	}
	return best, unread
}

// Shown is the settings' agent name in quotes when it passes the display
// gate (each side of a plugin's colon), else a hash of it.
func Shown(name string) string {
	if anomaly.Gate([]byte(name)) || strings.Contains(name, ":") && gatedParts(name) {
		return fmt.Sprintf("agent %q", name)
	}
	return "an agent whose name is hidden (#" + anomaly.NameHash([]byte(name)) + ")"
}

// gatedParts reports whether each colon-separated part of name passes the
// display gate.
func gatedParts(name string) bool {
	for p := range strings.SplitSeq(name, ":") {
		if !anomaly.Gate([]byte(p)) {
			return false
		}
	}
	return true
}
