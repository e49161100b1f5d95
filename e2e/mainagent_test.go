//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

const pluginAgentBody = "PLUGIN-AGENT-8d2 you are the plugin's agent."

// systemHas reports whether the first main request's system prompt holds s.
func systemHas(m *Model, s string) bool {
	for _, r := range m.Requests() {
		if r.Main {
			sys, _ := r.Body["system"].([]any)
			for _, b := range sys {
				if blk, _ := b.(map[string]any); blk != nil && strings.Contains(textOf(blk["text"]), s) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// A settings "agent" naming a plugin's agent is not matched for the
// main-agent line (issue 32). Claude Code 2.1.332 makes the plugin's agent
// the main agent for "plug:pagent" and for the bare "pagent": its body is
// the system prompt. So a BLOCKed plugin holding it is told to the model
// and on the person's line, for both spellings. A call made as it is
// denied: the gate already held that. Control: no verdict, no adverse
// line, no unknown-agent line, and the call runs.
func TestAPluginAgentMadeTheMainAgentIsTold(t *testing.T) {
	t.Parallel()
	for _, spelled := range []string{"plug:pagent", "pagent"} {
		for _, block := range []bool{true, false} {
			name := spelled + "/blocked"
			if !block {
				name = spelled + "/control: no verdict"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				w.AgentFile("market/plug/agents", "pagent", pluginAgentBody)
				installPlugin(w)
				w.Skill("home/.claude/skills", "hello", "HELLO-3e9 say hello")
				w.Install()
				w.Claude(model(t, nil), Run{Prompt: "hello"})
				w.Record("skill", "hello", "SAFE-TO-PROPOSE")
				if block {
					w.Record("plugin", "plug@mkt", "BLOCK")
				}
				w.Write("proj/.claude/settings.json", `{"agent": "`+spelled+`"}`)
				m := model(t, []Reply{Skill("hello")})
				r := w.Claude(m, Run{Prompt: "go"})
				if !systemHas(m, pluginAgentBody) {
					t.Fatalf("the client did not make the plugin's agent the main agent: the premise changed")
				}
				a := advisory(m)
				if got := strings.Contains(a, "this session's main agent") && strings.Contains(a, `plugin "plug@mkt"`); got != block {
					t.Errorf("the model is told of the BLOCKed main agent: %v, want %v:\n%s", got, block, a)
				}
				if got := strings.Contains(r.Debug, "this session's main agent is under an adverse verdict"); got != block {
					t.Errorf("the person is told of the BLOCKed main agent: %v, want %v", got, block)
				}
				if got := m.Sent("HELLO-3e9"); got == block {
					t.Errorf("the call made as the main agent ran: %v, want %v (%q)", got, !block, m.ToolResults())
				}
				if strings.Contains(a, "unknown main agent") {
					t.Errorf("the plugin's agent is told as unknown:\n%s", a)
				}
			})
		}
	}
}

// A settings "agent" that resolves to no agent skillwire observes is told,
// never silent: the model and the person learn the main agent is unknown.
// Control: the plugin's own agent, by the same spelling, is no unknown.
func TestAMainAgentNoObservedAgentAnswersToIsTold(t *testing.T) {
	t.Parallel()
	for _, ghost := range []bool{true, false} {
		name, spelled := "plug:ghost", "plug:ghost"
		if !ghost {
			name, spelled = "control: plug:pagent", "plug:pagent"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.AgentFile("market/plug/agents", "pagent", pluginAgentBody)
			installPlugin(w)
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			w.Write("proj/.claude/settings.json", `{"agent": "`+spelled+`"}`)
			m := model(t, nil)
			r := w.Claude(m, Run{Prompt: "go"})
			if got := systemHas(m, pluginAgentBody); got == ghost {
				t.Errorf("the plugin's agent is the main agent: %v, want %v", got, !ghost)
			}
			a := advisory(m)
			if got := strings.Contains(a, `unknown main agent`) && strings.Contains(a, `agent "plug:ghost"`); got != ghost {
				t.Errorf("the model is told of the unknown main agent: %v, want %v:\n%s", got, ghost, a)
			}
			if got := strings.Contains(r.Debug, "this session's main agent is one skillwire does not observe"); got != ghost {
				t.Errorf("the person is told of the unknown main agent: %v, want %v", got, ghost)
			}
		})
	}
}
