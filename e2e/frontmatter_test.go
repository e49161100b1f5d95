//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// The shape of 11 of 150 agent and skill files in Anthropic's plugin
// repositories. A one-line description holds ": " and <example> blocks, which
// is not strict YAML. Written here, not copied.
const loosePrefix = "Use this agent when the user asks for a review: <example>Context: a PR is open."

func looseAgent(name string) string {
	return "---\nname: " + name + "\ndescription: " + loosePrefix + " user: \"review it\" assistant: \"I will use the agent\"</example>\ntools: Read, Grep\n---\n\nYou review code.\n"
}

// skillwire reads frontmatter as the client reads it (issue 23). The client
// loads an agent whose frontmatter is not strict YAML, with its name and
// description. skillwire reads it the same way: no anomaly, its tools told.
// Control: frontmatter the client cannot read either loads without its
// description. skillwire tells that as a fact, not an anomaly.
func TestLooseFrontmatterLoadsWithItsNameAndDescription(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	w.Write("home/.claude/agents/x1.md", looseAgent("loose-reviewer"))
	w.Write("home/.claude/agents/x2.md", "---\nname: broken-reviewer\n  tools: [\ndescription: BROKEN-DESC-5c1e\n---\n\nYou review code.\n")
	w.Install()

	m := model(t, nil)
	r := w.Claude(m, Run{Prompt: "hello"})
	if !m.Sent("loose-reviewer") || !m.Sent(loosePrefix) {
		t.Errorf("the client did not load the loose agent with its name and description")
	}
	if m.Sent("BROKEN-DESC-5c1e") {
		t.Errorf("control: the client read the description of frontmatter that is not YAML")
	}
	if tr := Trouble(r.Debug); len(tr) == 0 {
		t.Errorf("control: the client logged nothing of the frontmatter it could not read")
	}
	list := w.MustSkillwire([]int{0, 3}, "list", "--json")
	if strings.Contains(list, "unparsable") {
		t.Errorf("skillwire calls the agents unparsable:\n%s", list)
	}
	c := w.Candidate("agent", "x2.md")
	w.Write("home/.claude/agents/x2.md", "---\nname: broken-reviewer\n  tools: [\ndescription: BROKEN-DESC-5c1e v2\n---\n\nYou review code.\n")
	m = model(t, nil)
	w.Claude(m, Run{Prompt: "hello"})
	if a := advisory(m); !strings.Contains(a, "id "+c.ID+": frontmatter not readable: its tools and hooks are unknown") {
		t.Errorf("the advisory does not tell the unreadable frontmatter as a fact: %q", a)
	}
}
