package claude

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

const pjson = `.claude-plugin/plugin.json={"name":"pd"}`

// A folder given with --plugin-dir is read as Claude Code 2.1.328 reads it
// (its loader's b8n; pinned by e2e/plugindir_test.go). The folder is one
// plugin when an entry at its top marks it: .claude-plugin, SKILL.md, a
// non-empty .mcp.json or .lsp.json. It is one plugin, too, when one of
// commands, skills, agents, hooks, themes, output-styles, monitors or
// workflows there holds no .claude-plugin/plugin.json. Else it is a folder
// of plugins. Each child folder (or link to one) not starting with "."
// that holds .claude-plugin/plugin.json is a plugin. A .claude-plugin
// holding only marketplace.json marks nothing. Each plugin is named
// "name@inline", after its plugin.json name or else its folder.
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
		{"a plugin.json whose name is not a string is refused", []string{`pd/.claude-plugin/plugin.json={"name":1}`}, nil, 0},
		{"a plugin.json whose name holds a space is refused", []string{`pd/.claude-plugin/plugin.json={"name":"p d"}`}, nil, 0},
		{"a folder of plugins, one refused", []string{`pd/a/.claude-plugin/plugin.json={"name":"a","version":1}`, `pd/b/.claude-plugin/plugin.json={"name":"b"}`},
			[]want{{"pd", "b", "b@inline"}}, 0},
		{"a folder holding no plugin", []string{"pd/readme.md", "pd/sub/"}, nil, 1},
		{"a file", []string{"pd=x"}, []want{{"", "pd", ""}}, 0},
		{"not there", nil, nil, 1},
		{"a dangling link", []string{"pd -> nowhere"}, nil, 1},
		{"a .claude-plugin that is a link names no plugin", []string{`real/plugin.json={"name":"plug"}`, "pd/.claude-plugin -> ../real", "pd/skills/ps/SKILL.md"}, []want{{"", "pd", ""}}, 0},
		{"the folder given through a link", []string{"real/" + pjson, "pd -> real"}, []want{{"", "pd", "pd@inline"}}, 0},
		{"a FIFO", []string{"pd|"}, []want{{"", "pd", ""}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, c.tree...)
			got := InlinePlugins([]string{dir + "/pd"}, nil)
			var w []want
			for _, p := range got.Plugins {
				rel := strings.TrimPrefix(strings.TrimPrefix(p.Dir, dir), "/")
				w = append(w, want{rel, p.Name, p.Plugin})
			}
			if !slices.Equal(w, c.want) || got.Empty != c.empty {
				t.Errorf("got %+v, empty %d; want %+v, %d", w, got.Empty, c.want, c.empty)
			}
			if told := got.Told(); (told != "") != (c.empty > 0 || len(got.Refused) > 0) {
				t.Errorf("told %q", told)
			}
			// Any plugin whose name is not read as the client reads it,
			// and any refused folder, leaves every plugin's name unknown.
			unknown := slices.ContainsFunc(c.want, func(w want) bool { return w.plugin == "" }) || strings.HasSuffix(c.name, "refused")
			if got.Unknown() != unknown || got.Problem != "" {
				t.Errorf("unknown %v (problem %q), want %v", got.Unknown(), got.Problem, unknown)
			}
		})
	}
}

