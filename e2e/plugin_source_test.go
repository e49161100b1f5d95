//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

const pluginSourceEdit = "PLUGIN-SKILL-EDITED-3f8e: the marketplace folder, edited after the review."

// A directory marketplace's folder is watched as its plugin, and its edit
// told and held (issue 22). The plugin loads from the marketplace's folder
// (TestADirectoryMarketplacePluginLoadsFromItsSourceNotTheCache). So
// skillwire watches that folder as the plugin "plug@mkt". Recorded
// SAFE-TO-PROPOSE, an edit of its skill there is told at the next session as
// pending that review. The skill's use is then asked, which -p refuses.
// Recorded BLOCK, its use is denied. Diff and history show the edit against
// the recorded bytes. Control: without skillwire's hooks the edited body
// reaches the model.
func TestAnEditedMarketplaceFolderIsToldAndHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, verdict string
		hooks         bool
	}{
		{"reviewed then edited", "SAFE-TO-PROPOSE", true},
		{"blocked then edited", "BLOCK", true},
		{"control: hooks uninstalled", "SAFE-TO-PROPOSE", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			installPlugin(w)
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			c := w.Record("plugin", "plug@mkt", tc.verdict)
			w.Write("market/plug/skills/ps/SKILL.md",
				"---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+pluginSourceEdit+"\n")
			if !tc.hooks {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m := model(t, []Reply{Skill("plug:ps")}, Say("done."))
			r := w.Claude(m, Run{Prompt: "run the ps skill"})
			if got := m.Sent(pluginSourceEdit); got == tc.hooks {
				t.Errorf("the edited body reached the model: %v, want %v (results %q)", got, !tc.hooks, m.ToolResults())
			}
			if !tc.hooks {
				return
			}
			res := strings.Join(m.ToolResults()["Skill"], "\n")
			want := `pending a new review: global plugin \"plug@mkt\"`
			if tc.verdict == "BLOCK" {
				want = `global plugin \"plug@mkt\"`
				if !strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK") {
					t.Errorf("the model was not told of skillwire's deny: %q", res)
				}
			} else if d := r.Denials(); len(d) != 1 || d[0] != "Skill" {
				t.Errorf("permission denials %q, want the asked Skill call", d)
			}
			if !m.Sent(want) {
				t.Errorf("the session was not told %s", want)
			}
			if out := w.MustSkillwire([]int{0, 3}, "diff", c.ID); !strings.Contains(out, "+"+pluginSourceEdit) || !strings.Contains(out, "-"+pluginSkillBody) {
				t.Errorf("skillwire diff does not show the edit of the marketplace folder:\n%s", out)
			}
			if out := w.MustSkillwire([]int{0, 3}, "history", c.ID); !strings.Contains(out, "session") || !strings.Contains(out, "+0 -0 ~1") {
				t.Errorf("skillwire history does not keep the edited version:\n%s", out)
			}
			noTrouble(t, r)
		})
	}
}
