package clientproc

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude"
)

// Claude Code 2.1.328 loads a plugin, for the session only, from each
// folder given with --plugin-dir or --plugin-dir-no-mcp (one value per
// flag, the flag repeatable; a relative one against the folder it started
// in) and each absolute folder of CLAUDE_CODE_PLUGIN_DIRS (a ~ expanded, a
// relative one skipped): pinned by e2e/plugindir_test.go. It settles the
// variable to the list it loads (each path.resolve'd, joined by ":") before
// any hook runs, and a hook inherits that, whoever set it (the environment,
// the user's settings env, --settings); a project's or local settings env
// does not reach it (pinned). A folder that holds several plugins loads
// each (claude.InlinePlugins).

// PluginDirs is what the client's command line and environment say of the
// plugin folders it loads.
type PluginDirs struct {
	// Dirs are the folders given, absolute, as the client reads them.
	Dirs []string
	// Problem, in fixed words, is why they cannot all be observed; "" when
	// they can.
	Problem string
}

// MaxPluginDirs bounds the plugin folders watched; the rest are told.
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
// environment (the client's settled CLAUDE_CODE_PLUGIN_DIRS), a relative
// flag value against launch.
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
	for _, v := range flags.Dirs {
		if strings.HasSuffix(strings.ToLower(v), ".zip") {
			problem(problemPluginZip)
			continue
		}
		p, why := launch.resolve(v)
		if why != "" {
			problem(why)
			continue
		}
		add(p)
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
	// Dirs are the values of --plugin-dir and --plugin-dir-no-mcp, in order.
	Dirs []string
	// URL: --plugin-url was given; Initialize: --await-initialize, which
	// takes plugins from the SDK's initialize request on stdin.
	URL, Initialize bool
}

// PluginDirArgs reads the plugin options of argv (argv[0] first) as Claude
// Code 2.1.328's option parser (Commander) reads them: `--plugin-dir
// <path>` and `--plugin-dir-no-mcp <path>` take the next argument whatever
// it is, one per flag, the flag repeatable; `--plugin-dir=x` is one value;
// "--" ends the options. An argument that is another option's value and
// reads like one of these is taken as the flag: a folder too many is
// watched, never one too few.
func PluginDirArgs(argv []string) PluginFlags {
	var out PluginFlags
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--plugin-dir", "--plugin-dir-no-mcp":
			switch {
			case hasVal:
				out.Dirs = append(out.Dirs, val)
			case i+1 < len(argv):
				i++
				out.Dirs = append(out.Dirs, argv[i])
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
// cannot all be observed, from fixed words only; "" when they can.
func (p PluginDirs) Told() string {
	if p.Problem == "" {
		return ""
	}
	return "skillwire cannot observe every plugin this session loads with --plugin-dir (" + p.Problem +
		"): the skills, agents, commands, hooks and MCP servers of a plugin it cannot observe are not watched, and the gate cannot judge them."
}
