//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The gate-holds cases: each finding of the real client loading a BLOCKed
// skill or agent past the gate, with a control where nothing holds it.

// blockedWorld is a world with the skill evil and the agent evilagent
// installed, their first session run, and the verdicts given.
func blockedWorld(t *testing.T, block bool) *World {
	t.Helper()
	w := NewWorld(t)
	w.Skill("home/.claude/skills", "evil", evilBody)
	w.AgentFile("home/.claude/agents", "evilagent", evilAgentBody)
	w.Install()
	w.Claude(model(t, nil), Run{Prompt: "hello"})
	if block {
		w.Record("skill", "evil", "BLOCK")
		w.Record("agent", "evilagent.md", "BLOCK")
	}
	return w
}

// 1. The client trims names, strips a leading "/" from a skill's name and
// folds the case of an agent's: every spelling it accepts is held.
func TestSpellingsTheClientAcceptsAreHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply Reply
		body  string
	}{
		{"skill /evil", Skill("/evil"), evilBody},
		{"skill ' evil'", Skill(" evil"), evilBody},
		{"skill 'evil '", Skill("evil "), evilBody},
		{"agent EvilAgent", Agent("EvilAgent", "go"), evilAgentBody},
		{"agent 'evilagent '", Agent("evilagent ", "go"), evilAgentBody},
	} {
		for _, block := range []bool{true, false} {
			name := tc.name
			if !block {
				name = "control: no verdict/" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := blockedWorld(t, block)
				m := model(t, []Reply{tc.reply}, Say("agent done."))
				r := w.Claude(m, Run{Prompt: "go"})
				if got := m.Sent(tc.body); got == block {
					t.Errorf("the body reached the model: %v, want %v (results %q)", got, !block, m.ToolResults())
				}
				noTrouble(t, r)
			})
		}
	}
}

// 9. A BLOCK is never crowded out of the advisory by new candidates.
func TestABlockIsNeverCrowdedOutOfTheAdvisory(t *testing.T) {
	t.Parallel()
	w := blockedWorld(t, true)
	for i := 0; i < 12; i++ {
		w.Skill("home/.claude/skills", fmt.Sprintf("new%02d", i), "NEW")
	}
	m := model(t, nil)
	w.Claude(m, Run{Prompt: "hello"})
	if a := advisory(m); !strings.Contains(a, `"evil"`) || !strings.Contains(a, "BLOCK") {
		t.Errorf("the BLOCK is not listed in the advisory:\n%s", a)
	}
}
