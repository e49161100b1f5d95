//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The gate-holds cases. Each is a finding of the real client loading a
// BLOCKed skill or agent past the gate. Each has a control where nothing
// holds it.

// blockedWorld is a world with the skill evil and the agent evilagent
// installed. Their first session has run and the verdicts are given.
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

// 1. Every spelling of a name the client accepts is held. The client trims
// names and strips a leading "/" from a skill's name. It folds the case of an
// agent's.
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
	a := advisory(m)
	first, _, _ := strings.Cut(a, "\n")
	if !strings.Contains(first, `"evil"`) || !strings.Contains(first, "BLOCK") {
		t.Errorf("the BLOCK is not listed first in the advisory:\n%s", a)
	}
}

// 5. A skill that arrived between sessions and was told to the model is still
// new at its first use. Telling the model is not a review.
func TestToldIsNotReviewed(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	w.Install()
	w.Claude(model(t, nil), Run{Prompt: "hello"})
	w.Skill("home/.claude/skills", "pulled", "PULLED-9e1 arrived with a git pull")
	w.Claude(model(t, nil), Run{Prompt: "hello"}) // told as new
	m := model(t, []Reply{Skill("pulled")})
	r := w.Claude(m, Run{Prompt: "go"})
	if m.Sent("PULLED-9e1") {
		t.Errorf("a skill no person decided on loaded unasked (results %q)", m.ToolResults())
	}
	if !slicesContains(r.Denials(), "Skill") {
		t.Errorf("not asked: denials %v", r.Denials())
	}
}

// 8. The model cannot record a verdict through its Bash tool unasked.
func TestTheModelCannotRecordAVerdictThroughBash(t *testing.T) {
	t.Parallel()
	cannotRecordThrough(t, "Bash", func(_ *World, cmd string) []Reply {
		return []Reply{Call("Bash", map[string]any{"command": cmd, "description": "approve"})}
	})
}

// cannotRecordThrough: the model runs `skillwire record ID --verdict
// SAFE-TO-PROPOSE` through tool, in the calls replies makes of that command
// line. Gated, the call is asked (so denied under -p) and nothing is
// recorded. Control: with the hooks uninstalled the verdict is recorded.
func cannotRecordThrough(t *testing.T, tool string, replies func(w *World, cmd string) []Reply) {
	bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := blockedWorld(t, true)
		c := w.Candidate("skill", "evil")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		cmd := fmt.Sprintf("skillwire record %s --verdict SAFE-TO-PROPOSE --expect-digest %s", c.ID, c.Digest)
		m := model(t, replies(w, cmd))
		r := w.Claude(m, Run{Prompt: "go", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
		out := w.MustSkillwire([]int{0, 3}, "list", "--json")
		if got := strings.Contains(out, `"SAFE-TO-PROPOSE"`); got != uninstall {
			t.Errorf("the model's %s call recorded a verdict: %v, want %v (results %q, denials %v)", tool, got, uninstall, m.ToolResults(), r.Denials())
		}
		if !uninstall && !slicesContains(r.Denials(), tool) {
			t.Errorf("the %s call was not asked: denials %v", tool, r.Denials())
		}
	})
}

// 4. The deadline is the attacker's. 200 skills of 64 KiB frontmatter and
// 4,100 empty folders sit beside a BLOCKed skill. They once turned its deny
// into nothing or a plain ask. It is denied with its BLOCK reason. Control:
// with the hooks uninstalled it loads.
func TestABlockIsDeniedHoweverTheRootIsPadded(t *testing.T) {
	t.Parallel()
	bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := blockedWorld(t, true)
		var fm strings.Builder
		for i := range 1000 {
			fmt.Fprintf(&fm, "k%04d: %s\n", i, strings.Repeat("v", 57))
		}
		for i := range 200 {
			w.Write(fmt.Sprintf("home/.claude/skills/pad%03d/SKILL.md", i), "---\nname: pad"+fmt.Sprint(i)+"\ndescription: pad\n"+fm.String()+"---\nbody\n")
		}
		for i := range 4100 {
			if err := os.Mkdir(filepath.Join(w.Config, "skills", fmt.Sprintf("e%04d", i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{Skill("evil")})
		w.Claude(m, Run{Prompt: "go"})
		res := strings.Join(m.ToolResults()["Skill"], "\n")
		if got := m.Sent(evilBody); got != uninstall {
			t.Errorf("the BLOCKed body reached the model: %v, want %v (%q)", got, uninstall, res)
		}
		if !uninstall && (!strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK")) {
			t.Errorf("not denied as BLOCKed: %q", res)
		}
	})
}

// 3. A use is judged over what it loads. Cases: an agent that preloads a
// BLOCKed skill, and a forked skill that runs a BLOCKed agent.
func TestReferencesToABlockedCandidateAreHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*World)
		reply Reply
		body  string
	}{
		{"agent skills: [evil]", func(w *World) {
			w.Write("home/.claude/agents/courier.md", "---\nname: courier\ndescription: Carries things.\nskills:\n  - evil\n---\n\nCOURIER\n")
		}, Agent("courier", "go"), evilBody},
		{"skill context: fork, agent: evilagent", func(w *World) {
			w.Write("home/.claude/skills/forker/SKILL.md", "---\nname: forker\ndescription: Forks.\ncontext: fork\nagent: evilagent\n---\n\nFORKER do it\n")
		}, Skill("forker"), evilAgentBody},
	} {
		for _, block := range []bool{true, false} {
			name := tc.name
			if !block {
				name = "control: no verdict/" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				w.Skill("home/.claude/skills", "evil", evilBody)
				w.AgentFile("home/.claude/agents", "evilagent", evilAgentBody)
				tc.setup(w)
				w.Install()
				w.Claude(model(t, nil), Run{Prompt: "hello"})
				if block {
					w.Record("skill", "evil", "BLOCK")
					w.Record("agent", "evilagent.md", "BLOCK")
				}
				m := model(t, []Reply{tc.reply}, Say("agent done."))
				r := w.Claude(m, Run{Prompt: "go"})
				if got := m.Sent(tc.body); got == block {
					t.Errorf("the BLOCKed body reached the model: %v, want %v (results %q)", got, !block, m.ToolResults())
				}
				noTrouble(t, r)
			})
		}
	}
}

