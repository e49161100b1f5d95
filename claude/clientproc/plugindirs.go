package clientproc

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude"
)

// Claude Code 2.1.328 loads a plugin, for the session only, from two
// places (e2e/plugindir_test.go). One is each folder given with
// --plugin-dir or --plugin-dir-no-mcp. Each flag takes one value and may
// repeat. A relative value is read against the folder the client started
// in. The other is each absolute folder of CLAUDE_CODE_PLUGIN_DIRS. There
// a ~ is expanded and a relative folder skipped. Before any hook runs, the
// client settles the variable to the list it loads. Each entry is
// path.resolve'd, and they are joined by ":". A hook inherits that list,
// whoever set it: the environment, the user's settings env, --settings. A
// project's or local settings env does not reach it (pinned). A folder
// that holds several plugins loads each (claude.InlinePlugins).

// PluginDirs is what the client's command line and environment say of the
// plugin folders it loads.
type PluginDirs struct {
	// Dirs are the folders given, absolute, as the client reads them.
	Dirs []string
	// NoMCP are those of Dirs the client loads without their MCP servers.
	// They were given only with --plugin-dir-no-mcp. The client reads
	// neither their .mcp.json nor plugin.json's mcpServers.
	NoMCP []string
	// Problem, in fixed words, is why they cannot all be observed. It is
	// "" when they can.
	Problem string
}

// MaxPluginDirs bounds the plugin folders watched. The rest are told.
const MaxPluginDirs = 32

// envPluginDirs is the client's settled list of plugin folders.
const envPluginDirs = "CLAUDE_CODE_PLUGIN_DIRS"

// Problems reading the plugin folders, in fixed words.
const (
	problemPluginZip     = "a plugin given as a .zip is loaded from inside the archive, which skillwire does not watch"
	problemPluginURL     = "a plugin given with --plugin-url is fetched, and skillwire does not watch it"
	problemPluginInit    = "the client was started with --await-initialize, whose plugins come from a request skillwire cannot read"
	problemPluginEnv     = "a folder of CLAUDE_CODE_PLUGIN_DIRS is not an absolute path without . or .. components"
	problemPluginTooMany = "more plugin folders were given than skillwire watches"
)

// pluginDirs reads the plugin folders of argv and of the hook's own
// environment, the client's settled CLAUDE_CODE_PLUGIN_DIRS. A relative
// flag value is read against launch.
func pluginDirs(argv []string, env claude.Env, launch *launchDir) PluginDirs {
	var out PluginDirs
	problem := func(p string) {
		if out.Problem == "" {
			out.Problem = p
		}
	}
	add := func(p string) {
		switch {
		case slices.Contains(out.Dirs, p):
		case len(out.Dirs) == MaxPluginDirs:
			problem(problemPluginTooMany)
		default:
			out.Dirs = append(out.Dirs, p)
		}
	}
	flags := PluginDirArgs(argv)
	if flags.URL {
		problem(problemPluginURL)
	}
	if flags.Initialize {
		problem(problemPluginInit)
	}
	// The client reads a folder given only with --plugin-dir-no-mcp
	// without its MCP servers. It drops an entry of its settled variable
	// equal to one (withoutPluginDirs). A folder given both ways is read
	// with them.
	var withMCP []string
	for _, set := range []struct {
		vals  []string
		noMCP bool
	}{{flags.Dirs, false}, {flags.NoMCP, true}} {
		for _, v := range set.vals {
			if strings.HasSuffix(strings.ToLower(v), ".zip") {
				problem(problemPluginZip)
				continue
			}
			p, why := launch.resolve(v)
			if why != "" {
				problem(why)
				continue
			}
			switch {
			case !set.noMCP:
				withMCP = append(withMCP, p)
			case !slices.Contains(withMCP, p) && !slices.Contains(out.NoMCP, p):
				out.NoMCP = append(out.NoMCP, p)
			}
			add(p)
		}
	}
	settled, _ := env.Getenv(envPluginDirs)
	for _, v := range strings.Split(settled, ":") {
		switch {
		case v == "":
		case !claude.PlainPath(v):
			problem(problemPluginEnv)
		case strings.HasSuffix(strings.ToLower(v), ".zip"):
			problem(problemPluginZip)
		default:
			add(v)
		}
	}
	return out
}

// PluginFlags are the plugin options of a command line.
type PluginFlags struct {
	// Dirs are the values of --plugin-dir, NoMCP those of
	// --plugin-dir-no-mcp. Each keeps the command line's order.
	Dirs, NoMCP []string
	// URL: --plugin-url was given. Initialize: --await-initialize was
	// given, which takes plugins from the SDK's initialize request on stdin.
	URL, Initialize bool
}

// PluginDirArgs reads the plugin options of argv (argv[0] first). No
// folder Claude Code 2.1.328's option parser (Commander) loads is left
// out. TestPluginDirArgsReadsTheFlagsAsTheClientsParserDoes records how it
// parses. Which of the client's options take a value is the client's to
// change. So "--" ends nothing here. An argument that is a value and reads
// like one of these flags is also taken as the flag. A folder too many is
// watched, never one too few.
func PluginDirArgs(argv []string) PluginFlags {
	var out PluginFlags
	for i := 1; i < len(argv); i++ {
		name, val, hasVal := strings.Cut(argv[i], "=")
		dst := &out.Dirs
		switch name {
		case "--plugin-dir-no-mcp":
			dst = &out.NoMCP
			fallthrough
		case "--plugin-dir":
			switch {
			case hasVal:
				*dst = append(*dst, val)
			case i+1 < len(argv):
				*dst = append(*dst, argv[i+1]) // and read again as a flag
			}
		case "--plugin-url":
			out.URL = true
		case "--await-initialize":
			out.Initialize = true
		}
	}
	return out
}

// Told is the line a session is told when the plugin folders it loads
// cannot all be observed. It is built from fixed words only, "" when they
// can.
func (p PluginDirs) Told() string {
	if p.Problem == "" {
		return ""
	}
	return "skillwire cannot observe every plugin this session loads with --plugin-dir (" + p.Problem +
		"): the skills, agents, commands, hooks and MCP servers of a plugin it cannot observe are not watched, and the gate cannot judge them."
}
