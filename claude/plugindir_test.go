package claude

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
)

const pjson = `.claude-plugin/plugin.json={"name":"pd"}`

// A folder given with --plugin-dir is read as Claude Code reads it: one
// plugin when an entry at its top marks it, else a folder of plugins, each
// named by its plugin.json name (the folder's own without one).
func TestAPluginFolderIsOnePluginOrAFolderOfPluginsAsTheClientReadsIt(t *testing.T) {
	type want struct{ dir, name, plugin string }
	cases := []struct {
		name  string
		tree  []string
		want  []want // dir relative to the temp folder; "" is the given folder's parent
		empty int
	}{
		{"plugin.json names it", []string{"pd/" + pjson, "pd/skills/ps/SKILL.md"}, []want{{"", "pd", "pd@inline"}}, 0},
		{"another name than the folder's", []string{`pd/.claude-plugin/plugin.json={"name":"other"}`}, []want{{"", "pd", "other@inline"}}, 0},
		{"no plugin.json: the folder's name", []string{"pd/skills/ps/SKILL.md"}, []want{{"", "pd", "pd@inline"}}, 0},
		{"SKILL.md at the top", []string{"pd/SKILL.md"}, []want{{"", "pd", "pd@inline"}}, 0},
		{"a non-empty .mcp.json", []string{"pd/.mcp.json={}", "pd/c1/" + pjson}, []want{{"", "pd", "pd@inline"}}, 0},
		{"an empty .mcp.json marks nothing", []string{"pd/.mcp.json=", `pd/c1/.claude-plugin/plugin.json={"name":"c1"}`}, []want{{"pd", "c1", "c1@inline"}}, 0},
		{"a skills folder that is no plugin marks it", []string{"pd/skills/ps/SKILL.md", "pd/c1/" + pjson}, []want{{"", "pd", "pd@inline"}}, 0},
		{"a folder of plugins", []string{`pd/b/.claude-plugin/plugin.json={"name":"bee"}`, `pd/a/.claude-plugin/plugin.json={"name":"a"}`, "pd/none/skills/x/SKILL.md", "pd/.hidden/" + pjson, "pd/file"},
			[]want{{"pd", "a", "a@inline"}, {"pd", "b", "bee@inline"}}, 0},
		{"a skills child that is a plugin of the folder", []string{`pd/skills/.claude-plugin/plugin.json={"name":"s"}`}, []want{{"pd", "skills", "s@inline"}}, 0},
		{"a marketplace's folder", []string{"pd/.claude-plugin/marketplace.json={}", `pd/p/.claude-plugin/plugin.json={"name":"p"}`}, []want{{"pd", "p", "p@inline"}}, 0},
		{"a link to a plugin of the folder", []string{"real/" + pjson, "pd/l -> ../real"}, []want{{"pd", "l", "pd@inline"}}, 0},
		{"a plugin.json that is a link names no plugin", []string{`x.json={"name":"pd"}`, "pd/.claude-plugin/plugin.json -> ../../x.json"}, []want{{"", "pd", ""}}, 0},
		{"a plugin.json not JSON names no plugin", []string{"pd/.claude-plugin/plugin.json=\x1b[2J{"}, []want{{"", "pd", ""}}, 0},
		{"a plugin.json whose name is not a string", []string{`pd/.claude-plugin/plugin.json={"name":1}`}, []want{{"", "pd", ""}}, 0},
		{"a folder holding no plugin", []string{"pd/readme.md", "pd/sub/"}, nil, 1},
		{"a file", []string{"pd=x"}, []want{{"", "pd", "pd@inline"}}, 0},
		{"not there", nil, nil, 1},
		{"a dangling link", []string{"pd -> nowhere"}, nil, 1},
		{"a FIFO", []string{"pd|"}, []want{{"", "pd", "pd@inline"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, c.tree...)
			got := InlinePlugins([]string{dir + "/pd"})
			var w []want
			for _, p := range got.Plugins {
				rel := strings.TrimPrefix(strings.TrimPrefix(p.Dir, dir), "/")
				w = append(w, want{rel, p.Name, p.Plugin})
			}
			if !slices.Equal(w, c.want) || got.Empty != c.empty {
				t.Errorf("got %+v, empty %d; want %+v, %d", w, got.Empty, c.want, c.empty)
			}
			if told := got.Told(); (told != "") != (c.empty > 0) {
				t.Errorf("told %q", told)
			}
		})
	}
}

