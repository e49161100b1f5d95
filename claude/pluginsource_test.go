package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// sourceWorld writes a config directory whose registries install plug@mkt
// from the known marketplace mkt. kind, path and installLocation are its
// record; they are relative to dir unless absolute. manifest is its
// .claude-plugin/marketplace.json ("" writes none).
func sourceWorld(t testing.TB, dir, kind, location, manifest string) string {
	t.Helper()
	abs := func(p string) string {
		if strings.HasPrefix(p, "/") || p == "" {
			return p
		}
		return dir + "/" + p // as written: a ".." stays
	}
	path := abs(location)
	if kind == "file" {
		path = abs(location) + "/.claude-plugin/marketplace.json"
	}
	known, _ := json.Marshal(map[string]any{"mkt": map[string]any{
		"source": map[string]any{"source": kind, "path": path}, "installLocation": abs(location)}})
	testtree.Make(t, dir,
		"cfg/plugins/installed_plugins.json="+`{"version":2,"plugins":{"plug@mkt":[{"scope":"user","installPath":"/x"}],"other@elsewhere":[{}]}}`,
		"cfg/plugins/known_marketplaces.json="+string(known),
		"m/plug/skills/ps/SKILL.md=x", "m/plugins/plug/skills/ps/SKILL.md=x")
	if err := os.Symlink("plugins", filepath.Join(dir, "m/linked")); err != nil {
		t.Fatal(err)
	}
	if manifest != "" {
		testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+manifest)
	}
	return filepath.Join(dir, "cfg")
}

func entry(source string) string {
	return `{"name":"mkt","plugins":[{"name":"other","source":"./other"},{"name":"plug","source":` + source + `}]}`
}

