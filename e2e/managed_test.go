//go:build e2e

package e2e

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clientManagedDir is where Claude Code on Linux reads managed settings. The
// client has no switch to read them elsewhere. So this case writes the
// machine's own, as root, and only skillwire's drop-in, removed after.
const clientManagedDir = "/etc/claude-code"

// 7. Hooks installed with `hook install --managed` hold where a project
// disables hooks. One line in a cloned project, {"disableAllHooks": true},
// switches off every user-level skillwire hook. The BLOCKed skill then loads.
// The managed hooks still run there, and deny it. Not parallel: the managed
// drop-in is the machine's. Every parallel case waits until this one has
// removed it.
func TestManagedHooksHoldWhereAProjectSwitchesHooksOff(t *testing.T) {
	dropIn := managedDropIn(t, "skillwire.json")
	for _, managed := range []bool{true, false} {
		name := "managed hooks"
		if !managed {
			name = "control: user hooks only"
		}
		t.Run(name, func(t *testing.T) {
			w := blockedWorld(t, true)
			w.Write("proj/.claude/settings.json", `{"disableAllHooks": true}`)
			if managed {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				env := w.Env
				w.Env = append(append([]string{}, w.Env...), "SKILLWIRE_MANAGED_DIR="+clientManagedDir)
				w.Install("--managed")
				w.Env = env
				t.Cleanup(func() {
					w.Env = append(append([]string{}, env...), "SKILLWIRE_MANAGED_DIR="+clientManagedDir)
					w.Skillwire("hook", "uninstall", "--managed", "--yes")
					removeOurs(t, dropIn)
				})
			}
			m := model(t, []Reply{Skill("evil")})
			r := w.Claude(m, Run{Prompt: "go"})
			res := strings.Join(m.ToolResults()["Skill"], "\n")
			if got := m.Sent(evilBody); got == managed {
				t.Errorf("the BLOCKed body reached the model: %v, want %v (%q)", got, !managed, res)
			}
			if managed && (!strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK")) {
				t.Errorf("not denied by the managed hook: %q", res)
			}
			if !managed && Ran(r.Debug, "PreToolUse", "pre-tool-use") {
				t.Errorf("the client ran a user hook under the project's disableAllHooks: the premise changed")
			}
		})
	}
}

// managedDropIn is the path of the managed settings drop-in name, which a
// case may write. It runs as root. The machine has no such drop-in of its
// own, and the case never touches one.
func managedDropIn(t *testing.T, name string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this case writes Claude Code's managed settings in /etc/claude-code and must run as root (CI does)")
	}
	dropIn := filepath.Join(clientManagedDir, "managed-settings.d", name)
	if _, err := os.Lstat(dropIn); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s exists already (%v): the case will not touch it", dropIn, err)
	}
	return dropIn
}

// removeOurs removes the drop-in and the backups skillwire made of it. It
// removes the directories if they are left empty. Nothing else is touched.
func removeOurs(t *testing.T, dropIn string) {
	matches, _ := filepath.Glob(dropIn + "*")
	for _, p := range matches {
		if err := os.Remove(p); err != nil {
			t.Errorf("cleaning up %s: %v", p, err)
		}
	}
	_ = os.Remove(filepath.Dir(dropIn)) // only when empty
	_ = os.Remove(clientManagedDir)
}
