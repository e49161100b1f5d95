package claude

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/walker"
)

// pluginFronts are the files of a plugin that declare what it runs: hooks
// and MCP servers. They are inline in plugin.json or in files it names,
// in hooks/hooks.json and in .mcp.json.
var pluginFronts = []string{"hooks/hooks.json", ".claude-plugin/plugin.json", ".mcp.json"}

// pluginFront keeps the hooks and mcpServers of one of a plugin's JSON
// files.
func pluginFront(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.PluginFront(data))
}

// pluginHooksFront keeps the hooks of one of a plugin's JSON files. It is
// for a plugin loaded without its MCP servers.
func pluginHooksFront(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.PluginHooks(data))
}

// skillFront reads SKILL.md's frontmatter, and a plugin's files as a
// plugin's.
func skillFront(path, data []byte) ([]byte, []anomaly.Reason) {
	if string(path) == "SKILL.md" {
		return frontmatterExtract(path, data)
	}
	return pluginFront(path, data)
}

// skillJoin: a skills folder is a plugin only with
// .claude-plugin/plugin.json. Else its form is SKILL.md's alone, as before
// plugins were known there.
func skillJoin(paths []string, canons [][]byte) []byte {
	if slices.Contains(paths, ".claude-plugin/plugin.json") {
		return joinForms(paths, canons)
	}
	if i := slices.Index(paths, "SKILL.md"); i >= 0 {
		return canons[i]
	}
	return nil
}

// pluginRefs are the files plugin.json names for its hooks and MCP servers.
func pluginRefs(path string, canon []byte) []string {
	if path != ".claude-plugin/plugin.json" {
		return nil
	}
	return config.PluginRefs(canon)
}

// joinForms is config.JoinForms of the plugin's own files, with the
// modules its hooks files list (config.WithModules), as the walker calls it. It adds what its marketplace.json says of it under
// config.EntryKey. That file is read at a bound path
// (walker.NameSpec.OutsideExtract).
func joinForms(paths []string, canons [][]byte) []byte {
	var own, entries [][]byte
	var ownPaths []string
	for i, p := range paths {
		if strings.HasPrefix(p, walker.ScriptsPath+"/") {
			entries = append(entries, canons[i])
		} else {
			own, ownPaths = append(own, canons[i]), append(ownPaths, p)
		}
	}
	form := []byte("{}")
	if len(own) > 0 {
		if form = config.WithModules(config.JoinForms(own), ownPaths, own); form == nil {
			return nil
		}
	}
	for _, e := range entries {
		form = config.WithEntry(form, e)
	}
	return form
}

// entryForm is the plugin roots' walker.NameSpec.OutsideExtract. It reads
// the marketplace.json bound into the candidate name as what it says of
// that candidate's plugin. A cache version's plugin is found by its
// folder, the name its install keys it by. A folder loaded in place is
// found by its install.
func (r Root) entryForm(name []byte, _ string, data []byte) ([]byte, bool) {
	plugin := string(r.SourcePlugin(name))
	if r.Kind == Plugins {
		parts := strings.Split(string(name), "/")
		if len(parts) != 3 {
			return nil, false
		}
		plugin = parts[1]
	}
	return config.MarketEntry(data, plugin)
}