// What the client loads a local marketplace's plugin from is watched. The
// client's loader, 2.1.328, reads a string entry source of a local
// marketplace from the folder, in place, never from the cache copy its
// install wrote. The e2e cases
// TestADirectoryMarketplacePluginLoadsFromItsSourceNotTheCache and
// TestAnEditedMarketplaceFolderIsToldAndHeld pin it. A git, github, url or
// npm source is a clone or a fetched package. It is copied into the cache
// and loaded from the install's installPath. So the watch is the entry's
// folder when its path is plain names through real folders, as
// "./plugins/NAME" of anthropics/claude-code. Else it is the whole
// marketplace folder, since nothing the client loads lies outside it. A fetched entry, or none, is the cache's. A location that
// cannot be opened as written is nothing to walk.
func TestAnInstalledLocalPluginIsWatchedWhereTheClientLoadsIt(t *testing.T) {
	for _, tc := range []struct {
		name, kind, location, manifest string
		want                           string // "dir name", relative to the test's directory; "" none
	}{
		{"dot-slash entry", "directory", "m", entry(`"./plug"`), "m plug"},
		{"bare entry", "directory", "m", entry(`"plug"`), "m plug"},
		{"doubled slash after the dot", "directory", "m", entry(`".//plug"`), "m plug"},
		{"file source", "file", "m", entry(`"./plug"`), "m plug"},
		{"the marketplace is the plugin", "directory", "m", entry(`"./"`), ". m"},
		{"a dot", "directory", "m", entry(`"."`), ". m"},
		{"two folders deep", "directory", "m", entry(`"./plugins/plug"`), "m/plugins plug"},
		{"two folders deep, a trailing slash", "directory", "m", entry(`"./plugins/plug/"`), "m/plugins plug"},
		{"two folders deep, through a link", "directory", "m", entry(`"./linked/plug"`), ". m"},
		{"two folders deep, a dot-dot on the way", "directory", "m", entry(`"./plugins/../plug"`), ". m"},
		{"five folders deep", "directory", "m", entry(`"./a/b/c/d/plug"`), ". m"},
		{"a dot-dot entry", "directory", "m", entry(`"../x"`), ". m"},
		{"an absolute entry", "directory", "m", entry(`"/etc"`), ". m"},
		{"a backslash", "directory", "m", entry(`"a\\b"`), ". m"},
		{"no marketplace.json", "directory", "m", "", ". m"},
		{"marketplace.json not JSON", "directory", "m", "\x1b[2J{not json", ". m"},
		{"marketplace.json repeats a key", "directory", "m", `{"plugins":[],"plugins":[{"name":"plug","source":"./evil"}]}`, ". m"},
		{"marketplace.json over the limit", "directory", "m", `{"pad":"` + strings.Repeat("a", 1<<20) + `"}`, ". m"},
		{"a fetched entry is the cache's", "directory", "m", entry(`{"source":"github","repo":"o/r"}`), ""},
		{"no entry: nothing loads", "directory", "m", `{"plugins":[{"name":"nope","source":"./plug"}]}`, ""},
		{"a git marketplace is the cache's", "git", "m", entry(`"./plug"`), ""},
		{"a relative location", "directory", "rel", entry(`"./plug"`), ""},
		{"a dot-dot location", "directory", "m/../m", entry(`"./plug"`), ""},
		{"the root as location", "directory", "/", entry(`"./plug"`), ""},
		{"an empty location", "directory", "", entry(`"./plug"`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			loc := tc.location
			if loc == "rel" {
				loc = "/" + "m" // replaced below by a relative spelling
			}
			cfg := sourceWorld(t, dir, tc.kind, loc, tc.manifest)
			if tc.location == "rel" {
				testtree.Make(t, dir, `cfg/plugins/known_marketplaces.json={"mkt":{"source":{"source":"directory","path":"m"},"installLocation":"m"}}`)
			}
			var got []string
			for _, s := range pluginSources(cfg) {
				if s.Plugin != "plug@mkt" {
					t.Errorf("plugin %q, want only plug@mkt (other@elsewhere has no known marketplace)", s.Plugin)
				}
				d, _ := filepath.Rel(dir, s.Dir)
				got = append(got, d+" "+s.Name)
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if !slices.Equal(got, want) {
				t.Errorf("sources %q, want %q", got, want)
			}
		})
	}
}

// A marketplace.json reached through a link is never read: the walker
// refuses it. The plugin's folder is then unknown, and the whole
// marketplace folder is watched.
func TestALinkedMarketplaceManifestWatchesTheWholeMarketplace(t *testing.T) {
	dir := t.TempDir()
	cfg := sourceWorld(t, dir, "directory", "m", "")
	testtree.Make(t, dir, "elsewhere.json="+entry(`"./plug"`), "m/.claude-plugin/marketplace.json -> ../../elsewhere.json")
	got := pluginSources(cfg)
	if len(got) != 1 || got[0].Dir != dir || got[0].Name != "m" {
		t.Errorf("sources %+v, want the whole marketplace folder", got)
	}
}

// Registries that cannot be read name no folder: their own candidates
// carry the anomaly.
func TestUnreadableRegistriesNameNoSource(t *testing.T) {
	for name, specs := range map[string][]string{
		"installed_plugins.json not JSON": {"cfg/plugins/installed_plugins.json=\x00\xff"},
		"known_marketplaces.json a link":  {"x.json={}", "cfg/plugins/known_marketplaces.json -> ../../x.json"},
		"plugins a link":                  {"p/", "cfg/plugins -> ../p"},
		"installed_plugins.json a FIFO":   {"cfg/plugins/installed_plugins.json|"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := sourceWorld(t, dir, "directory", "m", entry(`"./plug"`))
			for _, s := range specs {
				p := filepath.Join(dir, strings.Fields(strings.NewReplacer("=", " ", "|", " ", " -> ", " ").Replace(s))[0])
				testtree.Must(t, os.RemoveAll(p))
			}
			testtree.Make(t, dir, specs...)
			if got := pluginSources(cfg); len(got) != 0 {
				t.Errorf("sources %+v, want none", got)
			}
		})
	}
}

