package claude

import (
	"os"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/config/registry"
	"github.com/skillwire/skillwire/walker"
)

// A plugin of a local marketplace loads in place from its source folder.
// A local marketplace is a "directory" or "file" source in
// known_marketplaces.json. When its marketplace.json entry names the
// plugin by a relative path, the client loads it from that path under
// installLocation. It never loads the cache copy, whatever
// installed_plugins.json names. Any other source is copied into the
// cache, which the cache root watches.
// TestAnInstalledLocalPluginIsWatchedWhereTheClientLoadsIt holds the
// rule.

// PluginSource is the folder one installed plugin loads from in place.
type PluginSource struct {
	Plugin string // plugin@marketplace, as installed_plugins.json keys it
	// Dir holds the folder, and Name is its entry in Dir. Name is the
	// entry's last path component, and Dir the folder holding it, below
	// the marketplace's installLocation as written: for
	// "./plugins/NAME", <installLocation>/plugins. Some entries are the
	// whole marketplace folder, with Dir its parent: the marketplace folder
	// itself ("./"), one through a link, one that cannot be read. The
	// client only loads what stays inside that folder, so nothing it loads
	// is left out.
	Dir, Name string
	// Market is the marketplace.json the client reads the plugin's entry
	// from. Its hooks, servers and component paths apply to the plugin.
	// It is bound into the candidate; "" when it lies inside the folder.
	Market string
	// NoMCP: the client loads the plugin without its MCP servers
	// (--plugin-dir-no-mcp). It reads neither .mcp.json nor plugin.json's
	// mcpServers.
	NoMCP bool
	// Entry: Dir/Name is the folder the marketplace entry names, and the
	// client surely parses the entry (config.EntryParses). It never loads
	// the cache copy then, so the cache holds none.
	Entry bool
}

