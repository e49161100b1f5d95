//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A marketplace entry's inline SessionStart hook (plug's folder untouched)
// is run by the client at the next session, and skillwire's advisory
// tells it by what it runs: "marketplace entry: new SessionStart hook
// runs "touch …"" of plug@mkt, not only that the plugin changed; another
// plugin's entry and plug's description, edited in the same file, are no
// change of it (issue #22). Control: skillwire's hooks uninstalled, the
// hook runs and nothing is told.
func TestAMarketplaceEntrysNewHookIsToldByItsCommand(t *testing.T) {
	t.Parallel()
	for _, hooks := range []bool{true, false} {
		name := "hooks installed"
		if !hooks {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			installPlugin(w)
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			// Noise alone: plug's description and another plugin's entry.
			w.Write("market/.claude-plugin/marketplace.json",
				`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"edited"},{"name":"other","source":"./other"}]}`)
			quiet := model(t, nil)
			w.Claude(quiet, Run{Prompt: "hello"})
			if hooks && quiet.Sent(`plug@mkt`) {
				t.Errorf("noise of the marketplace.json was told as a change of plug@mkt")
			}
			marker := filepath.Join(w.Root, "entry-hook-ran")
			w.Write("market/.claude-plugin/marketplace.json",
				`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"edited",`+
					`"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}},{"name":"other","source":"./other"}]}`)
			if !hooks {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m := model(t, nil)
			r := w.Claude(m, Run{Prompt: "hello"})
			ran := false
			for _, h := range HookRuns(r.Debug) {
				ran = ran || h.Event == "SessionStart" && strings.Contains(h.Command, "touch "+marker) && h.Status == 0
			}
			if _, err := os.Stat(marker); err != nil || !ran {
				t.Fatalf("the entry's hook did not run (debug log %v, marker %v): the finding is not reproduced", ran, err)
			}
			fact := `global plugin "plug@mkt"`
			if told := m.Sent(fact) && m.Sent(`marketplace entry: new SessionStart hook runs "touch `+marker+`"`); told != hooks {
				t.Errorf("the session was told the entry's new hook by its command: %v, want %v", told, hooks)
			}
			if !hooks && m.Sent("marketplace entry") {
				t.Error("without skillwire's hooks something was told")
			}
			noTrouble(t, r)
		})
	}
}
