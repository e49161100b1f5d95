package claude

import (
	"bytes"
	"strings"
)

// A plugin cache candidate is one installed version folder,
// <marketplace>/<plugin>/<version>. Claude Code records its installs in
// installed_plugins.json beside the cache, keyed plugin@marketplace. Each
// install names its folder by installPath. The client loads the folder
// named there, not the version folder that sorts last. That is pinned by
// TestTheClientLoadsTheVersionItsRecordNames.

// cacheNoise are the files Claude Code 2.1.328 writes into a cached
// version folder for its own bookkeeping and never loads. They are left
// out of the version's digest, so that a reviewed version stays reviewed.
//   - .orphaned_at: when an update or uninstall left the version behind.
//   - .in_use: one marker per running session, to spare a version in use.
//   - .links_materialized: the stamp of a version's links made files.
//
// Any other name there is content, a look-alike of a noise name included.
// TestTheClientsBookkeepingInAVersionFolderIsNoiseAndNothingElseIs holds
// the record.
var cacheNoise = []string{".in_use", ".links_materialized", ".orphaned_at"}

// PluginVersion splits a plugin cache candidate's name into its
// marketplace, plugin and version folders. ok is false for any other name.
func PluginVersion(name []byte) (market, plugin, version []byte, ok bool) {
	parts := bytes.Split(name, []byte{'/'})
	if len(parts) != 3 || !ValidName(Plugins, name) {
		return nil, nil, nil, false
	}
	return parts[0], parts[1], parts[2], true
}

// SamePlugin reports whether a and b are two version folders of one plugin
// of one marketplace.
func SamePlugin(a, b []byte) bool {
	ma, pa, _, ok1 := PluginVersion(a)
	mb, pb, _, ok2 := PluginVersion(b)
	return ok1 && ok2 && bytes.Equal(ma, mb) && bytes.Equal(pa, pb)
}

// PluginKey is the key installed_plugins.json lists the plugin of a cache
// candidate under: plugin@marketplace. The folder names are the
// marketplace entry's, not plugin.json's.
func PluginKey(name []byte) (string, bool) {
	m, p, _, ok := PluginVersion(name)
	if !ok {
		return "", false
	}
	return string(p) + "@" + string(m), true
}

// Registry is the directory of the plugin cache root r that holds
// installed_plugins.json. It is <cfg>/plugins, the Config root beside it.
func (r Root) Registry() (string, bool) {
	if r.Kind != Plugins {
		return "", false
	}
	return strings.CutSuffix(r.Path, "/cache")
}

// VersionAt is the candidate of the plugin cache root r that an
// installPath names. It is compared as text, never cleaned. A path with an
// empty, "." or ".." component, or not three folders under r, names none.
func (r Root) VersionAt(installPath string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(installPath, r.Path+"/")
	if r.Kind != Plugins || !ok {
		return nil, false
	}
	_, _, _, ok = PluginVersion([]byte(rest))
	return []byte(rest), ok
}

// Listed is how list, scan and status show the candidate name of r. It is
// Display's, but for a cached plugin version's plugin the name the client
// gives it: its plugin.json "name", which namespaces its skills
// (name:skill) and which /plugin shows. The cache folder is the
// marketplace entry's name, which plugin.json may contradict. A plugin.json
// the client refuses, or skillwire cannot read as the client does, leaves
// the folder's name. So does a name the display gate refuses: a plugin
// that picks one stays known by its folder, never hidden by it.
func (r Root) Listed(name []byte) (string, bool) {
	m, p, v, ok := PluginVersion(name)
	if r.Kind != Plugins || !ok {
		return r.Display(name)
	}
	if n, why := clientName(r.Path+"/"+string(name), string(p)); n != "" && why == "" {
		if shown, ok := Display(Plugins, bytes.Join([][]byte{m, []byte(n), v}, []byte{'/'})); ok {
			return shown, true
		}
	}
	return Display(Plugins, name)
}
