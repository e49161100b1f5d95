package claude

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
)

// pluginFronts are the files of a plugin that declare what it runs: hooks
// and MCP servers, inline in plugin.json or in files it names, in
// hooks/hooks.json and in .mcp.json.
var pluginFronts = []string{"hooks/hooks.json", ".claude-plugin/plugin.json", ".mcp.json"}

// pluginKeys are what a plugin's files declare that runs.
var pluginKeys = []string{"hooks", "mcpServers"}

// pluginFront keeps the hooks and mcpServers of one of a plugin's JSON files.
func pluginFront(_, data []byte) ([]byte, []anomaly.Reason) {
	ex := WholeJSON(data, int64(len(data)))
	if ex.Canonical == nil {
		return reasons(ex)
	}
	doc := decodeCanonical(ex.Canonical)
	kept := map[string]any{}
	for _, k := range pluginKeys {
		if v, ok := doc[k]; ok {
			kept[k] = v
		}
	}
	ex.Canonical = canonicalJSON(kept)
	return reasons(ex)
}

// skillFront reads SKILL.md's frontmatter, and a plugin's files as a plugin's.
func skillFront(path, data []byte) ([]byte, []anomaly.Reason) {
	if string(path) == "SKILL.md" {
		return frontmatterExtract(path, data)
	}
	return pluginFront(path, data)
}

// skillJoin: a skills folder is a plugin only with .claude-plugin/plugin.json;
// else its form is SKILL.md's alone, as before plugins were known there.
func skillJoin(paths []string, canons [][]byte) []byte {
	if slices.Contains(paths, ".claude-plugin/plugin.json") {
		return joinForms(paths, canons)
	}
	if i := slices.Index(paths, "SKILL.md"); i >= 0 {
		return canons[i]
	}
	return nil
}

// pluginRefs are the files plugin.json names for its hooks and MCP servers
// (a path, or a list of paths, relative to the plugin's root).
func pluginRefs(path string, canon []byte) []string {
	if path != ".claude-plugin/plugin.json" {
		return nil
	}
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

// joinForms makes one form of a candidate's front files: each event's
// hooks in the order the files were read, MCP servers by name (the first
// file to declare a name keeps it), every other key of the first file.
// A path left as a string is a file read on its own. A file without a
// form (unparsable) leaves the candidate without one: a form missing its
// declarations would tell less than it runs.
func joinForms(_ []string, canons [][]byte) []byte {
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
