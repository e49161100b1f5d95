//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plugin's name is its plugin.json name, not its cache folder (issue 22).
// It is installed as marketplace entry "foo", whose plugin.json says "bar".
// The client caches it under foo/1.0.0 and names its skill bar:ps. The gate
// resolved only foo:ps, so a BLOCKed plugin loaded under its own name.
// Control: without a verdict, bar:ps loads.
func TestBlockedPluginIsDeniedByItsPluginJSONName(t *testing.T) {
	t.Parallel()
	for _, blocked := range []bool{true, false} {
		name := "blocked"
		if !blocked {
			name = "control: no verdict"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.Write("market/.claude-plugin/marketplace.json",
				`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"foo","source":"./plug","description":"an e2e plugin"}]}`)
			w.Write("market/plug/.claude-plugin/plugin.json", `{"name":"bar","version":"1.0.0","description":"an e2e plugin"}`)
			w.Write("market/plug/skills/ps/SKILL.md",
				"---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+pluginSkillBody+"\n")
			w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "market"))
			w.ClaudeCmd("plugin", "install", "foo@mkt")
			if _, err := os.Stat(filepath.Join(w.Config, "plugins/cache/mkt/foo/1.0.0/.claude-plugin/plugin.json")); err != nil {
				t.Fatalf("the client did not cache the plugin under its marketplace name: %v", err)
			}
			w.Install()
			if blocked {
				w.Record("plugin", "foo@mkt", "BLOCK")
			}
			m := model(t, []Reply{Skill("bar:ps")})
			r := w.Claude(m, Run{Prompt: "run the ps skill"})
			if got := m.Sent(pluginSkillBody); got == blocked {
				t.Errorf("plugin skill body reached the model: %v, want %v (results %q)", got, !blocked, m.ToolResults())
			}
			if blocked {
				res := strings.Join(m.ToolResults()["Skill"], "\n")
				if !strings.Contains(res, "hook error") || !strings.Contains(res, "BLOCK") {
					t.Errorf("the model was not told of skillwire's deny: %q", res)
				}
			}
			noTrouble(t, r)
		})
	}
}
