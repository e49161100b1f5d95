// Package registry reads the client's plugin registries in their canonical
// form: the local marketplaces known_marketplaces.json names, the plugins
// installed_plugins.json lists, and a marketplace's entry for a plugin.
package registry

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude/config"
)

// decode is a canonical form as a JSON object, empty when it is none.
func decode(canon []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(canon, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// keys are m's keys, sorted.
func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// list is v as a list; an object is a list of one, as config reads it.
func list(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case map[string]any:
		return []any{v}
	}
	return nil
}

// LocalMarketplace is a marketplace known_marketplaces.json records from a
// folder of this machine ("directory") or a marketplace.json in one
// ("file"). Claude Code 2.1.328 loads in place, from Location, each of its
// plugins whose entry names a relative path. It never loads the cache copy
// its install wrote. The e2e case
// TestADirectoryMarketplacePluginLoadsFromItsSourceNotTheCache pins it.
type LocalMarketplace struct {
	Name string
	// Source is "directory" or "file". Path is the source's path, as
	// written.
	Source, Path string
	// Location is the installLocation as written, "" when it is not a
	// string.
	Location string
}

// LocalMarketplaces lists the local marketplaces of a canonical
// known_marketplaces.json (WholeJSON's form), by name.
func LocalMarketplaces(canon []byte) []LocalMarketplace {
	return localMarketplaces(decode(canon))
}

// KnownLocalMarketplaces is LocalMarketplaces of KnownMarketplaces' form.
func KnownLocalMarketplaces(canon []byte) []LocalMarketplace {
	doc, _ := decode(canon)[config.KnownMarketplacesKey].(map[string]any)
	return localMarketplaces(doc)
}

func localMarketplaces(doc map[string]any) []LocalMarketplace {
	var out []LocalMarketplace
	for _, name := range keys(doc) {
		m, _ := doc[name].(map[string]any)
		src, _ := m["source"].(map[string]any)
		kind, _ := src["source"].(string)
		if kind != "directory" && kind != "file" {
			continue
		}
		path, _ := src["path"].(string)
		loc, _ := m["installLocation"].(string)
		out = append(out, LocalMarketplace{Name: name, Source: kind, Path: path, Location: loc})
	}
	return out
}

// InstalledPlugins lists the plugins (plugin@marketplace) a canonical
// installed_plugins.json holds installs of.
func InstalledPlugins(canon []byte) []string {
	plugins, _ := decode(canon)["plugins"].(map[string]any)
	return keys(plugins)
}

// MarketplaceEntry is what a canonical marketplace.json says of the plugin
// named plugin. The client takes its first entry of that name. found is
// false when there is none. relative is true when its source is a path,
// and source is then that path as written. relative is false when the
// source is fetched, an object such as github, url or npm. The client
// installs a fetched source into the cache.
func MarketplaceEntry(canon []byte, plugin string) (source string, found, relative bool) {
	for _, e := range list(decode(canon)["plugins"]) {
		m, ok := e.(map[string]any)
		if !ok || m["name"] != plugin {
			continue
		}
		s, ok := m["source"].(string)
		return s, true, ok
	}
	return "", false, false
}

// MarketplaceFiles maps each marketplace of a canonical
// known_marketplaces.json (WholeJSON's form) to a marketplace.json. It is
// the one the client reads its plugins' entries from, as written. For a
// "file" source it is the source's path. For an installLocation naming a
// .json file, a "url" source's download, it is that file. Else it is
// <installLocation>/.claude-plugin/marketplace.json, in a folder or in a
// clone of a git or github source. A marketplace without a string
// location is left out.
func MarketplaceFiles(canon []byte) map[string]string {
	doc := decode(canon)
	out := map[string]string{}
	for _, name := range keys(doc) {
		m, _ := doc[name].(map[string]any)
		src, _ := m["source"].(map[string]any)
		loc, _ := m["installLocation"].(string)
		path, _ := src["path"].(string)
		switch {
		case src["source"] == "file" && path != "":
			out[name] = path
		case loc == "":
		case strings.HasSuffix(strings.ToLower(loc), ".json"):
			out[name] = loc
		default:
			out[name] = loc + "/.claude-plugin/marketplace.json"
		}
	}
	return out
}
