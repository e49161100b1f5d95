package claude

import (
	"context"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// A mod Claude Code writes in <cfg>/dev-mods/<session id>/<name>/ is a
// plugin candidate of scope added, named as the client names it
// (dm@inline). The files the client writes there for the editor are
// noise, never a change of the mod; the same names elsewhere are content.
func TestADevModIsAnAddedPluginAndTheClientsEditorFilesAreNoise(t *testing.T) {
	cfg := t.TempDir()
	const s = "dev-mods/6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b/dm/"
	testtree.Make(t, cfg, s+`.claude-plugin/plugin.json={"name":"dm"}`, s+`hooks/hooks.json={"modules":["./register.js"]}`, s+"hooks/register.js",
		s+"tsconfig.json", s+".gitignore", s+".claude-plugin/types/claude-code/index.d.ts", s+".claude-plugin/types/claude-code-tools/index.d.ts",
		s+".claude-plugin/types/claude-code-mcp/index.d.ts", s+".claude-plugin/types/tsconfig.json", s+"hooks/tsconfig.json")
	p := Places{Config: cfg}.Discover(Limits{})
	var r *Root
	for _, root := range p.Roots() {
		if root.Kind == PluginSources {
			r = &root
		}
	}
	if r == nil || r.Scope != Added || !slices.Equal(r.Names, []string{"dm"}) {
		t.Fatalf("no added plugin-sources root of dm: %+v", r)
	}
	if n, ok := r.Display([]byte("dm")); !ok || n != "dm@inline" || CandidateKind(r.Kind, []byte("dm")) != KindPlugin {
		t.Errorf("shown %q %v", n, ok)
	}
	w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
	if len(w.Candidates) != 1 {
		t.Fatalf("candidates %d", len(w.Candidates))
	}
	var files []string
	for _, e := range w.Candidates[0].Manifest.Entries {
		if e.Kind == snapshot.File {
			files = append(files, string(e.Path))
		}
	}
	if want := []string{".claude-plugin/plugin.json", "hooks/hooks.json", "hooks/register.js", "hooks/tsconfig.json"}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if fs := r.StandingFacts(w.Candidates[0].Name, w.Candidates[0].Canonical); len(fs) != 1 {
		t.Errorf("standing facts %v, want the hooks module", fs)
	}
}
