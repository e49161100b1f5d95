//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

const (
	onceBody   = "PLUGIN-ONCE-BODY-71c: the in-place folder's skill."
	cacheEdit  = "PLUGIN-ONCE-CACHE-EDIT-2e9: the cache copy, edited."
	sourceEdit = "PLUGIN-ONCE-SOURCE-EDIT-8d4: the in-place folder, edited."
)

// ccMarket lays out a local marketplace as anthropics/claude-code's is:
// entries "./plugins/NAME", three plugins, and installs two of them with the
// client's own commands. The client copies each into its cache too.
func ccMarket(w *World) {
	w.t.Helper()
	w.Write("cc/.claude-plugin/marketplace.json", `{"name":"ccp","owner":{"name":"e2e"},"plugins":[`+
		`{"name":"one","source":"./plugins/one"},{"name":"two","source":"./plugins/two"},{"name":"three","source":"./plugins/three"}]}`)
	for _, n := range []string{"one", "two", "three"} {
		w.Write("cc/plugins/"+n+"/.claude-plugin/plugin.json", `{"name":"`+n+`","version":"1.0.0"}`)
		w.Write("cc/plugins/"+n+"/skills/ps/SKILL.md", "---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+onceBody+"\n")
	}
	w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "cc"))
	w.ClaudeCmd("plugin", "install", "one@ccp")
	w.ClaudeCmd("plugin", "install", "two@ccp")
	if !Exists(filepath.Join(w.Config, "plugins/cache/ccp/one/1.0.0/skills/ps/SKILL.md")) {
		w.t.Fatal("the client made no cache copy: the case no longer tests what it says")
	}
}

// A directory marketplace's plugin is counted once, where the client loads
// it (issue 32: 12 installed plugins were "24 plugins"). skillwire counted
// both the marketplace's folder and the cache copy the install wrote. The
// client loads the folder and never the copy. So the first session tells
// the model and the person "2 plugins", list and status show each plugin
// once by its plugin@marketplace, and an edit of the cache copy is neither
// served nor told. Control: the same edit in the marketplace's folder is
// served and told, as that plugin's.
func TestADirectoryMarketplacesPluginIsCountedOnceWhereTheClientLoadsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, edit, body string
		told             bool
	}{
		{"the cache copy edited", "home/.claude/plugins/cache/ccp/one/1.0.0/skills/ps/SKILL.md", cacheEdit, false},
		{"control: the marketplace's folder edited", "cc/plugins/one/skills/ps/SKILL.md", sourceEdit, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			ccMarket(w)
			w.Install()
			m := model(t, nil)
			r := w.Claude(m, Run{Prompt: "hello"})
			noTrouble(t, r)
			if a := advisory(m); !strings.Contains(a, "accepted 2 plugins,") {
				t.Errorf("the model was not told 2 plugins:\n%s", a)
			}
			if !strings.Contains(r.Debug, `"systemMessage":"skillwire: first run, accepted 2 plugins,`) {
				t.Errorf("the person's line does not count 2 plugins")
			}
			list := w.MustSkillwire([]int{0, 3}, "list")
			status := w.MustSkillwire([]int{0, 3}, "status")
			for _, n := range []string{"one@ccp", "two@ccp"} {
				for what, out := range map[string]string{"list": list, "status": status} {
					if c := strings.Count(out, " "+n+" "); c != 1 {
						t.Errorf("%s shows %s %d times, want once:\n%s", what, n, c, out)
					}
				}
			}
			if strings.Contains(list+status, "/1.0.0") || strings.Contains(list+status, "three") {
				t.Errorf("a cache copy or an uninstalled plugin is shown:\n%s\n%s", list, status)
			}

			w.Settle()
			w.Write(tc.edit, "---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+tc.body+"\n")
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			m = model(t, []Reply{Skill("one:ps")}, Say("done."))
			w.Claude(m, Run{Prompt: "run the ps skill"})
			if got := m.Sent(tc.body); got != tc.told {
				t.Errorf("the client served the edited body: %v, want %v (results %q)", got, tc.told, m.ToolResults())
			}
			w.Install()
			m = model(t, nil)
			noTrouble(t, w.Claude(m, Run{Prompt: "hello"}))
			a := advisory(m)
			if got := strings.Contains(a, `plugin "one@ccp"`); got != tc.told {
				t.Errorf("the edit was told: %v, want %v:\n%s", got, tc.told, a)
			}
			if strings.Contains(a, "/1.0.0") {
				t.Errorf("the cache copy is told:\n%s", a)
			}
		})
	}
}
