package mainagent

import (
	"strings"
	"unicode/utf16"
)

// fit is how an agent's name answers to a settings' "agent". Claude Code
// 2.1.332 takes the agent named exactly so. Else it takes the first,
// sorted by name, whose name ends in ":" and the setting
// (e2e TestTheMainAgentIsNamedAsTheClientNamesPluginAgents).
type fit int

const (
	none   fit = iota
	suffix     // the name ends in ":" and the setting: taken when none is exact
	exact      // the name is the setting
)

// fitOf is how an agent named full answers to the setting n. Names compare
// as bytes: the client folds no case here.
func fitOf(full, n string) fit {
	switch {
	case full == n:
		return exact
	case len(full) > len(n) && strings.HasSuffix(full, n) && full[len(full)-len(n)-1] == ':':
		return suffix
	}
	return none
}

// maxFrontName is the longest frontmatter name the client keeps, in UTF-16
// units. A longer one is ignored for the file's stem.
const maxFrontName = 256

// pluginAgentName is the name the client gives a plugin's agent file at
// rel below its agents/ folder: the plugin's name, each subfolder, then
// the frontmatter name or else the file's stem, joined by ":".
// "sub/x.md" with name "y" is "plug:sub:y".
func pluginAgentName(plugin, rel, front string) string {
	dirs, file := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dirs, file = rel[:i], rel[i+1:]
	}
	name := strings.TrimSuffix(file, ".md")
	if front != "" && len(utf16.Encode([]rune(front))) <= maxFrontName {
		name = front
	}
	if dirs == "" {
		return plugin + ":" + name
	}
	return plugin + ":" + strings.ReplaceAll(dirs, "/", ":") + ":" + name
}