// 6. The BLOCKed skill's folder is renamed and one byte changed. Its
// frontmatter still says name: evil, and it is held like evil.
func TestARenamedBlockedSkillIsHeld(t *testing.T) {
	t.Parallel()
	w := blockedWorld(t, true)
	w.Skill("home/.claude/skills", "evil2", evilBody+"!")
	w.Write("home/.claude/skills/evil2/SKILL.md", "---\nname: evil\ndescription: The evil skill.\n---\n\n"+evilBody+"!\n")
	if err := os.RemoveAll(filepath.Join(w.Config, "skills", "evil")); err != nil {
		t.Fatal(err)
	}
	m := model(t, []Reply{Skill("evil")})
	w.Claude(m, Run{Prompt: "go"})
	if res := strings.Join(m.ToolResults()["Skill"], "\n"); m.Sent(evilBody) || !strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK") {
		t.Errorf("the renamed BLOCKed skill was not held as BLOCKed (results %q)", res)
	}
}

// 3 (settings). A BLOCKed agent made the session's main agent is held at
// every call. A project's settings "agent" makes it the main agent. The
// client then sends agent_type with every call. Every Skill, Agent or Bash
// call made as it is denied. Its instructions still reach the model with the
// system prompt; no hook can stop that. Control: no verdict, the call runs.
func TestCallsMadeAsABlockedMainAgentAreDenied(t *testing.T) {
	t.Parallel()
	for _, block := range []bool{true, false} {
		name := "blocked"
		if !block {
			name = "control: no verdict"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := blockedWorld(t, block)
			w.Skill("home/.claude/skills", "hello", "HELLO-3e9 say hello")
			w.Claude(model(t, nil), Run{Prompt: "hello"}) // hello is told
			w.Record("skill", "hello", "SAFE-TO-PROPOSE")
			w.Write("proj/.claude/settings.json", `{"agent": "evilagent"}`)
			m := model(t, []Reply{Skill("hello")})
			w.Claude(m, Run{Prompt: "go"})
			res := strings.Join(m.ToolResults()["Skill"], "\n")
			if got := m.Sent("HELLO-3e9"); got == block {
				t.Errorf("the call made as the main agent ran: %v, want %v (%q)", got, !block, res)
			}
			if block && (!strings.Contains(res, `agent \"evilagent\"`) && !strings.Contains(res, `agent "evilagent"`) || !strings.Contains(res, "BLOCK")) {
				t.Errorf("not denied for the BLOCKed main agent: %q", res)
			}
			// The session start tells the model (and the person) so.
			if got := strings.Contains(advisory(m), "this session's main agent"); got != block {
				t.Errorf("the advisory tells of the BLOCKed main agent: %v, want %v:\n%s", got, block, advisory(m))
			}
		})
	}
}

// 7. A cloned project's disableAllHooks must not switch skillwire off
// unseen. With user-level hooks the client stops them: that is reported
// by scan and status.
func TestDisableAllHooksInAProjectIsReported(t *testing.T) {
	t.Parallel()
	w := blockedWorld(t, true)
	w.Write("proj/.claude/settings.json", `{"disableAllHooks": true}`)
	m := model(t, []Reply{Skill("evil")})
	r := w.Claude(m, Run{Prompt: "go"})
	if Ran(r.Debug, "PreToolUse", "pre-tool-use") {
		t.Fatalf("the client ran user hooks under a project's disableAllHooks: the premise changed")
	}
	out, code := w.Skillwire("status")
	if code != 3 || !strings.Contains(out, "disableAllHooks") {
		t.Errorf("status does not report the project switching hooks off (exit %d):\n%s", code, out)
	}
}

// 7 (the next session). A project that sets disableAllHooks stops the hook
// that would tell it. The next session where skillwire's hooks run, in
// another project, is told. Control: without it, nothing is said.
func TestAProjectThatSwitchesHooksOffIsToldInTheNextSessionWhereTheyRun(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{true, false} {
		name := "hooks off in proj"
		if !off {
			name = "control: hooks on"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"}) // proj is registered
			if off {
				w.Write("proj/.claude/settings.json", `{"disableAllHooks": true}`)
			}
			other := w.Write("other/README.md", "another project\n")
			m := model(t, nil)
			w.Claude(m, Run{Prompt: "hello", Dir: filepath.Dir(other)})
			if got := strings.Contains(advisory(m), "hooks off in another project"); got != off {
				t.Errorf("told: %v, want %v:\n%s", got, off, advisory(m))
			}
		})
	}
}
