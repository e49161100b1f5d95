package claude

import (
	"bytes"
	"strings"
)

// A plugin cache candidate is one installed version folder,
// <marketplace>/<plugin>/<version>. Claude Code's own record of what it
// installed is installed_plugins.json beside the cache, keyed
// plugin@marketplace, each install naming its folder by installPath: the
// client loads the folder named there, not whatever version folder sorts
// last (pinned by TestTheClientLoadsTheVersionItsRecordNames).

// cacheNoise are the files Claude Code 2.1.328 writes into a cached
// version folder for its own bookkeeping and never loads (the bundle names
// them together, as the names its copy and collection pass over), left out
// of the version's digest so that a reviewed version stays reviewed:
//   - .orphaned_at: the time an update or uninstall left the version
//     behind, written into the old folder (pinned by
//     TestAnUpdatedReviewedPluginIsPendingAndAsked: the old version is no
//     longer told changed);
//   - .in_use: a folder of one marker per running session (named by its
//     process id), so collection spares a version in use;
//   - .links_materialized: the stamp (JSON: the time, the client's build)
//     the client writes once it has turned a version's links into files,
//     read back only to skip that pass; its copy never takes one from a
//     plugin's source (pinned by TestTheClientsCopyHashIsRecomputedAndAMismatchIsTold:
//     the stamp written after skillwire observed the folder is no change).
//
// Any other name there is content: .claude-plugin-link (read to find a
// link farm), .claude-directory-proof.json (copied from the source and
// read as proof of the commit a folder is), .mcpb-cache (the MCP bundles
// it runs), .git, and a look-alike of a noise name (the client's own
// scratch .links_materialized.tmp.<hex> included).
var cacheNoise = []string{".in_use", ".links_materialized", ".orphaned_at"}

// PluginVersion splits a plugin cache candidate's name into its
// marketplace, plugin and version folders; ok is false for any other name.
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
// candidate under: plugin@marketplace (the folder names are the
// marketplace entry's, not plugin.json's).
func PluginKey(name []byte) (string, bool) {
	m, p, _, ok := PluginVersion(name)
	if !ok {
		return "", false
	}
	return string(p) + "@" + string(m), true
}

// Registry is the directory of the plugin cache root r that holds
// installed_plugins.json (<cfg>/plugins, the Config root beside it).
func (r Root) Registry() (string, bool) {
	if r.Kind != Plugins {
		return "", false
	}
	return strings.CutSuffix(r.Path, "/cache")
}

// VersionAt is the candidate of the plugin cache root r that an
// installPath names, compared as text (never cleaned): a path with an
// empty, "." or ".." component, or not three folders under r, names none.
func (r Root) VersionAt(installPath string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(installPath, r.Path+"/")
	if r.Kind != Plugins || !ok {
		return nil, false
	}
	_, _, _, ok = PluginVersion([]byte(rest))
	return []byte(rest), ok
}
