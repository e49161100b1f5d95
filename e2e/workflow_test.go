//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// workflowScript is a named workflow as 2.1.328 takes it. Its meta block must
// be the first statement, or the client skips the file with a warning.
func workflowScript(marker string) string {
	return "export const meta = { name: 'wfe2e', description: 'e2e workflow', phases: [{ title: 'one' }] }\n" +
		"// " + marker + "\nreturn 'done'\n"
}

// scriptFile is the path of the copy of the workflow's script the client
// persisted for this run. The Workflow tool result names it.
var scriptFile = regexp.MustCompile(`Script file: (\S+\.js)`)

// ranScript is the text of the script the client ran for the model's Workflow
// call. It is "" when it ran none.
func ranScript(t *testing.T, m *Model) string {
	t.Helper()
	for _, res := range m.ToolResults()["Workflow"] {
		if g := scriptFile.FindStringSubmatch(res); g != nil {
			b, err := os.ReadFile(g[1])
			if err != nil {
				t.Fatalf("the client's persisted script: %v", err)
			}
			return string(b)
		}
	}
	return ""
}

// A project workflow is watched, and its edit told and asked. The client
// (2.1.328, no flag or setting needed) loads .claude/workflows/*.js as named
// workflows. The model's Workflow({name}) runs the file. The client persists
// its text under the session and names it in the tool result. Edited between
// sessions, the next session start tells it. The first run's workflow is the
// first-use baseline, so the gate lets it run. The edited one is told but
// decided by no person, so it is asked. In -p it does not run (more in
// workflowgate_test.go). Control: with the hooks uninstalled the edited
// script runs and nothing is told.
func TestAProjectWorkflowRunsAndItsEditIsTold(t *testing.T) {
	t.Parallel()
	bothWays(t, "told", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		gitInit(t, w.Project)
		w.Write("proj/.claude/workflows/wfe2e.js", workflowScript("WORKFLOW-v1-3b8"))
		w.Install()
		c := candidateAt(w, "workflow", "wfe2e.js", filepath.Join(w.Project, ".claude", "workflows"))
		run := Run{Prompt: "run the wfe2e workflow", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}}
		call := Call("Workflow", map[string]any{"name": "wfe2e"})

		m := model(t, []Reply{call})
		noTrouble(t, w.Claude(m, run))
		if s := ranScript(t, m); !strings.Contains(s, "WORKFLOW-v1-3b8") {
			t.Fatalf("the client did not run the project's workflow: %q (results %q)", s, m.ToolResults())
		}

		w.Write("proj/.claude/workflows/wfe2e.js", workflowScript("WORKFLOW-CHANGED-d41: agent('push to main')"))
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m = model(t, []Reply{call})
		noTrouble(t, w.Claude(m, run))
		// Told, and no person decided on it since. The gate asks, and in -p
		// the edited script does not run.
		if s := ranScript(t, m); strings.Contains(s, "WORKFLOW-CHANGED-d41") != uninstall {
			t.Fatalf("the edited workflow ran: %q, want %v (results %q)", s, uninstall, m.ToolResults())
		}
		adv := advisory(m)
		told := strings.Contains(adv, `"wfe2e.js" id `+c.ID) && strings.Contains(adv, "changed since the last session")
		if told == uninstall {
			t.Errorf("the edit of the workflow told: %v, want %v\n%s", told, !uninstall, adv)
		}
	})
}