// Each folder is a root listing only its plugins' folders; a sibling is no
// candidate. Each is shown as its plugin. A marketplace name that fails
// the display gate is shown by id alone. Its candidate is badname, as a
// listed name would be.
func TestASourceRootHoldsOnlyItsPluginsFoldersNamedForTheirPlugins(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "m/a/x=1", "m/b\x1b[31m/x=2", "m/sibling/x=3", "m/l -> a")
	roots := sourceRoots([]PluginSource{
		{Plugin: "a@mkt", Dir: dir + "/m", Name: "a"},
		{Plugin: "bad@mkt", Dir: dir + "/m", Name: "b\x1b[31m"},
		{Plugin: "again@mkt", Dir: dir + "/m", Name: "a"},
		{Plugin: "link@mkt", Dir: dir + "/m", Name: "l"},
	}, Global)
	if len(roots) != 1 || !slices.Equal(roots[0].Names, []string{"a", "b\x1b[31m", "l"}) {
		t.Fatalf("roots %+v, want one root of a, b, l", roots)
	}
	r := roots[0]
	if n, ok := r.Display([]byte("a")); !ok || n != "a@mkt" {
		t.Errorf("a shows as %q %v, want a@mkt (the first plugin to name it)", n, ok)
	}
	if n, ok := r.Display([]byte("b\x1b[31m")); ok {
		t.Errorf("a name failing the gate shows as %q", n)
	}
	if _, ok := r.Display([]byte("sibling")); ok {
		t.Error("a folder of no plugin has a display name")
	}
	if !r.Holds([]byte("a")) || r.Holds([]byte("sibling")) {
		t.Error("the root holds another name than its plugins' folders")
	}
	w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
	var names []string
	for _, c := range w.Candidates {
		names = append(names, string(c.Name))
		reasons := walker.Reasons(c.Anomalies())
		switch string(c.Name) {
		case "a":
			if len(reasons) != 0 {
				t.Errorf("a: anomalies %v", reasons)
			}
		case "b\x1b[31m":
			if !slices.Contains(reasons, anomaly.Badname) {
				t.Errorf("a marketplace's bad name is not badname: %v", reasons)
			}
		case "l":
			if !slices.Contains(reasons, anomaly.Symlink) || len(c.Manifest.Entries) != 1 {
				t.Errorf("a linked plugin folder was followed: %v %d entries", reasons, len(c.Manifest.Entries))
			}
		}
	}
	if !slices.Equal(names, []string{"a", "b\x1b[31m", "l"}) {
		t.Errorf("candidates %q", names)
	}
}

// A local marketplace whose location cannot be opened as written is told
// whenever its registry is. Such a location is relative, "." or "..", a
// doubled slash, "/" or empty. Its plugins load from a folder skillwire
// does not watch. The location is attacker text, escaped and fenced.
func TestAnUnopenableMarketplaceLocationIsAStandingFact(t *testing.T) {
	known := `{
		"ok":    {"source": {"source": "directory", "path": "/m"}, "installLocation": "/m"},
		"rel":   {"source": {"source": "directory", "path": "m"}, "installLocation": "m"},
		"dots":  {"source": {"source": "file", "path": "/a/../m/.claude-plugin/marketplace.json"}, "installLocation": "/a/../m"},
		"slash": {"source": {"source": "directory", "path": "/"}, "installLocation": "/"},
		"dbl":   {"source": {"source": "directory", "path": "/a//m"}, "installLocation": "/a//m"},
		"none":  {"source": {"source": "directory", "path": "/m"}},
		"esc":   {"source": {"source": "directory", "path": "x"}, "installLocation": "x\u001b]0;pwned\u0007"},
		"git":   {"source": {"source": "git", "url": "file:///r"}, "installLocation": "rel"}
	}`
	ex := config.KnownMarketplaces([]byte(known), int64(len(known)))
	r := Root{Path: "/h/.claude/plugins", Scope: Global, Kind: Config, Names: []string{"installed_plugins.json", "known_marketplaces.json"}}
	var got []string
	for _, f := range r.StandingFacts([]byte("known_marketplaces.json"), ex.Canonical) {
		if f.Kind != config.FactPluginSourceUnwatched {
			t.Errorf("fact of kind %v", f.Kind)
		}
		if !f.Dangerous() {
			t.Errorf("%s is not always told", f)
		}
		got = append(got, f.Name)
		if s := f.String(); strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("fact text holds a control byte: %q", s)
		}
	}
	if want := []string{"dbl", "dots", "esc", "none", "rel", "slash"}; !slices.Equal(got, want) {
		t.Errorf("facts of %q, want %q", got, want)
	}
}

