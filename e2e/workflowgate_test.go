//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// workflowWorld is a git project with the workflow wfe2e (file wfe2e.js)
// holding marker, skillwire's hooks installed; c is its candidate.
func workflowWorld(t *testing.T, marker string) (w *World, c Candidate) {
	t.Helper()
	w = NewWorld(t)
	gitInit(t, w.Project)
	w.Write("proj/.claude/workflows/wfe2e.js", workflowScript(marker))
	w.Install()
	c = candidateAt(w, "workflow", "wfe2e.js", filepath.Join(w.Project, ".claude", "workflows"))
	return w, c
}

// runWorkflow has the model call Workflow(input) in a session whose
// client allows every tool itself (bypass mode), so that only a hook's
// answer can hold the call; it returns the script that ran ("" for none)
// and the client's debug log.
func runWorkflow(t *testing.T, w *World, input map[string]any) (ran, debug, results string) {
	t.Helper()
	m := model(t, []Reply{Call("Workflow", input)})
	r := w.Claude(m, Run{Prompt: "run the wfe2e workflow", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
	noTrouble(t, r)
	return ranScript(t, m), r.Debug, strings.Join(m.ToolResults()["Workflow"], "\n")
}

// A BLOCKed workflow called by its meta name is denied: the client never
// runs its script (no persisted copy holds its marker). Control: with
// skillwire's hooks uninstalled the same BLOCKed workflow runs.
func TestABlockedWorkflowIsDeniedAndItsScriptNeverRuns(t *testing.T) {
	t.Parallel()
	for _, uninstall := range []bool{false, true} {
		name := "denied"
		if uninstall {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, c := workflowWorld(t, "WORKFLOW-BLOCKED-5e1")
			w.MustSkillwire(nil, "record", c.ID, "--verdict", "BLOCK", "--expect-digest", c.Digest, "--reviewer", "e2e")
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			ran, debug, _ := runWorkflow(t, w, map[string]any{"name": "wfe2e"})
			if got := strings.Contains(ran, "WORKFLOW-BLOCKED-5e1"); got != uninstall {
				t.Fatalf("the BLOCKed workflow ran: %v, want %v", got, uninstall)
			}
			denied := strings.Contains(debug, `returned permissionDecision: deny (reason: workflow "wfe2e" (`+c.ID+`) was reviewed BLOCK`)
			if denied == uninstall {
				t.Errorf("denied by skillwire: %v, want %v", denied, !uninstall)
			}
		})
	}
}

// A workflow reviewed SAFE and edited since is asked (in -p the client
// answers an ask with a deny): the edited script does not run. Control:
// with the hooks uninstalled the edited script runs.
func TestAWorkflowEditedSinceItsReviewIsAsked(t *testing.T) {
	t.Parallel()
	for _, uninstall := range []bool{false, true} {
		name := "asked"
		if uninstall {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, c := workflowWorld(t, "WORKFLOW-v1-77c")
			w.MustSkillwire(nil, "record", c.ID, "--verdict", "SAFE-TO-PROPOSE", "--expect-digest", c.Digest, "--reviewer", "e2e")
			w.Write("proj/.claude/workflows/wfe2e.js", workflowScript("WORKFLOW-EDITED-9a0: agent('push to main')"))
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			ran, debug, results := runWorkflow(t, w, map[string]any{"name": "wfe2e"})
			if got := strings.Contains(ran, "WORKFLOW-EDITED-9a0"); got != uninstall {
				t.Fatalf("the edited workflow ran: %v, want %v", got, uninstall)
			}
			asked := strings.Contains(debug, `returned permissionDecision: ask (reason: workflow "wfe2e" (`+c.ID+`) is waiting for a review`)
			if asked == uninstall {
				t.Errorf("asked by skillwire: %v, want %v\n%s\n%s", asked, !uninstall, grepLines(debug, "permissionDecision"), results)
			}
		})
	}
}

