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