// BenchmarkPluginSources is the cost discovery adds to every session start
// and gate hook for one local marketplace plugin. It reads three small
// files through the walker.
func BenchmarkPluginSources(b *testing.B) {
	dir := b.TempDir()
	cfg := sourceWorld(b, dir, "directory", "m", entry(`"./plug"`))
	for b.Loop() {
		if len(pluginSources(cfg)) != 1 {
			b.Fatal("no source")
		}
	}
}

// TestGitIsNeverPluginContent: a marketplace that is its own plugin, as
// obra/superpowers is ("source": "./"), is a git checkout. Its .git/ is
// no part of what the client loads: a pull changing CHANGELOG.md alone
// changes one file of the plugin. A plugin whose hooks run a script under
// .git/ keeps .git/ as content, so that script is bound.
func TestGitIsNeverPluginContent(t *testing.T) {
	for _, tc := range []struct {
		name, hooks string
		wantGit     bool
	}{
		{"no hook names .git", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/hooks/session-start"}]}]}}`, false},
		{"a hook runs a script under .git", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/.git/x"}]}]}}`, true},
		{"hooks.json unreadable as a file", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, "m/.git/HEAD=ref: refs/heads/main", "m/.git/objects/aa/01=x", "m/CHANGELOG.md=1",
				"m/.claude-plugin/plugin.json="+`{"name":"superpowers"}`, "m/skills/s/SKILL.md=x")
			if tc.hooks != "" {
				testtree.Make(t, dir, "m/hooks/hooks.json="+tc.hooks)
			} else if err := os.MkdirAll(filepath.Join(dir, "m/hooks/hooks.json"), 0o755); err != nil {
				t.Fatal(err)
			}
			r := sourceRoots([]PluginSource{{Plugin: "superpowers@superpowers-dev", Dir: dir, Name: "m"}}, Global)[0]
			c := observed(t, r, "m")
			var git, changelog bool
			for _, e := range c.Manifest.Entries {
				git = git || strings.HasPrefix(string(e.Path), ".git")
				changelog = changelog || string(e.Path) == "CHANGELOG.md"
			}
			if git != tc.wantGit || !changelog {
				t.Errorf(".git in the manifest %v, want %v; CHANGELOG.md there %v, want true", git, tc.wantGit, changelog)
			}
		})
	}
}

// TestARelativeLinkInAnInPlacePluginIsContent: obra/superpowers links
// AGENTS.md to CLAUDE.md. Loaded in place from its marketplace folder,
// that link is content, as the same link in a cached copy is: never a
// symlink anomaly, so SAFE-TO-PROPOSE is recordable on it alike. A link
// out of the plugin stays one.
func TestARelativeLinkInAnInPlacePluginIsContent(t *testing.T) {
	for _, tc := range []struct {
		target  string
		anomaly bool
	}{{"CLAUDE.md", false}, {"../outside", true}, {"/etc/passwd", true}} {
		dir := t.TempDir()
		testtree.Make(t, dir, "m/CLAUDE.md=x", "m/.claude-plugin/plugin.json="+`{"name":"superpowers"}`)
		if err := os.Symlink(tc.target, filepath.Join(dir, "m/AGENTS.md")); err != nil {
			t.Fatal(err)
		}
		r := sourceRoots([]PluginSource{{Plugin: "superpowers@superpowers-dev", Dir: dir, Name: "m"}}, Global)[0]
		c := observed(t, r, "m")
		if got := len(c.Anomalies()) > 0; got != tc.anomaly {
			t.Errorf("AGENTS.md -> %s: anomalous %v, want %v (%v)", tc.target, got, tc.anomaly, c.Anomalies())
		}
	}
}

