package claude

import (
	"context"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// modFacts walks root and returns, by candidate, the kinds of the
// standing facts each candidate's form tells.
func modFacts(t *testing.T, r Root) map[string][]config.FactKind {
	t.Helper()
	w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
	out := map[string][]config.FactKind{}
	for _, c := range w.Candidates {
		for _, f := range r.StandingFacts(c.Name, c.Canonical) {
			out[string(c.Name)] = append(out[string(c.Name)], f.Kind)
		}
	}
	return out
}

// Every plugin place tells a hooks module its hooks files list, where the
// client loads one: hooks/hooks.json, or the file plugin.json's "hooks"
// names. A top-level hooks.json and "modules" inline in plugin.json load
// nothing, and tell nothing.
func TestAPluginsHooksModuleIsAStandingFactWhereverItLoads(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir,
		`pd/`+pjson, `pd/hooks/hooks.json={"modules":["./register.js"]}`, "pd/hooks/register.js=export function register(on) {}",
		`pm/.claude-plugin/plugin.json={"name":"pm","hooks":"./extra/more.json"}`, `pm/extra/more.json={"modules":["./r.js"]}`, "pm/extra/r.js",
		`pt/.claude-plugin/plugin.json={"name":"pt"}`, `pt/hooks.json={"modules":["./r.js"]}`, "pt/r.js",
		`pi/.claude-plugin/plugin.json={"name":"pi","hooks":{"modules":["./r.js"]}}`, "pi/r.js",
		`skills/us/.claude-plugin/plugin.json={"name":"other"}`, `skills/us/hooks/hooks.json={"modules":["./r.js"]}`,
		`skills/plain/SKILL.md=---`+"\nname: plain\n---\nbody",
	)
	in := InlinePlugins([]string{dir + "/pd", dir + "/pm", dir + "/pt", dir + "/pi"}, nil)
	got := map[string][]config.FactKind{}
	for _, r := range sourceRoots(in.Plugins, Added) {
		for n, ks := range modFacts(t, r) {
			got[n] = ks
		}
	}
	for n, ks := range modFacts(t, Root{Path: dir + "/skills", Scope: Global, Kind: Skills}) {
		got["skills/"+n] = ks
	}
	mod := []config.FactKind{config.FactHooksModule}
	for _, n := range []string{"pd", "pm", "skills/us"} {
		if !slices.Equal(got[n], mod) {
			t.Errorf("%s: facts %v, want one hooks module", n, got[n])
		}
	}
	for _, n := range []string{"pt", "pi", "skills/plain"} {
		if len(got[n]) != 0 {
			t.Errorf("control %s: facts %v, want none", n, got[n])
		}
	}
}