// The roots of --plugin-dir plugins are plugin-sources roots of scope
// added, shown as the client names them (pd@inline), one root per folder,
// never merged into a root of another kind; a name that fails the display
// gate is hidden.
func TestAPluginDirsPluginIsAnAddedRootNamedAsTheClientNamesIt(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pd/"+pjson, "coll/a\x1b[31m/"+pjson, "coll/b/"+pjson)
	in := InlinePlugins([]string{dir + "/pd", dir + "/coll"})
	var got []Root
	for _, r := range (Places{Config: dir + "/cfg", Inline: in.Plugins}).Roots() {
		if r.Scope == Added {
			got = append(got, r)
		}
	}
	if len(got) != 2 || got[0].Path != dir || got[1].Path != dir+"/coll" || got[0].Kind != PluginSources || got[0].ConfigDir != "" {
		t.Fatalf("roots %+v", got)
	}
	if n, ok := got[0].Display([]byte("pd")); !ok || n != "pd@inline" {
		t.Errorf("shown %q %v", n, ok)
	}
	if _, ok := got[1].Display([]byte("a\x1b[31m")); ok {
		t.Error("a name failing the gate was shown")
	}
	if p := string(got[1].SourcePlugin([]byte("b"))); p != "pd" {
		t.Errorf("plugin %q, want pd", p)
	}
	// Outside the session, the store's records rebuild the same roots.
	again := InlineRoots(dir+"/coll", []string{"b"})
	if len(again) != 1 || !slices.Equal(again[0].Names, []string{"b"}) || again[0].Sources["b"] != "pd@inline" || again[0].Scope != Added {
		t.Errorf("rebuilt %+v", again)
	}
}

// Many folders, and a folder of many plugins, are each read once, bounded
// by the walker's fanout: a folder past it is watched as one plugin, whose
// observation says so.
func TestAHugeFolderOfPluginsIsOneAnomalousPlugin(t *testing.T) {
	dir := t.TempDir()
	specs := []string{}
	for i := range 4100 {
		specs = append(specs, fmt.Sprintf("pd/d%05d/", i))
	}
	testtree.Make(t, dir, specs...)
	got := InlinePlugins([]string{dir + "/pd"})
	if got.Empty != 0 || len(got.Plugins) != 1 || got.Plugins[0].Name != "pd" {
		t.Errorf("got %d plugins, empty %d", len(got.Plugins), got.Empty)
	}
}

// The one rule of a plugin's name (used by the local watch's --plugin-dir
// plugins and by the gate's cached versions): a plugin.json names it only
// by a non-empty string "name"; any other file leaves its name unknown.
func TestAPluginIsNamedByItsManifestsNameAlone(t *testing.T) {
	for _, c := range []struct {
		data, want string
		ok         bool
	}{
		{`{"name":"pd"}`, "pd", true},
		{`{"version":"1","name":"a b\u001b[2J"}`, "a b\x1b[2J", true},
		{`{"name":"a","name":"b"}`, "b", true},
		{`{"version":"1"}`, "", false},
		{`{"name":""}`, "", false},
		{`{"name":1}`, "", false},
		{`{"name":null}`, "", false},
		{`["name"]`, "", false},
		{`"pd"`, "", false},
		{`{"name":"pd"`, "", false},
		{"\x00\xff", "", false},
		{"", "", false},
		{`{"name":"` + strings.Repeat("x", 1<<20) + `"}`, strings.Repeat("x", 1<<20), true},
	} {
		if got, ok := ManifestName([]byte(c.data)); got != c.want || ok != c.ok {
			t.Errorf("ManifestName(%.40q) = %.40q, %v; want %.40q, %v", c.data, got, ok, c.want, c.ok)
		}
	}
}
