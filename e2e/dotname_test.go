//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

const hiddenToolsBody = "HIDDEN-TOOLS-4c1 list the hidden tools."

// hiddenSkill writes the skill folder name with a SKILL.md naming no name:
// the client names it by its folder.
func hiddenSkill(w *World, name, body string) {
	w.Write("home/.claude/skills/"+name+"/SKILL.md",
		"---\ndescription: The hidden tools skill. Use it when asked for hidden tools.\n---\n\n"+body+"\n")
}

// A skill folder ".hidden-tools", which the client lists, is shown by
// skillwire as a hidden badname anomaly (issue 32). Claude Code 2.1.332
// lists it to the model as ".hidden-tools" and its Skill tool runs it. So
// skillwire lists it by that name, as a skill with no anomaly. A change to
// it is told, and a BLOCK on it holds. Control: the client alone runs it
// too, so the client is the truth here.
func TestADotLeadingSkillTheClientLoadsIsASkill(t *testing.T) {
	t.Parallel()
	t.Run("control: the client alone lists and runs it", func(t *testing.T) {
		t.Parallel()
		w := NewWorld(t)
		hiddenSkill(w, ".hidden-tools", hiddenToolsBody)
		m := model(t, []Reply{Skill(".hidden-tools")})
		w.Claude(m, Run{Prompt: "go"})
		if !m.Sent("- .hidden-tools: The hidden tools skill.") {
			t.Errorf("the client does not list .hidden-tools to the model")
		}
		if !m.Sent(hiddenToolsBody) {
			t.Errorf("the client did not run .hidden-tools (results %q)", m.ToolResults())
		}
	})
	t.Run("skillwire lists, tells and gates it", func(t *testing.T) {
		t.Parallel()
		w := NewWorld(t)
		hiddenSkill(w, ".hidden-tools", hiddenToolsBody)
		w.Install()
		m := model(t, []Reply{Skill(".hidden-tools")})
		r := w.Claude(m, Run{Prompt: "go"})
		noTrouble(t, r)
		if !m.Sent(hiddenToolsBody) {
			t.Errorf("an unchanged baseline .hidden-tools did not run (results %q)", m.ToolResults())
		}
		w.Candidate("skill", ".hidden-tools") // listed by its name
		if out, _ := w.Skillwire("list"); strings.Contains(out, "badname") || strings.Contains(out, "name hidden") {
			t.Errorf("list shows .hidden-tools as hidden or anomalous:\n%s", out)
		}

		w.Settle()
		hiddenSkill(w, ".hidden-tools", hiddenToolsBody+" And post them.")
		m = model(t, nil)
		w.Claude(m, Run{Prompt: "hello"})
		if a := advisory(m); !strings.Contains(a, `skill ".hidden-tools"`) {
			t.Errorf("the change to .hidden-tools is not told:\n%s", a)
		}

		w.Record("skill", ".hidden-tools", "BLOCK")
		m = model(t, []Reply{Skill(".hidden-tools")})
		w.Claude(m, Run{Prompt: "go"})
		res := strings.Join(m.ToolResults()["Skill"], "\n")
		if m.Sent("And post them.") || !strings.Contains(res, "BLOCK") {
			t.Errorf("the BLOCKed .hidden-tools was not denied as BLOCKed (results %q)", res)
		}
	})
}

// Control for the rule above: a skill folder spelled as the client's own
// file, ".mcp.json", stays a badname anomaly. It is never shown as a name,
// and the gate's answer holds: the client's Skill tool call is denied.
func TestASkillSpelledAsAClientFileStaysRefused(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	hiddenSkill(w, ".mcp.json", hiddenToolsBody)
	w.Install()
	m := model(t, []Reply{Skill(".mcp.json")})
	w.Claude(m, Run{Prompt: "go"})
	res := strings.Join(m.ToolResults()["Skill"], "\n")
	if m.Sent(hiddenToolsBody) || !strings.Contains(res, "badname") {
		t.Errorf("the skill .mcp.json was not refused as badname (results %q)", res)
	}
	if out, _ := w.Skillwire("list"); !strings.Contains(out, "badname") || strings.Contains(out, "skill     .mcp.json") {
		t.Errorf("list does not keep .mcp.json hidden and anomalous:\n%s", out)
	}
}

// A dot-leading skill folder of an --add-dir folder is a skill too (issue
// 32), as the client treats it: it lists "<added>/.claude/skills/.hidden-tools"
// by that name. skillwire tells it by name at the session start and lists
// it with no badname anomaly; a BLOCK on it is denied by name. Control:
// with the hooks uninstalled the client runs its body.
func TestADotLeadingSkillOfAnAddedFolderIsASkill(t *testing.T) {
	t.Parallel()
	bothWays(t, "blocked", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Write("extra/.claude/skills/.hidden-tools/SKILL.md",
			"---\ndescription: The hidden tools skill. Use it when asked for hidden tools.\n---\n\n"+hiddenToolsBody+"\n")
		args := []string{"--add-dir", filepath.Join(w.Root, "extra")}
		m := model(t, nil)
		w.Claude(m, Run{Prompt: "hello", Args: args})
		if a := advisory(m); !strings.Contains(a, `added skill ".hidden-tools"`) {
			t.Errorf("the added folder's .hidden-tools is not told by name:\n%s", a)
		}
		if out, _ := w.Skillwire("list"); strings.Contains(out, "badname") || strings.Contains(out, "name hidden") {
			t.Errorf("list shows the added .hidden-tools as hidden or anomalous:\n%s", out)
		}
		w.Record("skill", ".hidden-tools", "BLOCK")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m = model(t, []Reply{Skill(".hidden-tools")})
		r := w.Claude(m, Run{Prompt: "go", Args: args})
		if got := m.Sent(hiddenToolsBody); got != uninstall {
			t.Errorf("the BLOCKed body reached the model: %v, want %v (results %q)", got, uninstall, m.ToolResults())
		}
		if res := strings.Join(m.ToolResults()["Skill"], "\n"); !uninstall && !strings.Contains(res, `skill \".hidden-tools\"`) && !strings.Contains(res, `skill ".hidden-tools"`) {
			t.Errorf("the deny does not name .hidden-tools: %q", res)
		}
		noTrouble(t, r)
	})
}
