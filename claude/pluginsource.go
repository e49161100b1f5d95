package claude

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/walker"
)

// A plugin whose marketplace is a folder of this machine (a "directory" or
// "file" source in known_marketplaces.json) and whose marketplace.json entry
// names it by a relative path is loaded by Claude Code from that path under
// the marketplace's installLocation, in place: never from the cache copy
// its install wrote, whatever installed_plugins.json names (the client's
// loader, 2.1.328: a string entry source of a local marketplace is read
// from the folder; pinned by the e2e cases
// TestADirectoryMarketplacePluginLoadsFromItsSourceNotTheCache and
// TestAnEditedMarketplaceFolderIsToldAndHeld). Any other source (git,
// github, url, npm: a clone under plugins/marketplaces, or a fetched
// package) is copied into the cache and loaded from the install's
// installPath, which the cache root watches.

// PluginSource is the folder one installed plugin loads from in place.
type PluginSource struct {
	Plugin string // plugin@marketplace, as installed_plugins.json keys it
	// Dir holds the folder, Name is its entry in Dir: Dir is the
	// marketplace's installLocation (as written), Name the entry's one
	// path component. An entry that is the marketplace folder itself, or
	// lies deeper than one folder, or cannot be read, is the whole
	// marketplace folder (Dir its parent): the client only loads what
	// stays inside it, so nothing it loads is left out.
	Dir, Name string
	// Market is the marketplace.json the client reads the plugin's entry
	// from (its hooks, servers and component paths apply to the plugin):
	// bound into the candidate, "" when it lies inside the folder.
	Market string
	// NoMCP: the client loads the plugin without its MCP servers
	// (--plugin-dir-no-mcp): it reads neither .mcp.json nor plugin.json's
	// mcpServers.
	NoMCP bool
}

// pluginSources reads, through the walker, the client's plugin registries
// in <cfg>/plugins and the marketplace.json of each local marketplace an
// installed plugin comes from, and lists the folders those plugins load
// from. A registry that cannot be read is its own candidate's anomaly (the
// Config root <cfg>/plugins); a marketplace location that is not plainly
// absolute cannot be opened as a root and is told by StandingFacts.
func pluginSources(cfg string) []PluginSource {
	reads, err := walker.ReadFiles(cfg, "plugins", []string{"installed_plugins.json", "known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	installed, known := WholeForm(reads[0]), WholeForm(reads[1])
	if installed == nil || known == nil {
		return nil
	}
	markets := config.LocalMarketplaces(known)
	var out []PluginSource
	for _, key := range config.InstalledPlugins(installed) {
		i := strings.LastIndexByte(key, '@')
		if i <= 0 {
			continue
		}
		j := slices.IndexFunc(markets, func(m config.LocalMarketplace) bool { return m.Name == key[i+1:] })
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
// written: plainly absolute (a "." or ".." component, a doubled or
// trailing slash would be resolved by the client, never by skillwire),
// and not "/" (its folder needs a parent to be a candidate of).
func openable(loc string) bool { return PlainPath(loc) && loc != "/" }

// unwatchedSources are the standing facts of known_marketplaces.json (its
// canonical form canon): each local marketplace whose location cannot be
// opened as written, so that what its plugins load is not watched.
func unwatchedSources(canon []byte) []config.Fact {
	var fs []config.Fact
	for _, m := range config.KnownLocalMarketplaces(canon) {
		if !openable(m.Location) {
			fs = append(fs, config.Fact{Kind: config.FactPluginSourceUnwatched, Name: m.Name, Command: m.Location})
		}
	}
	return fs
}

// WholeForm is the canonical form of a registry file read whole, nil when
// it is missing or could not be read or parsed without an anomaly (a key
// given twice is read one way here and may be read another by the client).
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

// sourceOf is the folder plugin (installed as key) of the local marketplace
// m loads from; ok is false when its entry is fetched (the cache holds it)
// or absent (nothing loads).
func sourceOf(m config.LocalMarketplace, key, plugin string) (PluginSource, bool) {
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
	src, found, relative := config.MarketplaceEntry(form, plugin)
	if !found || !relative {
		return PluginSource{}, false
	}
	rest := src
	if r, ok := strings.CutPrefix(src, "./"); ok {
		rest = strings.TrimLeft(r, "/")
	} else if src == "." {
		rest = ""
	}
	if rest == "" || !ValidName(Skills, []byte(rest)) || strings.Contains(rest, `\`) {
		return whole, true
	}
	return PluginSource{Plugin: key, Dir: m.Location, Name: rest, Market: m.Location + "/.claude-plugin/" + manifest}, true
}

// sourceRoots are the PluginSources roots of ss, of scope: one per folder,
// its Names the plugins' folders in it, each named for its plugin in
// Sources.
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

// Display is how the candidate name of r is shown: a plugin's source
// folder by its plugin, "plugin@marketplace", when both parts and the
// folder's name pass the display gate; any other as Display shows it.
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
// the PluginSources root r by its install (its plugin.json may give
// another); nil when r names none.
func (r Root) SourcePlugin(name []byte) []byte {
	if p, _, _ := strings.Cut(r.Sources[string(name)], "@"); p != "" {
		return []byte(p)
	}
	return nil
}