// pluginSources lists the folders the installed plugins load from. It
// reads the client's plugin registries in <cfg>/plugins through the
// walker. It also reads the marketplace.json of each local marketplace a
// plugin comes from. An unreadable registry is its own candidate's
// anomaly, under the Config root <cfg>/plugins. A marketplace location
// that is not plainly absolute cannot be opened as a root. StandingFacts
// tells it.
func pluginSources(cfg string) []PluginSource {
	reads, err := walker.ReadFiles(cfg, "plugins", []string{"installed_plugins.json", "known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	installed, known := WholeForm(reads[0]), WholeForm(reads[1])
	if installed == nil || known == nil {
		return nil
	}
	markets := registry.LocalMarketplaces(known)
	var out []PluginSource
	for _, key := range registry.InstalledPlugins(installed) {
		i := strings.LastIndexByte(key, '@')
		if i <= 0 {
			continue
		}
		j := slices.IndexFunc(markets, func(m registry.LocalMarketplace) bool { return m.Name == key[i+1:] })
		if j < 0 || !openable(markets[j].Location) {
			continue
		}
		if s, ok := sourceOf(markets[j], key, key[:i]); ok {
			out = append(out, s)
		}
	}
	return out
}

// openable reports whether a marketplace location can be watched as
// written. It must be plainly absolute: the client would resolve a "." or
// ".." component or a doubled or trailing slash, never skillwire. It must
// not be "/": its folder needs a parent to be a candidate of.
func openable(loc string) bool { return PlainPath(loc) && loc != "/" }

// unwatchedSources are the standing facts of known_marketplaces.json, of
// canonical form canon. Each is a local marketplace whose location cannot
// be opened as written: what its plugins load is not watched.
func unwatchedSources(canon []byte) []config.Fact {
	var fs []config.Fact
	for _, m := range registry.KnownLocalMarketplaces(canon) {
		if !openable(m.Location) {
			fs = append(fs, config.Fact{Kind: config.FactPluginSourceUnwatched, Name: m.Name, Command: m.Location})
		}
	}
	return fs
}

// WholeForm is the canonical form of a registry file read whole. It is nil
// when the file is missing, unreadable or parsed with an anomaly. A key
// given twice is read one way here and may be read another by the client.
func WholeForm(f walker.FileRead) []byte {
	if f.Missing || f.Reason != 0 {
		return nil
	}
	ex := config.WholeJSON(f.Data, int64(len(f.Data)))
	if len(ex.Anomalies) > 0 {
		return nil
	}
	return ex.Canonical
}

// sourceOf is the folder that plugin, installed as key, of the local
// marketplace m loads from. ok is false when its entry is fetched (the
// cache holds it) or absent (nothing loads).
func sourceOf(m registry.LocalMarketplace, key, plugin string) (PluginSource, bool) {
	whole := PluginSource{Plugin: key, Dir: parent(m.Location), Name: m.Location[strings.LastIndexByte(m.Location, '/')+1:]}
	manifest := "marketplace.json"
	if m.Source == "file" {
		rest, ok := strings.CutPrefix(m.Path, m.Location+"/.claude-plugin/")
		if !ok || rest == "" || strings.Contains(rest, "/") {
			whole.Market = m.Path // the client reads a file skillwire cannot prove is this one
			return whole, true
		}
		manifest = rest
	}
	reads, err := walker.ReadFiles(m.Location, ".claude-plugin", []string{manifest}, config.MaxJSON)
	if err != nil || reads == nil {
		return whole, true
	}
	form := WholeForm(reads[0])
	if form == nil {
		return whole, true
	}
	src, found, relative := registry.MarketplaceEntry(form, plugin)
	if !found || !relative {
		return PluginSource{}, false
	}
	parses := config.EntryParses(reads[0].Data, plugin) // else the client may load the cache copy
	rest := src
	if r, ok := strings.CutPrefix(src, "./"); ok {
		rest = strings.TrimLeft(r, "/")
	} else if src == "." {
		rest = ""
	}
	dir, name, ok := sourceFolder(m.Location, rest)
	if !ok {
		whole.Entry = rest == "" && parses // "./": the marketplace is the plugin
		return whole, true
	}
	return PluginSource{Plugin: key, Dir: dir, Name: name, Market: m.Location + "/.claude-plugin/" + manifest, Entry: parses}, true
}

// maxSourceDepth bounds the components of an entry's folder below its
// marketplace: "./plugins/NAME" has two.
const maxSourceDepth = 4

// sourceFolder splits the entry folder rest of the marketplace folder loc
// into the folder holding it and its name. Each component is a name: never
// "", "." or "..", nor a backslash. Each folder on the way must be a
// folder, not a link: a link is then told as the whole marketplace's
// content. ok is false for any other rest.
func sourceFolder(loc, rest string) (dir, name string, ok bool) {
	comps := strings.Split(strings.TrimRight(rest, "/"), "/")
	if rest == "" || len(comps) > maxSourceDepth {
		return "", "", false
	}
	for _, c := range comps {
		if !ValidName(Skills, []byte(c)) || strings.Contains(c, `\`) {
			return "", "", false
		}
	}
	dir = loc
	for _, c := range comps[:len(comps)-1] {
		dir += "/" + c
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			return "", "", false
		}
	}
	return dir, comps[len(comps)-1], true
}

// inPlace are the cache folders, <marketplace>/<plugin>, of the plugins
// of ss that load in place.
func inPlace(ss []PluginSource) []string {
	var out []string
	for _, s := range ss {
		if i := strings.LastIndexByte(s.Plugin, '@'); s.Entry && i > 0 {
			out = append(out, s.Plugin[i+1:]+"/"+s.Plugin[:i])
		}
	}
	return out
}

// sourceRoots are the PluginSources roots of ss, of scope, one per folder.
// A root's Names are the plugins' folders in it. Sources names each for
// its plugin.
func sourceRoots(ss []PluginSource, scope Scope) []Root {
	var roots []Root
	for _, s := range ss {
		i := slices.IndexFunc(roots, func(r Root) bool { return r.Path == s.Dir })
		if i < 0 {
			roots = append(roots, Root{Path: s.Dir, Scope: scope, Kind: PluginSources, Sources: map[string]string{}})
			i = len(roots) - 1
		}
		r := &roots[i]
		if _, had := r.Sources[s.Name]; !had {
			r.Names = append(r.Names, s.Name)
			r.Sources[s.Name] = s.Plugin // the first plugin (by key) names a folder two entries share
			if s.NoMCP {
				r.NoMCP = append(r.NoMCP, s.Name)
			}
		}
		r.bindMarket(s.Name, s.Market)
	}
	return roots
}

// Display is how the candidate name of r is shown. A plugin's source
// folder shows as its plugin, "plugin@marketplace", when both parts and
// the folder's name pass the display gate. Any other shows as Display
// shows it.
func (r Root) Display(name []byte) (string, bool) {
	if r.Kind != PluginSources {
		return Display(r.Kind, name)
	}
	p, m, ok := strings.Cut(r.Sources[string(name)], "@")
	if ok && anomaly.Gate([]byte(p)) && anomaly.Gate([]byte(m)) && anomaly.Gate(name) {
		return p + "@" + m, true
	}
	return "", false
}

// SourcePlugin is the plugin name Claude Code gives the candidate name of
// the PluginSources root r by its install. Its plugin.json may give
// another. nil when r names none.
func (r Root) SourcePlugin(name []byte) []byte {
	if p, _, _ := strings.Cut(r.Sources[string(name)], "@"); p != "" {
		return []byte(p)
	}
	return nil
}