// A plugin that loads in place is one candidate, where the client loads it
// (issue 32: 12 plugins of a directory marketplace were "24 plugins"). The
// client's install also copies it into the cache, which it never loads. So
// the cache holds no candidate of it, and its records there are none of
// the cache's to judge removed. A fetched plugin of the same marketplace
// stays the cache's, and so does one whose marketplace.json cannot be read,
// or whose entry the client may stub: it then loads the cache copy.
func TestAPluginLoadedInPlaceIsCountedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, manifest string
		want           []string // plugin candidates, root kind and name
	}{
		{"./plugins/NAME", `{"name":"mkt","owner":{"name":"o"},"plugins":[{"name":"plug","source":"./plugins/plug"},{"name":"far","source":{"source":"github","repo":"o/r"}}]}`,
			[]string{"plugin-sources plug", "plugins mkt/far/2.0.0"}},
		{"the marketplace is the plugin", `{"name":"mkt","owner":{"name":"o"},"plugins":[{"name":"plug","source":"./"}]}`,
			[]string{"plugin-sources m", "plugins mkt/far/2.0.0"}},
		{"an entry the client may stub: its copy stays watched", `{"name":"mkt","owner":{"name":"o"},"plugins":[{"name":"plug","source":"./plugins/plug","version":5}]}`,
			[]string{"plugin-sources plug", "plugins mkt/far/2.0.0", "plugins mkt/plug/1.0.0"}},
		{"an entry's hooks are not proven to parse", `{"name":"mkt","owner":{"name":"o"},"plugins":[{"name":"plug","source":"./plugins/plug","hooks":{}}]}`,
			[]string{"plugin-sources plug", "plugins mkt/far/2.0.0", "plugins mkt/plug/1.0.0"}},
		{"control: marketplace.json unreadable", "\x00not json",
			[]string{"plugin-sources m", "plugins mkt/far/2.0.0", "plugins mkt/plug/1.0.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := sourceWorld(t, dir, "directory", "m", tc.manifest)
			testtree.Make(t, dir,
				"cfg/plugins/installed_plugins.json="+`{"version":2,"plugins":{"plug@mkt":[{"scope":"user","installPath":"`+cfg+`/plugins/cache/mkt/plug/1.0.0"}],"far@mkt":[{"scope":"user","installPath":"`+cfg+`/plugins/cache/mkt/far/2.0.0"}]}}`,
				"cfg/plugins/cache/mkt/plug/1.0.0/skills/ps/SKILL.md=x", "cfg/plugins/cache/mkt/far/2.0.0/skills/fs/SKILL.md=y")
			p := Places{Config: cfg}.Discover(Limits{})
			var specs []walker.RootSpec
			var roots []Root
			for _, r := range p.Roots() {
				if r.Kind == Plugins || r.Kind == PluginSources {
					roots, specs = append(roots, r), append(specs, r.Spec())
				}
			}
			var got []string
			for i, w := range walker.Scan(context.Background(), specs, walker.DefaultConfig()) {
				for _, c := range w.Candidates {
					got = append(got, string(roots[i].Kind)+" "+string(c.Name))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("plugin candidates %q, want %q", got, tc.want)
			}
			for _, r := range roots {
				if r.Kind == Plugins && r.Holds([]byte("mkt/plug/1.0.0")) != (len(tc.want) == 3) {
					t.Errorf("the cache holds the in-place plugin's copy: %v", r.Holds([]byte("mkt/plug/1.0.0")))
				}
			}
		})
	}
}
