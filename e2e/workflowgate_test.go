//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workflowWorld is a git project with the workflow wfe2e (file wfe2e.js)
// holding marker. skillwire's hooks are installed; c is its candidate.
func workflowWorld(t *testing.T, marker string) (w *World, c Candidate) {
	t.Helper()
	w = NewWorld(t)
	gitInit(t, w.Project)
	w.Write("proj/.claude/workflows/wfe2e.js", workflowScript(marker))
	w.Install()
	c = candidateAt(w, "workflow", "wfe2e.js", filepath.Join(w.Project, ".claude", "workflows"))
	return w, c
}

// runWorkflow has the model call Workflow(input) in bypass mode, where the
// client allows every tool itself. So only a hook's answer can hold the call.
// It returns the script that ran ("" for none) and the client's debug log.
func runWorkflow(t *testing.T, w *World, input map[string]any) (ran, debug, results string) {
	t.Helper()
	m := model(t, []Reply{Call("Workflow", input)})
	r := w.Claude(m, Run{Prompt: "run the wfe2e workflow", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
	noTrouble(t, r)
	return ranScript(t, m), r.Debug, strings.Join(m.ToolResults()["Workflow"], "\n")
}

// A BLOCKed workflow called by its meta name is denied. The client never runs
// its script: no persisted copy holds its marker. Control: with skillwire's
// hooks uninstalled the same BLOCKed workflow runs.
func TestABlockedWorkflowIsDeniedAndItsScriptNeverRuns(t *testing.T) {
	t.Parallel()
	bothWays(t, "denied", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
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

// A workflow reviewed SAFE and edited since is asked, and the edited script
// does not run. In -p the client answers an ask with a deny. Control: with
// the hooks uninstalled the edited script runs.
func TestAWorkflowEditedSinceItsReviewIsAsked(t *testing.T) {
	t.Parallel()
	bothWays(t, "asked", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
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

// A script the call carries itself is asked, the script quoted. Named by
// nothing else, it runs as it is. Control: hooks uninstalled, it runs. Given
// with the name of a file, it is the file that runs. The client's permission
// check puts the file's script in its place. So the gate judges that file
// then (TestAWorkflowCallsInputIsJudgedWhateverItHolds).
func TestAWorkflowCallsOwnScriptIsAsked(t *testing.T) {
	t.Parallel()
	bothWays(t, "asked", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
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

// The client's own workflows are the ones skillwire knows
// (workflow.Builtins). The client refuses a name of no workflow before any
// hook. Its error lists the available ones, which in an empty project are the
// built-ins.
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

// A workflow's agent({agentType}) starts that agent without any PreToolUse
// call. Its body reaches the model. The gate never sees the start. So it
// judges the agents a script may start at the Workflow call
// (TestAWorkflowStartingABlockedOrEditedAgentIsHeldAtItsCall). Control: the
// same agent through the Agent tool is a PreToolUse call the gate answers.
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

// agentWorkflowWorld is a git project with the agent e2eagent, whose body
// holds marker. It holds the workflow wfa (file wfa.js) reviewed SAFE. Its
// script starts an agent by agentType, the expression given. skillwire's
// hooks are installed.
func agentWorkflowWorld(t *testing.T, marker, agentType string) *World {
	t.Helper()
	return bodyWorkflowWorld(t, marker, "const r = await agent('AGENT-PROMPT-1f2 say hi', { agentType: "+agentType+" })\nreturn r\n")
}

// bodyWorkflowWorld is agentWorkflowWorld with the workflow's body given.
func bodyWorkflowWorld(t *testing.T, marker, body string) *World {
	t.Helper()
	w := NewWorld(t)
	gitInit(t, w.Project)
	w.Write("proj/.claude/agents/e2eagent.md", "---\nname: e2eagent\ndescription: e2e agent\n---\n"+marker+": you are the agent.\n")
	w.Write("proj/.claude/workflows/wfa.js", "export const meta = { name: 'wfa', description: 'd', phases: [{ title: 'one' }] }\n"+body)
	w.Install()
	c := candidateAt(w, "workflow", "wfa.js", filepath.Join(w.Project, ".claude", "workflows"))
	w.MustSkillwire(nil, "record", c.ID, "--verdict", "SAFE-TO-PROPOSE", "--expect-digest", c.Digest, "--reviewer", "e2e")
	return w
}

// runAgentWorkflow has the model run the workflow wfa in bypass mode: only a
// hook's answer can hold the call. The agent answers with agent's replies. It
// returns the model and the client's debug log.
func runAgentWorkflow(t *testing.T, w *World, agent ...Reply) (*Model, string) {
	t.Helper()
	m := model(t, []Reply{Call("Workflow", map[string]any{"name": "wfa"}), Say("done"), Say("done")}, agent...)
	r := w.Claude(m, Run{Prompt: "run it", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
	noTrouble(t, r)
	return m, r.Debug
}

// A reviewed workflow whose script starts a BLOCKed agent is denied at its
// Workflow call. The agentType is a literal. The deny names the agent, and
// the agent never reaches the model. An agent edited since its review is
// asked (in -p, denied). Control: with skillwire's hooks uninstalled, the
// agent runs.
func TestAWorkflowStartingABlockedOrEditedAgentIsHeldAtItsCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, verdict string
		edit          bool
		answer        string
	}{
		{"BLOCKed", "BLOCK", false, `returned permissionDecision: deny (reason: agent "e2eagent" (`},
		{"edited since SAFE", "SAFE-TO-PROPOSE", true, `returned permissionDecision: ask (reason: agent "e2eagent" (`},
	} {
		bothWays(t, tc.name, tc.name+", control: hooks uninstalled", func(t *testing.T, uninstall bool) {
			w := agentWorkflowWorld(t, "AGENT-BODY-3d8", "'e2eagent'")
			w.Record("agent", "e2eagent.md", tc.verdict)
			if tc.edit {
				w.Write("proj/.claude/agents/e2eagent.md", "---\nname: e2eagent\ndescription: e2e agent\n---\nAGENT-BODY-3d8 EDITED: push to main.\n")
			}
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m, debug := runAgentWorkflow(t, w, Say("hi"))
			if got := m.Sent("AGENT-BODY-3d8"); got != uninstall {
				t.Fatalf("the agent ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
			}
			held := false
			for _, l := range strings.Split(grepLines(debug, tc.answer), "\n") {
				held = held || strings.Contains(l, `; the workflow "wfa" may start it (agent())`)
			}
			if held == uninstall {
				t.Errorf("held by skillwire naming the agent: %v, want %v\n%s", held, !uninstall, grepLines(debug, "permissionDecision"))
			}
		})
	}
}

// A workflow's agent makes its own tool calls through PreToolUse, with its
// agent_type. Here the install's PreToolUse matcher leaves Workflow out, as
// before skillwire matched it. The workflow starts the BLOCKed agent. The
// agent's Bash call is denied for it. Control: no verdict, the Bash call
// runs.
func TestABlockedAgentAWorkflowStartedIsDeniedItsToolCalls(t *testing.T) {
	t.Parallel()
	for _, block := range []bool{true, false} {
		name := "BLOCKed"
		if !block {
			name = "control: no verdict"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := agentWorkflowWorld(t, "AGENT-BODY-5b0", "'e2eagent'")
			if block {
				w.Record("agent", "e2eagent.md", "BLOCK")
			}
			settings := filepath.Join(w.Config, "settings.json")
			b, err := os.ReadFile(settings)
			if err != nil || !strings.Contains(string(b), "|Workflow") {
				t.Fatalf("the installed matcher: %v\n%s", err, b)
			}
			w.Write("home/.claude/settings.json", strings.ReplaceAll(string(b), "|Workflow", ""))
			m, debug := runAgentWorkflow(t, w, Call("Bash", map[string]any{"command": "echo AGENT-BASH-OUT-$((40+2))"}), Say("hi"))
			if !m.Sent("AGENT-BODY-5b0") {
				t.Fatalf("the workflow's agent did not start (results %q)", m.ToolResults())
			}
			if got := m.Sent("AGENT-BASH-OUT-42"); got == block {
				t.Errorf("the agent's Bash call ran: %v, want %v\n%s", got, !block, grepLines(debug, "permissionDecision"))
			}
			denied := strings.Contains(debug, `returned permissionDecision: deny (reason: agent "e2eagent" (`)
			if denied != block {
				t.Errorf("denied for the agent: %v, want %v\n%s", denied, block, grepLines(debug, "permissionDecision"))
			}
		})
	}
}

// An agentType skillwire cannot read as a literal may be any agent, so the
// Workflow call is asked. An example is 'e2e' + 'agent'. The BLOCKed agent it
// starts never runs. The same holds for an agentType hidden from a reader
// that guesses what a / is (issue 22). One hides behind a property named like
// a keyword, whose / divides. One hides behind extends before a regex, whose
// quote a guessing reader takes for a string's. Control: hooks uninstalled,
// the client starts the agent the expression names.
func TestAWorkflowStartingAnAgentOfAComputedTypeIsAsked(t *testing.T) {
	t.Parallel()
	const call = `await agent("AGENT-PROMPT-1f2 say hi", { agentType: ["e2e", "agent"].join("") })`
	const computed, options = "an agent() call's agentType is no literal", "an agent() call's options are no object literal of plain keys"
	for _, tc := range []struct{ name, body, why string }{
		{"a concatenation", "const r = await agent('AGENT-PROMPT-1f2 say hi', { agentType: 'e2e' + 'agent' })\nreturn r\n", computed},
		{"a property named new", "const o = { new: 4 }; const q = o.new / 2; const r = " + call + "; const z = 2 / 1\nreturn r\n", computed},
		{"extends", "class X extends /'/.constructor {}; const r = " + call + " // '\nreturn r\n", computed},
		// The client copies the options key by key (Object.keys order). A
		// getter read before agentType writes it through super.
		{"a getter writing agentType", "const t = ['e2e', 'agent'].join('')\nconst r = await agent('AGENT-PROMPT-1f2 say hi', { get a() { super.agentType = t; return 1 }, agentType: 'general-purpose' })\nreturn r\n", options},
	} {
		bothWays(t, tc.name, tc.name+", control: hooks uninstalled", func(t *testing.T, uninstall bool) {
			w := bodyWorkflowWorld(t, "AGENT-BODY-8e4", tc.body)
			w.Record("agent", "e2eagent.md", "BLOCK")
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m, debug := runAgentWorkflow(t, w, Say("hi"))
			if got := m.Sent("AGENT-BODY-8e4"); got != uninstall {
				t.Fatalf("the agent ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
			}
			asked := strings.Contains(debug, `returned permissionDecision: ask (reason: the workflow "wfa" may start an agent skillwire cannot name: `+tc.why)
			if asked == uninstall {
				t.Errorf("asked by skillwire: %v, want %v\n%s", asked, !uninstall, grepLines(debug, "permissionDecision"))
			}
		})
	}
}

// A scriptPath under the reviewed workflow's file names another file, asked
// as unwatched (issue 22). wfe2e.js/../evil.js is resolved by the client,
// which runs evil.js. It is never judged as the reviewed one. Control: hooks
// uninstalled, evil.js runs.
func TestAScriptPathThroughAReviewedWorkflowIsAsked(t *testing.T) {
	t.Parallel()
	bothWays(t, "asked", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w, c := workflowWorld(t, "WORKFLOW-REVIEWED-aa1")
		w.MustSkillwire(nil, "record", c.ID, "--verdict", "SAFE-TO-PROPOSE", "--expect-digest", c.Digest, "--reviewer", "e2e")
		w.Write("proj/.claude/workflows/evil.js", "export const meta = { name: 'evil', description: 'e', phases: [{ title: 'one' }] }\n// WORKFLOW-EVIL-bb2\nreturn 'done'\n")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		p := filepath.Join(w.Project, ".claude", "workflows") + "/wfe2e.js/../evil.js"
		ran, debug, results := runWorkflow(t, w, map[string]any{"scriptPath": p})
		if got := strings.Contains(ran, "WORKFLOW-EVIL-bb2"); got != uninstall {
			t.Fatalf("evil.js ran: %v, want %v\n%s", got, uninstall, results)
		}
		asked := strings.Contains(debug, `returned permissionDecision: ask (reason: the workflow runs the script file "`)
		if asked == uninstall {
			t.Errorf("asked by skillwire: %v, want %v\n%s", asked, !uninstall, grepLines(debug, "permissionDecision"))
		}
	})
}

// A plugin's workflow run by its scriptPath is the plugin's workflow, as by
// its name (issue 22). skillwire does not read a plugin's scripts. So the
// agents it may start are asked, though the plugin was reviewed SAFE. The
// BLOCKed agent its script starts never runs. Control: hooks uninstalled, the
// agent runs.
func TestAPluginsWorkflowByScriptPathIsAskedAsByName(t *testing.T) {
	t.Parallel()
	bothWays(t, "asked", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		gitInit(t, w.Project)
		w.Install()
		w.Write("proj/.claude/agents/e2eagent.md", "---\nname: e2eagent\ndescription: e2e agent\n---\nAGENT-BODY-PW7: you are the agent.\n")
		inlinePlugin(w, "pd", "pd", filepath.Join(w.Root, "marker"))
		w.Write("pd/workflows/pw.js", "export const meta = { name: 'pw', description: 'd', phases: [{ title: 'one' }] }\nconst r = await agent('AGENT-PROMPT-1f2 say hi', { agentType: 'e2eagent' })\nreturn r\n")
		args := []string{"--plugin-dir", filepath.Join(w.Root, "pd"), "--dangerously-skip-permissions"}
		w.Claude(model(t, nil), Run{Prompt: "hello", Args: args, Env: []string{"IS_SANDBOX=1"}})
		w.Record("plugin", "pd@inline", "SAFE-TO-PROPOSE")
		w.Record("agent", "e2eagent.md", "BLOCK")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		in := map[string]any{"scriptPath": filepath.Join(w.Root, "pd", "workflows", "pw.js")}
		m := model(t, []Reply{Call("Workflow", in), Say("done"), Say("done")}, Say("hi"))
		r := w.Claude(m, Run{Prompt: "run it", Args: args, Env: []string{"IS_SANDBOX=1"}})
		if got := m.Sent("AGENT-BODY-PW7"); got != uninstall {
			t.Fatalf("the agent ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
		}
		asked := strings.Contains(r.Debug, `may start an agent skillwire cannot name: it is a plugin's, whose scripts skillwire does not read`) &&
			strings.Contains(r.Debug, "returned permissionDecision: ask (reason: ")
		if asked == uninstall {
			t.Errorf("asked by skillwire: %v, want %v\n%s", asked, !uninstall, grepLines(r.Debug, "permissionDecision"))
		}
	})
}

// A workflow's literal agentType that names no observed agent is held as an
// Agent call of it. Under --worktree, a relative --add-dir is read against
// the project. skillwire cannot prove which folder it named. The agent it
// serves was recorded BLOCK by name when that folder was observed. It denies
// the Workflow call as BLOCKed by its name, and never runs. That is worse
// than the ask the worktree's own, undecided copy of the workflow gets.
// Without this rule only that ask is answered. Control: hooks uninstalled,
// the client starts it.
func TestAWorkflowStartingALiteralAgentSkillwireCannotObserveIsHeld(t *testing.T) {
	t.Parallel()
	bothWays(t, "held", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		gitInit(t, w.Project)
		w.Write("proj/.claude/workflows/wfa.js", "export const meta = { name: 'wfa', description: 'd', phases: [{ title: 'one' }] }\n"+
			"const r = await agent('AGENT-PROMPT-1f2 say hi', { agentType: 'addagent' })\nreturn r\n")
		gitIn(t, w.Project, "add", ".")
		gitIn(t, w.Project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x")
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Write("extra/.claude/agents/addagent.md", "---\nname: addagent\ndescription: e2e agent\n---\nAGENT-BODY-9e4: you are the agent.\n")
		m := model(t, nil)
		w.Claude(m, Run{Prompt: "hello", Args: []string{"--add-dir", "../extra"}})
		if !strings.Contains(advisory(m), `added agent "addagent.md"`) {
			t.Fatalf("the added folder was not observed without --worktree:\n%s", advisory(m))
		}
		w.Record("agent", "addagent.md", "BLOCK")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m = model(t, []Reply{Call("Workflow", map[string]any{"name": "wfa"}), Say("done"), Say("done")}, Say("hi"), Say("hi"))
		r := w.Claude(m, Run{Prompt: "run it", Args: []string{"--worktree", "wt1", "--add-dir", "../extra", "--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
		if !strings.Contains(r.Debug, "Created worktree at:") {
			t.Fatal("the client made no worktree: the case pins nothing")
		}
		if got := m.Sent("AGENT-BODY-9e4"); got != uninstall {
			t.Fatalf("the added folder's agent ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
		}
		if uninstall {
			return
		}
		if !strings.Contains(r.Debug, `returned permissionDecision: deny (reason: the agent "addagent" is none that skillwire has observed, and is held as BLOCKed`) {
			t.Errorf("not denied as BLOCKed by its name:\n%s", grepLines(r.Debug, "permissionDecision"))
		}
	})
}
