package config

import (
	"slices"
	"strings"
)

// pluginKeys are what a plugin's files declare that runs.
var pluginKeys = []string{"hooks", "mcpServers"}

// PluginFront keeps the hooks, mcpServers and modules of one of a
// plugin's JSON files. Which file's modules load is WithModules's to say.
func PluginFront(data []byte) Extract {
	return pluginFront(data, []string{"hooks", "mcpServers", "modules"})
}

// PluginHooks keeps the hooks and modules of one of a plugin's JSON files,
// for a plugin the client loads without its MCP servers.
func PluginHooks(data []byte) Extract { return pluginFront(data, []string{"hooks", "modules"}) }

func pluginFront(data []byte, keys []string) Extract {
	ex := WholeJSON(data, int64(len(data)))
	if ex.Canonical == nil {
		return ex
	}
	doc := decodeCanonical(ex.Canonical)
	kept := map[string]any{}
	for _, k := range keys {
		if v, ok := doc[k]; ok {
			kept[k] = v
		}
	}
	ex.Canonical = canonicalJSON(kept)
	return ex
}

// PluginRefs are the files the form of a plugin.json names for its hooks
// and MCP servers. Each is a path, or a list of paths, relative to the
// plugin's root.
func PluginRefs(canon []byte) []string {
	doc := decodeCanonical(canon)
	var refs []string
	for _, k := range pluginKeys {
		for _, v := range append(cfgList(doc[k]), doc[k]) {
			if s, ok := v.(string); ok {
				refs = append(refs, strings.TrimPrefix(s, "./"))
			}
		}
	}
	return refs
}

// JoinForms makes one form of a candidate's front files. Each event's
// hooks come in the order the files were read. MCP servers are by name,
// and the first file to declare a name keeps it. Every other key is the
// first file's. A path left as a string is a file read on its own. An
// unparsable file has no form, and leaves the candidate without one. A
// form missing its declarations would tell less than it runs.
func JoinForms(canons [][]byte) []byte {
	if slices.ContainsFunc(canons, func(c []byte) bool { return c == nil }) {
		return nil
	}
	out := decodeCanonical(canons[0])
	for _, c := range canons[1:] {
		doc := decodeCanonical(c)
		if h, ok := doc["hooks"].(map[string]any); ok {
			dst, ok := out["hooks"].(map[string]any)
			if !ok {
				dst = map[string]any{}
				out["hooks"] = dst
			}
			for ev, groups := range h {
				dst[ev] = append(cfgList(dst[ev]), cfgList(groups)...)
			}
		}
		if m, ok := doc["mcpServers"].(map[string]any); ok {
			dst, ok := out["mcpServers"].(map[string]any)
			if !ok {
				dst = map[string]any{}
				out["mcpServers"] = dst
			}
			for name, v := range m {
				if _, had := dst[name]; !had {
					dst[name] = v
				}
			}
		}
	}
	return canonicalJSON(out)
}

// PluginInstall is one install installed_plugins.json lists.
type PluginInstall struct{ Plugin, Path string }

// PluginInstalls lists the installs of a canonical installed_plugins.json
// by plugin name. Each has its installPath as written, "" when none.
func PluginInstalls(canon []byte) []PluginInstall {
	var out []PluginInstall
	for _, in := range PluginInstallRecords(canon) {
		out = append(out, PluginInstall{Plugin: in.Plugin, Path: cfgText(in.Fields["installPath"])})
	}
	return out
}

// PluginInstallRecord is one install installed_plugins.json lists. Every
// field is as the record holds it: attacker values, of any JSON type.
type PluginInstallRecord struct {
	Plugin string
	Fields map[string]any
}

// PluginInstallRecords lists the installs of a canonical
// installed_plugins.json by plugin name. An entry that is not an object
// is none.
func PluginInstallRecords(canon []byte) []PluginInstallRecord {
	plugins, _ := decodeCanonical(canon)["plugins"].(map[string]any)
	var out []PluginInstallRecord
	for _, name := range cfgKeys(plugins) {
		for _, in := range installs(plugins[name]) {
			out = append(out, PluginInstallRecord{Plugin: name, Fields: in})
		}
	}
	return out
}
