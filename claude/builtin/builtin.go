// Package builtin is what the client brings itself: its own skills,
// agents and tools, which no file on disk provides.
package builtin

import "github.com/skillwire/skillwire/claude"

// The client's own skills and agents, which no file on disk provides. They
// are as Claude Code 2.1.328 and 2.1.332 list them to the model: "The following
// skills are available …", "Available agent types …". A name that
// resolves to no candidate skillwire observed is judged as new unless it
// is one of these. The e2e case
// TestTheClientsBuiltInsAreTheOnesSkillwireKnows reads the lists from what
// the pinned client sends. It fails when they differ.
var (
	Skills = []string{
		"claude-api", "code-review", "dataviz", "fewer-permission-prompts", "init", "keybindings-help", "loop",
		"plugin-authoring", "run", "security-review", "simplify", "update-config", "workflow-authoring",
	}
	// Agents are compared by AgentKey, as the client compares agent
	// names. "fork" is the Agent tool's own type: the model forks itself.
	Agents = []string{"claude", "Explore", "fork", "general-purpose", "Plan", "statusline-setup"}
)

// Is reports whether name is one of the client's own skills, or
// agents when agent is set. name is as the client looks it up: claude.SkillName
// for a skill.
func Is(name string, agent bool) bool {
	if agent {
		if name == "" {
			return true // no subagent_type: the client's general-purpose agent
		}
		for _, b := range Agents {
			if claude.AgentKey(b) == claude.AgentKey(name) {
				return true
			}
		}
		return false
	}
	for _, b := range Skills {
		if b == name {
			return true
		}
	}
	return false
}
