//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A marketplace entry's hook is bound into its plugin (issue #22). The client
// applies a plugin's marketplace.json entry to the plugin. A SessionStart
// hook written into plug's entry, its folder untouched, runs at the next
// session as "(plugin plug@mkt)". skillwire binds the marketplace.json into
// the candidate plug@mkt. plug@mkt was recorded SAFE-TO-PROPOSE. The edited
// entry makes it pending that review at the next session. Its skill's use is
// asked (refused under -p), and scan exits 3. Control: hooks uninstalled, the
// hook runs and the skill loads, nothing told.
func TestAMarketplaceEntrysHooksAreBoundIntoItsPlugin(t *testing.T) {
	t.Parallel()
	bothWays(t, "hooks installed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		hooks := !uninstall
		w := NewWorld(t)
		installPlugin(w)
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Record("plugin", "plug@mkt", "SAFE-TO-PROPOSE")
		marker := filepath.Join(w.Root, "marker")
		w.Write("market/.claude-plugin/marketplace.json",
			`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"an e2e plugin",`+
				`"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}]}`)
		if !hooks {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{Skill("plug:ps")}, Say("done."))
		r := w.Claude(m, Run{Prompt: "run the ps skill"})
		ran := false
		for _, h := range HookRuns(r.Debug) {
			ran = ran || h.Event == "SessionStart" && strings.Contains(h.Command, "touch "+marker) && h.Status == 0
		}
		if _, err := os.Stat(marker); err != nil || !ran {
			t.Fatalf("the entry's hook did not run (debug log %v, marker %v): the finding is not reproduced", ran, err)
		}
		told := m.Sent(`pending a new review: global plugin \"plug@mkt\"`)
		if told != hooks {
			t.Errorf("the session was told plug@mkt is pending: %v, want %v", told, hooks)
		}
		if got := m.Sent(pluginSkillBody); got == hooks {
			t.Errorf("the skill's body reached the model: %v, want %v (results %q)", got, !hooks, m.ToolResults())
		}
		if !hooks {
			return
		}
		if d := r.Denials(); len(d) != 1 || d[0] != "Skill" {
			t.Errorf("permission denials %q, want the asked Skill call", d)
		}
		if out := w.MustSkillwire([]int{3}, "scan"); !strings.Contains(out, "plug@mkt") {
			t.Errorf("scan does not name plug@mkt:\n%s", out)
		}
		if out := w.MustSkillwire([]int{0, 3}, "diff", w.Candidate("plugin", "plug@mkt").ID); !strings.Contains(out, "marketplace.json") {
			t.Errorf("diff does not name the marketplace.json:\n%s", out)
		}
		noTrouble(t, r)
	})
}
