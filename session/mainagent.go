package session

import (
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/session/mainagent"
)

// agentLines are what a session is told of its main agent, each list a
// part of the person's line (agentNotices) when not empty.
type agentLines [numAgentLines][]string

// What agentLines tell, in order.
const (
	agentAdverse = iota
	agentMaybeAdverse
	agentChanged
	agentAmbiguous
	agentUnknown
	numAgentLines
)

// agentNotices are the person's words for each of agentLines.
var agentNotices = [numAgentLines]string{"this session's main agent is under an adverse verdict", "this session's main agent may be one under an adverse verdict",
	"this session's main agent changed and is unreviewed", "skillwire cannot tell which agent is this session's main agent",
	"this session's main agent is one skillwire does not observe"}

// mainAgentLines say what a settings file's "agent" makes the session's
// main agent (package mainagent). No hook can keep its instructions out
// of the session: they are its system prompt. So the person and the model
// are told at every session start of one under an adverse verdict (the
// gate denies each Skill, Agent and Bash call made as it), one new or
// changed and unreviewed, one skillwire cannot name, and a name no
// observed agent or built-in answers to: unknown.
func mainAgentLines(in Input) (out agentLines) {
	for _, m := range mainagent.Of(in.Standings) {
		makes := describe(m.Settings, false) + " makes "
		for _, ag := range m.Agents {
			switch {
			case ag.Verdict != nil && verdict.Adverse(ag.Verdict.Verdict):
				out[agentAdverse] = append(out[agentAdverse], "- under an adverse verdict and this session's main agent: "+makes+describe(ag, false)+
					" the session's agent: its instructions are in this session, and skillwire denies each Skill, Agent and Bash call made as it")
			case ag.State == baseline.Changed || ag.State == baseline.New && !in.Bootstrap || isPending(ag):
				out[agentChanged] = append(out[agentChanged], "- new or changed, unreviewed, and this session's main agent: "+makes+describe(ag, false)+
					" the session's agent: its changed instructions are in this session without review")
			}
		}
		for _, ag := range m.Unread {
			if ag.Verdict != nil && verdict.Adverse(ag.Verdict.Verdict) {
				out[agentMaybeAdverse] = append(out[agentMaybeAdverse], "- under an adverse verdict and maybe this session's main agent: "+makes+mainagent.Shown(m.Name)+
					" the session's agent, and skillwire cannot read the agent names of "+describe(ag, false)+": the client may take it")
			} else {
				out[agentAmbiguous] = append(out[agentAmbiguous], "- ambiguous main agent: "+makes+mainagent.Shown(m.Name)+
					" the session's agent, and skillwire cannot read the agent names of "+describe(ag, false)+": the client may take it, unreviewed")
			}
		}
		if m.Unknown() {
			out[agentUnknown] = append(out[agentUnknown], "- unknown main agent: "+makes+mainagent.Shown(m.Name)+
				" the session's agent, and skillwire observes no agent of that name: what the client loads for it is unreviewed")
		}
	}
	return out
}