// A script the call carries itself, named by nothing else, runs as it is:
// skillwire asks, the script quoted. Control: hooks uninstalled, it runs;
// and given with the name of a file, it is the file that runs (the
// client's permission check puts the file's script in its place), which
// is why the gate judges that file then (TestAWorkflowCallsInputIsJudgedWhateverItHolds).
func TestAWorkflowCallsOwnScriptIsAsked(t *testing.T) {
	t.Parallel()
	for _, uninstall := range []bool{false, true} {
		name := "asked"
		if uninstall {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, c := workflowWorld(t, "WORKFLOW-v1-0b2")
			w.MustSkillwire(nil, "record", c.ID, "--verdict", "SAFE-TO-PROPOSE", "--expect-digest", c.Digest, "--reviewer", "e2e")
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			inline := workflowScript("WORKFLOW-INLINE-c4d")
			ran, debug, results := runWorkflow(t, w, map[string]any{"script": inline})
			if got := strings.Contains(ran, "WORKFLOW-INLINE-c4d"); got != uninstall {
				t.Fatalf("the inline script ran: %v, want %v\n%s", got, uninstall, results)
			}
			asked := strings.Contains(debug, `returned permissionDecision: ask (reason: the workflow runs a script the call itself carries, "export const meta`)
			if asked == uninstall {
				t.Errorf("asked by skillwire: %v, want %v\n%s", asked, !uninstall, grepLines(debug, "permissionDecision"))
			}
			if !uninstall {
				return
			}
			ran, _, results = runWorkflow(t, w, map[string]any{"name": "wfe2e", "script": inline})
			if !strings.Contains(ran, "WORKFLOW-v1-0b2") || strings.Contains(ran, "WORKFLOW-INLINE-c4d") {
				t.Errorf("with a name, the client ran %q, want the named file's script\n%s", ran, results)
			}
		})
	}
}

// The client's own workflows are the ones skillwire knows (workflow.Builtins):
// a name of no workflow is refused by the client before any hook, its error
// listing the available ones, which in an empty project are the built-ins.
func TestAWorkflowOfNoFileIsOneOfTheClientsOwn(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	gitInit(t, w.Project)
	w.Install()
	m := model(t, []Reply{Call("Workflow", map[string]any{"name": "nosuch-e2e"})})
	r := w.Claude(m, Run{Prompt: "run it", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
	res := strings.Join(m.ToolResults()["Workflow"], "\n")
	if !strings.Contains(res, `Workflow "nosuch-e2e" not found. Available: deep-research`) {
		t.Errorf("the client's own workflows differ from workflow.Builtins: %q", res)
	}
	if RanFor(r.Debug, "PreToolUse", "Workflow", "pre-tool-use") {
		t.Errorf("the gate ran for a name the client refused first")
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A workflow's agent({agentType}) starts that agent (its body reaches the
// model) without any PreToolUse call: the gate never sees it, and judges
// only the workflow (a BLOCKed agent started this way is not denied; see
// docs/claude-code.md). Control: the same agent through the Agent tool is
// a PreToolUse call the gate answers.
func TestAWorkflowsAgentStartsWithoutAPreToolUseCall(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	gitInit(t, w.Project)
	w.Write("proj/.claude/agents/e2eagent.md", "---\nname: e2eagent\ndescription: e2e agent\n---\nAGENT-BODY-71c: you are the agent.\n")
	w.Write("proj/.claude/workflows/wfa.js", "export const meta = { name: 'wfa', description: 'd', phases: [{ title: 'one' }] }\n"+
		"const r = await agent('AGENT-PROMPT-1f2 say hi', { agentType: 'e2eagent' })\nreturn r\n")
	w.Install()
	run := Run{Prompt: "run it", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}}
	m := model(t, []Reply{Call("Workflow", map[string]any{"name": "wfa"}), Say("done"), Say("done")}, Say("hi"), Say("hi"))
	r := w.Claude(m, run)
	noTrouble(t, r)
	if !m.Sent("AGENT-BODY-71c") || !m.Sent("AGENT-PROMPT-1f2") {
		t.Fatalf("the workflow's agent did not run (results %q)", m.ToolResults())
	}
	if !RanFor(r.Debug, "PreToolUse", "Workflow", "pre-tool-use") || RanFor(r.Debug, "PreToolUse", "Agent", "pre-tool-use") {
		t.Errorf("PreToolUse ran for Workflow %v, for Agent %v; want only Workflow", RanFor(r.Debug, "PreToolUse", "Workflow", "pre-tool-use"), RanFor(r.Debug, "PreToolUse", "Agent", "pre-tool-use"))
	}
	m = model(t, []Reply{Agent("e2eagent", "say hi"), Say("done")}, Say("hi"))
	if r := w.Claude(m, run); !RanFor(r.Debug, "PreToolUse", "Agent", "pre-tool-use") {
		t.Errorf("control: the Agent tool's call of the same agent ran no PreToolUse hook")
	}
}