// The roots of --plugin-dir plugins are plugin-sources roots of scope
// added. They are shown as the client names them (pd@inline), one root
// per folder. They are never merged into a root of another kind. A name
// that fails the display gate is hidden.
func TestAPluginDirsPluginIsAnAddedRootNamedAsTheClientNamesIt(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pd/"+pjson, "coll/a\x1b[31m/"+pjson, "coll/b/"+pjson)
	in := InlinePlugins([]string{dir + "/pd", dir + "/coll"}, nil)
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

// A folder of plugins past the walker's fanout cannot be listed. It is the
// Problem, told in fixed words. It is never guessed as one plugin named by
// the folder, a plugin the client never loaded. Every plugin's name is
// then unknown. The folders beside it are still read.
func TestAFolderOfPluginsThatCannotBeListedIsTheProblemNeverOnePlugin(t *testing.T) {
	dir := t.TempDir()
	specs := []string{"ok/" + pjson}
	for i := range 4100 {
		specs = append(specs, fmt.Sprintf("pd/d%05d/", i))
	}
	testtree.Make(t, dir, specs...)
	got := InlinePlugins([]string{dir + "/pd", dir + "/ok"}, nil)
	if got.Empty != 0 || len(got.Plugins) != 1 || got.Plugins[0].Name != "ok" || got.Problem == "" || !got.Unknown() {
		t.Errorf("got %+v", got)
	}
	if told := got.Told(); !strings.Contains(told, "cannot list the folder of plugins") || strings.Contains(told, dir) {
		t.Errorf("told %q", told)
	}
}

// A folder given with --plugin-dir-no-mcp is loaded without its MCP
// servers; so is each plugin of a folder of plugins there. Its .mcp.json
// and plugin.json's mcpServers are content, and no server of them is in
// its form. Its hooks still are. The same folder given with --plugin-dir
// keeps them.
func TestANoMCPPluginFoldersServersAreNotItsForm(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir,
		`pd/.claude-plugin/plugin.json={"name":"pd","mcpServers":{"inline":{"command":"evil-inline"}}}`,
		`pd/.mcp.json={"mcpServers":{"file":{"command":"evil-file"}}}`,
		`pd/hooks/hooks.json={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch m"}]}]}}`,
		`coll/c1/.claude-plugin/plugin.json={"name":"c1"}`, `coll/c1/.mcp.json={"mcpServers":{"c1srv":{"command":"evil-c1"}}}`)
	for _, noMCP := range []bool{true, false} {
		var skip []string
		if noMCP {
			skip = []string{dir + "/pd", dir + "/coll"}
		}
		in := InlinePlugins([]string{dir + "/pd", dir + "/coll"}, skip)
		var roots []walker.RootSpec
		for _, r := range (Places{Config: dir + "/cfg", Inline: in.Plugins}).Roots() {
			if r.Scope == Added {
				roots = append(roots, r.Spec())
			}
		}
		var forms string
		for _, w := range walker.Scan(context.Background(), roots, walker.DefaultConfig()) {
			for _, c := range w.Candidates {
				forms += string(c.Canonical) + "\n"
			}
		}
		for _, srv := range []string{"evil-inline", "evil-file", "evil-c1"} {
			if strings.Contains(forms, srv) == noMCP {
				t.Errorf("no-mcp %v: server %s in the forms %v, want %v\n%s", noMCP, srv, !noMCP, !noMCP, forms)
			}
		}
		if !strings.Contains(forms, "touch m") {
			t.Errorf("no-mcp %v: the hook is not in the form:\n%s", noMCP, forms)
		}
	}
}

// The one rule of a plugin's name: a plugin.json names it only by a
// non-empty string "name". Any other file leaves its name unknown. The
// local watch's --plugin-dir plugins and the gate's cached versions both
// use it.
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

// A --plugin-dir plugin's plugin.json is read as Claude Code 2.1.328's
// loader reads it (read in its bundle; pinned by e2e/plugindir2_test.go).
// First the manifest schema: the name is a non-empty string with no
// U+0020 and no control or bidirectional-formatting character
// (controlOrBidi). The version, when given, is a string. Then the loader's
// own check of the name (notInPluginName). What it refuses is refused, why
// in fixed words. A name it takes is the plugin's. A file that is not a
// JSON object is not known. ManifestName gives the gate the name it gave
// before: a name the loader refuses still names a cached version's match.
func TestAPluginManifestIsRefusedAsTheClientRefusesIt(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		data, name, refused string
		ok                  bool
	}{
		{`{"name":"pd","version":"1.0.0"}`, "pd", "", true},
		{`{"name":"plüg-ü.x_1"}`, "plüg-ü.x_1", "", true},
		{`{"name":"` + huge + `"}`, huge, "", true},
		{`{"name":"plug x","version":"1.0.0"}`, "plug x", refusedNameSpace, true},
		{`{"name":"` + huge + ` "}`, huge + " ", refusedNameSpace, true},
		{`{"name":"plug\u0007"}`, "plug\a", refusedNameControl, true},
		{`{"name":"plug\tx"}`, "plug\tx", refusedNameControl, true},
		{`{"name":"plug\u0000"}`, "plug\x00", refusedNameControl, true},
		{`{"name":"plug\u009b"}`, "plug\u009b", refusedNameControl, true},
		{`{"name":"plug\u202e"}`, "plug\u202e", refusedNameControl, true},
		{`{"name":"plug\u2066"}`, "plug\u2066", refusedNameControl, true},
		{`{"name":"plug\u00a0x"}`, "plug\u00a0x", refusedNameRune, true},
		{`{"name":"plug\u3000x"}`, "plug\u3000x", refusedNameRune, true},
		{`{"name":"plug\u2028"}`, "plug\u2028", refusedNameRune, true},
		{`{"name":"plug\u200b"}`, "plug\u200b", refusedNameRune, true},
		{`{"name":"plug\ufe0f"}`, "plug\ufe0f", refusedNameRune, true},
		{`{"name":"plug\ue000"}`, "plug\ue000", refusedNameRune, true},
		{`{"name":"plug\u2800"}`, "plug\u2800", refusedNameRune, true},
		{`{"name":"plug\udb40\udc01"}`, "plug\U000e0001", refusedNameRune, true},
		{`{"name":"a@b"}`, "a@b", refusedNameRune, true},
		{`{"name":"a:b"}`, "a:b", refusedNameRune, true},
		{`{"name":"a/b"}`, "a/b", refusedNameRune, true},
		{`{"name":"a\\b"}`, `a\b`, refusedNameRune, true},
		{`{"name":"plug\ud800"}`, "plug\ufffd", "", true}, // a lone surrogate: U+FFFD here, refused there; never told refused wrongly
		{"{\"name\":\"plug\xff\"}", "plug\ufffd", "", true},
		{`{"name":""}`, "", refusedNameEmpty, true},
		{`{"name":5}`, "", refusedNameType, true},
		{`{"name":null}`, "", refusedNameType, true},
		{`{"name":["pd"]}`, "", refusedNameType, true},
		{`{"version":"1.0.0"}`, "", refusedNoName, true},
		{`{}`, "", refusedNoName, true},
		{`{"name":"other","version":5}`, "other", refusedVersionType, true},
		{`{"name":"other","version":null}`, "other", refusedVersionType, true},
		{`{"name":"other","version":{"v":"1"}}`, "other", refusedVersionType, true},
		{`{"name":"other","version":"\u0007"}`, "other", "", true}, // treated as absent by the client, not refused
		{`{"name":"other","description":5}`, "other", "", true},    // a display field's fault is dropped by the client
		{`{"name":"a","name":"b c"}`, "b c", refusedNameSpace, true},
		{`["name"]`, "", "", false},
		{`null`, "", "", false},
		{`"pd"`, "", "", false},
		{`{"name":"pd"`, "", "", false},
		{"\ufeff{\"name\":\"pd\"}", "", "", false},
		{"\x00\xff", "", "", false},
		{"", "", "", false},
	} {
		m, ok := sessionManifest([]byte(c.data))
		if m.name != c.name || m.refused != c.refused || ok != c.ok {
			t.Errorf("sessionManifest(%.40q) = %.40q, %q, %v; want %.40q, %q, %v", c.data, m.name, m.refused, ok, c.name, c.refused, c.ok)
		}
		if n, ok := ManifestName([]byte(c.data)); n != c.name || ok != (c.ok && c.name != "") {
			t.Errorf("ManifestName(%.40q) = %.40q, %v", c.data, n, ok)
		}
	}
}

