package session

import (
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/session/mainagent"
)

// mainAgentLines say a settings file's "agent" makes a candidate under an
// adverse verdict the session's main agent. No hook can keep its
// instructions out of the session: they are its system prompt. So the
// person and the model are told at every session start. The gate denies
// each Skill, Agent and Bash call made as it. A name no observed agent
// answers to, and no built-in, is told too: unknown (package mainagent).
func mainAgentLines(in Input) (lines, unknown []string) {
	for _, m := range mainagent.Of(in.Standings) {
		for _, ag := range m.Agents {
			if ag.Verdict != nil && verdict.Adverse(ag.Verdict.Verdict) {
				lines = append(lines, "- under an adverse verdict and this session's main agent: "+describe(m.Settings, false)+" makes "+describe(ag, false)+
					" the session's agent: its instructions are in this session, and skillwire denies each Skill, Agent and Bash call made as it")
			}
		}
		if m.Unknown() {
			unknown = append(unknown, "- unknown main agent: "+describe(m.Settings, false)+" makes "+mainagent.Shown(m.Name)+
				" the session's agent, and skillwire observes no agent of that name: what the client loads for it is unreviewed")
		}
	}
	return lines, unknown
}
