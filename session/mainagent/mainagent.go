// Package mainagent is what a settings file's "agent" makes the session's
// main agent, among the candidates observed. The session start tells the
// model and the person of it when it is under an adverse verdict or
// unknown.
package mainagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/builtin"
	"github.com/skillwire/skillwire/claude/resolve"
)

// Match is one settings file's "agent" and the observed agents it may name.
type Match struct {
	Settings *baseline.Standing
	Name     string // the settings' "agent", as written
	Agents   []*baseline.Standing
}

// Unknown reports whether no observed agent answers to the name, and no
// built-in does. What the client loads for it is then unreviewed.
func (m Match) Unknown() bool { return len(m.Agents) == 0 && !builtin.Is(m.Name, true) }

// Of is every settings standing of sts that sets "agent", with the agents
// it may name. The agent is matched by its file's name, as the client
// folds agent names. A plugin's agent answers to "plugin:agent" and to its
// bare name. Claude Code 2.1.332 makes it the main agent for both (e2e
// TestAPluginAgentMadeTheMainAgentIsTold).
func Of(sts []baseline.Standing) []Match {
	var out []Match
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
		m := Match{Settings: st, Name: *doc.Agent}
		for j := range sts {
			if AnswersAs(&sts[j], m.Name) {
				m.Agents = append(m.Agents, &sts[j])
			}
		}
		out = append(out, m)
	}
	return out
}

// Shown is the settings' agent name in quotes when it passes the display
// gate (each side of a plugin's colon), else a hash of it.
func Shown(name string) string {
	p, local, ok := strings.Cut(name, ":")
	if anomaly.Gate([]byte(name)) || ok && anomaly.Gate([]byte(p)) && anomaly.Gate([]byte(local)) {
		return fmt.Sprintf("agent %q", name)
	}
	return "an agent whose name is hidden (#" + anomaly.NameHash([]byte(name)) + ")"
}

// AnswersAs reports whether the settings' "agent" name may make ag the
// main agent. An agent of its own answers by file or frontmatter name. A
// plugin answers when one of its agents/*.md does, by its bare name or as
// "plugin:agent". A plugin whose name skillwire cannot read answers to any
// plugin's.
func AnswersAs(ag *baseline.Standing, name string) bool {
	switch ag.Root.Kind {
	case claude.Agents:
		return agentNamed(ag, claude.AgentKey(name))
	case claude.Plugins, claude.PluginSources:
	default:
		return false
	}
	if ag.Observed == nil {
		return false
	}
	local := name
	if p, l, ok := strings.Cut(name, ":"); ok {
		plugin := resolve.PluginName(ag.Name)
		if ag.Root.Kind == claude.PluginSources {
			plugin = ag.Root.SourcePlugin(ag.Name)
		}
		if plugin != nil && string(plugin) != p {
			return false
		}
		local = l
	}
	key := claude.AgentKey(local)
	for _, e := range ag.Observed.Manifest.Entries {
		stem, ok := bytes.CutPrefix(e.Path, []byte("agents/"))
		if ok && !bytes.ContainsRune(stem, '/') && bytes.HasSuffix(stem, []byte(".md")) && claude.AgentKey(string(bytes.TrimSuffix(stem, []byte(".md")))) == key {
			return true
		}
	}
	return false
}

// agentNamed reports whether agent ag answers to the folded name key. It
// answers by its file's name or its frontmatter name, as the client's.
func agentNamed(ag *baseline.Standing, key string) bool {
	if claude.AgentKey(string(bytes.TrimSuffix(ag.Name, []byte(".md")))) == key {
		return true
	}
	if ag.Observed == nil || ag.Observed.Canonical == nil {
		return false
	}
	var fm struct {
		Name *string `json:"name"`
	}
	return json.Unmarshal(ag.Observed.Canonical, &fm) == nil && fm.Name != nil && claude.AgentKey(*fm.Name) == key
}