// A refused plugin folder is told by its quoted path, with why in fixed
// words. The quoting keeps every byte of it from a terminal or a model
// raw. It is no plugin of the session, yet it leaves every plugin name
// unknown: the client read it at its start, when it may have been valid.
// Past maxRefusedTold the rest are counted.
func TestARefusedPluginFolderIsToldByItsQuotedPathAndWhy(t *testing.T) {
	dir := t.TempDir()
	var tree []string
	for i := range 5 {
		tree = append(tree, fmt.Sprintf("pd/p%d\x1b[2J/.claude-plugin/plugin.json={\"name\":\"p %d\"}", i, i))
	}
	testtree.Make(t, dir, tree...)
	in := InlinePlugins([]string{dir + "/pd"}, nil)
	if len(in.Plugins) != 0 || len(in.Refused) != 5 || !in.Unknown() {
		t.Fatalf("plugins %+v, refused %d, unknown %v", in.Plugins, len(in.Refused), in.Unknown())
	}
	told := in.Told()
	if strings.ContainsAny(told, "\x1b") || strings.Count(told, "the client refuses to load ("+refusedNameSpace+")") != maxRefusedTold ||
		!strings.Contains(told, "2 more plugin folder(s)") || !strings.Contains(told, `p0\x1b\x5b2J"`) {
		t.Errorf("told:\n%s", told)
	}
}
