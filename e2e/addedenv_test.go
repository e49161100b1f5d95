//go:build e2e

package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A relaunched client's folders from CLAUDE_RELAUNCH_SESSION_ADD_DIRS are
// read like --add-dir. The added folder's skill is told at the session start.
// The built-in name it serves is judged as new (asked; -p denies it). The
// client adds them from that variable, not its command line. Its debug log
// says "Adding 1 directory with destination 'session'". Control: with the
// hooks uninstalled the folder's simplify runs.
func TestFoldersARelaunchedClientAddsAreObserved(t *testing.T) {
	t.Parallel()
	bothWays(t, "observed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Skill("extra/.claude/skills", "simplify", builtinBody)
		dirs, _ := json.Marshal([]string{filepath.Join(w.Root, "extra")})
		env := []string{"CLAUDE_RELAUNCH_SESSION_ADD_DIRS=" + string(dirs)}
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{Skill("simplify")})
		r := w.Claude(m, Run{Prompt: "simplify", Env: env})
		noTrouble(t, r)
		if !strings.Contains(r.Debug, "destination 'session'") {
			t.Fatal("the client did not add the folder from its environment: the case pins nothing")
		}
		if told := strings.Contains(advisory(m), `added skill "simplify"`); told == uninstall {
			t.Errorf("the relaunch folder's skill told: %v\n%s", told, advisory(m))
		}
		if got := m.Sent(builtinBody); got != uninstall {
			t.Errorf("the folder's simplify ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
		}
	})
}

// An added folder skillwire cannot prove is held by what its name may load. A
// skill of it recorded BLOCK is denied as BLOCKed by name, never merely
// asked: a person could allow an ask over the BLOCK. A built-in name is
// asked. --worktree moves the client into proj/.claude/worktrees/wt1 after it
// read a relative --add-dir against proj. So skillwire cannot prove which
// folder ../extra named, and tells it. Control: with the hooks uninstalled
// the BLOCKed body and the folder's simplify run.
func TestAWorktreeSessionsRelativeAddedFolderIsHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, skill, body string }{{"blocked", "added", addedBody}, {"builtin", "simplify", builtinBody}} {
		bothWays(t, tc.name, tc.name+", control: hooks uninstalled", func(t *testing.T, uninstall bool) {
			w := NewWorld(t)
			gitInit(t, w.Project)
			w.Write("proj/README", "x")
			gitIn(t, w.Project, "add", ".")
			gitIn(t, w.Project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x")
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			w.Skill("extra/.claude/skills", tc.skill, tc.body)
			if tc.skill == "added" {
				m := model(t, nil)
				w.Claude(m, Run{Prompt: "hello", Args: []string{"--add-dir", "../extra"}})
				if !strings.Contains(advisory(m), `added skill "added"`) {
					t.Fatalf("the added folder was not observed without --worktree:\n%s", advisory(m))
				}
				w.Record("skill", "added", "BLOCK")
			}
			if uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m := model(t, []Reply{Skill(tc.skill)})
			r := w.Claude(m, Run{Prompt: "use it", Args: []string{"--worktree", "wt1", "--add-dir", "../extra"}})
			if !strings.Contains(r.Debug, "Created worktree at:") {
				t.Fatal("the client made no worktree: the case pins nothing")
			}
			if got := m.Sent(tc.body); got != uninstall {
				t.Fatalf("the added folder's body ran: %v, want %v (results %q)", got, uninstall, m.ToolResults())
			}
			if uninstall {
				return
			}
			if !strings.Contains(advisory(m), "cannot observe every folder this session added") {
				t.Errorf("not told:\n%s", advisory(m))
			}
			res := strings.Join(m.ToolResults()["Skill"], "\n")
			// The client words the denied tool result in more than one way
			// here (with and without "hook error"). skillwire's answer is the
			// deny its debug log records.
			denied := strings.Contains(r.Debug, "returned permissionDecision: deny (reason: the skill \"added\" is none that skillwire has observed, and is held as BLOCKed")
			if tc.skill == "added" && (!denied || !strings.Contains(res, "held as BLOCKed")) {
				t.Errorf("not denied as BLOCKed: %q", res)
			}
		})
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
