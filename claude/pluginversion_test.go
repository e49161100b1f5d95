package claude

import (
	"context"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

func TestAnInstallPathNamesAVersionFolderOnlyByItsExactText(t *testing.T) {
	r := Root{Path: "/cfg/plugins/cache", Kind: Plugins}
	for _, tc := range []struct {
		path string
		want string // "" for none
	}{
		{"/cfg/plugins/cache/mkt/plug/1.0.0", "mkt/plug/1.0.0"},
		{"/cfg/plugins/cache/mkt/plug/1.0.0/", ""},
		{"/cfg/plugins/cache/mkt/plug", ""},
		{"/cfg/plugins/cache/mkt/plug/1.0.0/x", ""},
		{"/cfg/plugins/cache/mkt/../plug/1.0.0", ""},
		{"/cfg/plugins/cache/mkt/./1.0.0", ""},
		{"/cfg/plugins/cache/mkt//1.0.0", ""},
		{"/cfg/plugins/cache2/mkt/plug/1.0.0", ""},
		{"/cfg/plugins/cache/../cache/mkt/plug/1.0.0", ""},
		{"cfg/plugins/cache/mkt/plug/1.0.0", ""},
		{"/cfg/plugins/cache/mkt/plug/1.0.0\x00", ""},
		{"/cfg/plugins/cache/m\x1bkt/p\nlug/\u202e1", "m\x1bkt/p\nlug/\u202e1"}, // a name, gated when shown
		{"", ""},
		{strings.Repeat("/a", 1<<16), ""},
	} {
		v, ok := r.VersionAt(tc.path)
		if ok != (tc.want != "") || ok && string(v) != tc.want {
			t.Errorf("VersionAt(%q) = %q, %v; want %q", tc.path, v, ok, tc.want)
		}
	}
	if _, ok := (Root{Path: "/cfg/plugins/cache", Kind: Skills}).VersionAt("/cfg/plugins/cache/mkt/plug/1.0.0"); ok {
		t.Error("a skills root names a plugin version")
	}
}

func TestTwoFoldersAreOnePluginOnlyWithTheSameMarketplaceAndPlugin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"mkt/plug/1.0.0", "mkt/plug/2.0.0", true},
		{"mkt/plug/1.0.0", "mkt/plug/1.0.0", true},
		{"mkt/plug/1.0.0", "mkt/other/1.0.0", false},
		{"mkt/plug/1.0.0", "evil/plug/1.0.0", false},
		{"mkt/plug", "mkt/plug/1.0.0", false},
		{"mkt/plug/1.0.0/x", "mkt/plug/1.0.0", false},
		{"mkt/plug/..", "mkt/plug/1", false},
	} {
		if got := SamePlugin([]byte(tc.a), []byte(tc.b)); got != tc.same {
			t.Errorf("SamePlugin(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
	if k, ok := PluginKey([]byte("mkt/plug/1.0.0")); !ok || k != "plug@mkt" {
		t.Errorf("PluginKey = %q, %v", k, ok)
	}
	if r, ok := (Root{Path: "/cfg/plugins/cache", Kind: Plugins}).Registry(); !ok || r != "/cfg/plugins" {
		t.Errorf("Registry = %q, %v", r, ok)
	}
}

// The client's bookkeeping in a cached version folder moves no digest, so
// a reviewed version stays reviewed. Claude Code 2.1.328's bundle names
// these files together, as the names its copy and collection pass over.
//   - .orphaned_at: the time an update or uninstall left the version
//     behind, written into the old folder. Pinned by
//     TestAnUpdatedReviewedPluginIsPendingAndAsked: the old version is no
//     longer told changed.
//   - .in_use: a folder of one marker per running session, named by its
//     process id. Collection spares a version in use.
//   - .links_materialized: the stamp (JSON: the time, the client's build)
//     written once the client has turned a version's links into files. It
//     is read back only to skip that pass. The client's copy never takes
//     one from a plugin's source. Pinned by
//     TestTheClientsCopyHashIsRecomputedAndAMismatchIsTold: the stamp
//     written after skillwire observed the folder is no change.
//
// Any other file there is content and moves the digest. So is one of a
// like name, and so are those names deeper in the folder. Content
// includes .claude-plugin-link, read to find a link farm. It includes
// .claude-directory-proof.json, copied from the source and read as proof
// of a folder's commit. It includes .mcpb-cache, the MCP bundles the
// client runs, and .git. The client's own scratch
// .links_materialized.tmp.<hex> is content too.
func TestTheClientsBookkeepingInAVersionFolderIsNoiseAndNothingElseIs(t *testing.T) {
	digest := func(t *testing.T, extra ...string) string {
		t.Helper()
		dir := t.TempDir()
		testtree.Make(t, dir, append([]string{"mkt/plug/1.0.0/.claude-plugin/plugin.json={\"name\":\"plug\"}", "mkt/plug/1.0.0/skills/ps/SKILL.md=x"}, extra...)...)
		r := Root{Path: dir, Scope: Global, Kind: Plugins}
		w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
		if len(w.Candidates) != 1 || w.Candidates[0].Partial() {
			t.Fatalf("candidates %+v", w.Candidates)
		}
		return w.Candidates[0].Digest.String()
	}
	base := digest(t)
	stamp := `mkt/plug/1.0.0/.links_materialized={"at":"2026-11-30T08:47:00.000Z","cli":{"VERSION":"2.1.328"}}`
	if got := digest(t, "mkt/plug/1.0.0/.orphaned_at=1764590000000", "mkt/plug/1.0.0/.in_use/4242=", "mkt/plug/1.0.0/.in_use/77=", stamp); got != base {
		t.Error("the client's bookkeeping moved the version's digest")
	}
	for _, extra := range []string{
		"mkt/plug/1.0.0/.orphaned_at2=x",
		"mkt/plug/1.0.0/.claude-plugin-link={}",
		"mkt/plug/1.0.0/.claude-directory-proof.json={}",
		"mkt/plug/1.0.0/.mcpb-cache/s/index.js=x",
		"mkt/plug/1.0.0/skills/.orphaned_at=x",
		"mkt/plug/1.0.0/skills/ps/.in_use/1=",
		"mkt/plug/1.0.0/skills/.links_materialized={}",
		"mkt/plug/1.0.0/skills/ps/.links_materialized=",
		"mkt/plug/1.0.0/.links_materialized.tmp.0a1b2c3d/0=x",
		"mkt/plug/1.0.0/.links_materialized2=x",
		"mkt/plug/1.0.0/.Links_Materialized={}",
		"mkt/plug/1.0.0/.links_materialized.={}",
		"mkt/plug/1.0.0/.links_materialized\x1b={}",
		"mkt/plug/1.0.0/links_materialized={}",
		"mkt/plug/1.0.0/.ORPHANED_AT=x",
		"mkt/plug/1.0.0/.orphaned_at\n=x",
	} {
		if digest(t, extra) == base {
			t.Errorf("%q is not content", extra)
		}
	}
}

// list names a cached plugin as the client names it (issue 32). The cache
// folder is the marketplace entry's name; Claude Code 2.1.332 names the
// plugin by its plugin.json "name" (Ae.name=Ae.manifest.name): its skills
// are name:skill, and /plugin shows that name. Without plugin.json, or
// with one it refuses or skillwire cannot read as it does, the folder
// names it. A name the display gate refuses is never shown: the folder's
// is, so a plugin cannot hide itself by its plugin.json.
func TestListNamesACachedPluginAsTheClientNamesIt(t *testing.T) {
	for _, tc := range []struct {
		name, tree string // tree: the version folder's entries
		want       string // "" for hidden
	}{
		{"plugin.json names it", `.claude-plugin/plugin.json={"name":"bar"}`, "bar@mkt/1.0.0"},
		{"the same name", `.claude-plugin/plugin.json={"name":"foo","version":"1.0.0"}`, "foo@mkt/1.0.0"},
		{"no plugin.json", "skills/ps/SKILL.md=x", "foo@mkt/1.0.0"},
		{"no name: refused", `.claude-plugin/plugin.json={"version":"1"}`, "foo@mkt/1.0.0"},
		{"a name with a space: refused", `.claude-plugin/plugin.json={"name":"b ar"}`, "foo@mkt/1.0.0"},
		{"not a JSON object", `.claude-plugin/plugin.json=[1]`, "foo@mkt/1.0.0"},
		{"plugin.json a link", ".claude-plugin/plugin.json -> ../elsewhere.json", "foo@mkt/1.0.0"},
		{"a name the gate refuses", `.claude-plugin/plugin.json={"name":"-bar"}`, "foo@mkt/1.0.0"},
		{"a name past the gate's length", `.claude-plugin/plugin.json={"name":"` + strings.Repeat("b", 65) + `"}`, "foo@mkt/1.0.0"},
		{"a name of other letters", `.claude-plugin/plugin.json={"name":"ѕkill"}`, "foo@mkt/1.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, "mkt/foo/1.0.0/"+tc.tree, `mkt/foo/1.0.0/elsewhere.json={"name":"linked"}`)
			r := Root{Path: dir, Scope: Global, Kind: Plugins}
			got, ok := r.Listed([]byte("mkt/foo/1.0.0"))
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("Listed = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	r := Root{Path: t.TempDir(), Scope: Global, Kind: Plugins}
	if got, ok := r.Listed([]byte("mkt/foo/1.0.0")); !ok || got != "foo@mkt/1.0.0" {
		t.Errorf("a version folder gone: Listed = %q, %v; want its folder's name", got, ok)
	}
	if got, ok := r.Listed([]byte("m\x1bkt/foo/1.0.0")); ok {
		t.Errorf("a hostile marketplace folder is shown: %q", got)
	}
}
