package session

import (
	"bytes"
	"encoding/json"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
)

// mainAgentLines say a settings file's "agent" makes a candidate under an
// adverse verdict the session's main agent. No hook can keep its
// instructions out of the session: they are its system prompt. So the
// person and the model are told at every session start. The gate denies
// each Skill, Agent and Bash call made as it. The agent is matched by its
// file's name, as the client folds agent names.
func mainAgentLines(in Input) []string {
	var lines []string
	for i := range in.Standings {
		st := &in.Standings[i]
		if claude.CandidateKind(st.Root.Kind, st.Name) != claude.KindSettings || st.Observed == nil || st.Observed.Canonical == nil {
			continue
		}
		var doc struct {
			Agent *string `json:"agent"`
		}
		if json.Unmarshal(st.Observed.Canonical, &doc) != nil || doc.Agent == nil || *doc.Agent == "" {
			continue
		}
		key := claude.AgentKey(*doc.Agent)
		for j := range in.Standings {
			ag := &in.Standings[j]
			if ag.Root.Kind != claude.Agents || ag.Verdict == nil || !verdict.Adverse(ag.Verdict.Verdict) || !agentNamed(ag, key) {
				continue
			}
			lines = append(lines, "- under an adverse verdict and this session's main agent: "+describe(st, false)+" makes "+describe(ag, false)+
				" the session's agent: its instructions are in this session, and skillwire denies each Skill, Agent and Bash call made as it")
		}
	}
	return lines
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

// hooksOffElsewhere are the settings files of other registered projects
// that switch skillwire's hooks off. A project's own disableAllHooks stops
// the very hook that would tell it. So it is told in the next session where
// hooks run. Bounded by maxHooksOffProjects.
func hooksOffElsewhere(p claude.Places, current string, projects []string) []settings.HooksOff {
	if p.Config == "" {
		return nil
	}
	var out []settings.HooksOff
	for i, proj := range projects {
		if i == maxHooksOffProjects {
			break
		}
		if proj == current {
			continue
		}
		// Only the project's own files. The user's settings.json, were it to
		// switch hooks off, would have stopped this session's hooks too.
		q := claude.Places{Managed: p.Managed, Project: proj}
		for _, h := range settings.HooksOffIn(q) {
			if h.Scope == claude.Project {
				out = append(out, h)
			}
		}
	}
	return out
}

// maxHooksOffProjects bounds the registered projects a session start reads
// the settings of.
const maxHooksOffProjects = 64
