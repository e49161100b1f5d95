package claude

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// DevModsDir is where, below <cfg>, the client keeps the mods it writes:
// <session id>/<name>/ (issue 30). It reads a session's folder as a
// --plugin-dir folder of plugins, and loads it in the background. Every
// session's folder is watched: a --resume loads an older one.
const DevModsDir = "dev-mods"

// maxDevModSessions bounds the session folders watched, as MaxPluginDirs
// bounds --plugin-dir folders.
const maxDevModSessions = 32

// devModNoise are the files Claude Code 2.1.328 writes into each dev mod
// folder for the editor the mod is written in. The client never loads
// them as the mod: they are never a change of it.
var devModNoise = []string{
	"tsconfig.json", // compiler options for the editor; the client compiles a .ts module with its own
	".gitignore",    // keeps the types below out of a repository
	".claude-plugin/types/claude-code/index.d.ts",       // the types of register(on), for the editor
	".claude-plugin/types/claude-code-tools/index.d.ts", // the tools' types
	".claude-plugin/types/claude-code-mcp/index.d.ts",   // the MCP types
	".claude-plugin/types/tsconfig.json",                // the types' own compiler options
}

// devMods are the plugins of <cfg>/dev-mods/<session id>/, named as the
// client names them (name@inline).
func devMods(cfg string) []PluginSource {
	if cfg == "" {
		return nil
	}
	dir := pathname.Join(cfg, DevModsDir)
	w := walker.Discover([]walker.RootSpec{{Path: dir}}, walker.DefaultConfig())[0]
	var sessions []string
	for _, c := range w.Candidates {
		if c.Kind == walker.KindDir && len(sessions) < maxDevModSessions {
			sessions = append(sessions, pathname.Join(dir, string(c.Name)))
		}
	}
	slices.Sort(sessions)
	return InlinePlugins(sessions, nil).Plugins
}

// isDevMods reports whether a plugin-sources root is a session's dev-mods
// folder.
func isDevMods(path string) bool {
	return strings.HasSuffix(pathname.Parent(path), "/"+DevModsDir)
}
