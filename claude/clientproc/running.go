package clientproc

import (
	"errors"
	"os"
	"slices"
	"strconv"

	"github.com/skillwire/skillwire/claude"
	"golang.org/x/sys/unix"
)

// A --plugin-dir folder is a session's alone: no settings file names it,
// and a mod there can mute the session start that would record it. So a
// command run outside a session (status) reads the plugin folders of the
// clients running now from their own processes, as a hook reads its own.

// maxProcs bounds the processes Running looks at.
const maxProcs = 1 << 16

// Why the running clients' plugin folders cannot all be read, in fixed
// words.
const (
	problemProcList   = "the running processes could not be listed"
	problemProcMany   = "more processes run than skillwire looks at"
	problemClientRead = "a running client's command line or environment could not be read"
)

// Running are the plugin folders the Claude Code clients of this user and
// of the configuration directory cfg that run now load: each one's
// --plugin-dir and --plugin-dir-no-mcp, and the CLAUDE_CODE_PLUGIN_DIRS it
// started with. A client of another configuration directory runs other
// hooks and another store. proc is the proc filesystem, "" where there is
// none. Problem, in fixed words, says when some cannot be read. A folder
// given to a client started after this is none of them.
func Running(proc, cfg string) PluginDirs {
	if proc == "" {
		return PluginDirs{Problem: problemNoProc}
	}
	f, err := os.Open(proc)
	if err != nil {
		return PluginDirs{Problem: problemProcList}
	}
	names, err := f.Readdirnames(maxProcs + 1)
	f.Close()
	slices.Sort(names) // one order for one set of processes
	var out PluginDirs
	if err != nil {
		out.Problem = problemProcList
	} else if len(names) > maxProcs {
		out.Problem = problemProcMany
	}
	c, uid := Client{Proc: proc}, os.Getuid()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		dir := pathJoinPid(proc, pid)
		var st unix.Stat_t
		if unix.Stat(dir, &st) != nil || int(st.Uid) != uid {
			continue // gone, or another user's: it loads nothing of this one's
		}
		stat, err := readBounded(dir+"/stat", 4096)
		if err != nil || !c.isClient(dir, stat) {
			continue
		}
		merge(&out, clientPlugins(dir, cfg))
	}
	return out
}

// clientPlugins are the plugin folders of the client whose /proc
// directory is dir, when its configuration directory is cfg. Its start
// environment stands in for a hook's own.
func clientPlugins(dir, cfg string) PluginDirs {
	cmdline, err := readBounded(dir+"/cmdline", maxCmdline)
	if gone(err) || err == nil && len(cmdline) == 0 {
		return PluginDirs{} // it ended, or is ending: a zombie loads nothing
	}
	environ, err2 := readBounded(dir+"/environ", maxEnviron)
	switch {
	case gone(err2):
		return PluginDirs{}
	case err != nil || err2 != nil:
		return PluginDirs{Problem: problemClientRead}
	}
	cenv := environVars(environ, envPluginDirs, envPWD, "CLAUDE_CONFIG_DIR", "HOME")
	env := claude.Env{Getenv: func(k string) (string, bool) { v, ok := cenv[k]; return v, ok },
		Home: func() (string, error) {
			if h, ok := cenv["HOME"]; ok {
				return h, nil
			}
			return "", os.ErrNotExist
		}}
	switch c, err := claude.ConfigDir(env); {
	case err != nil:
		return PluginDirs{Problem: problemClientRead} // whose it is is not known
	case c != cfg && !sameDir(c, cfg):
		return PluginDirs{}
	}
	return pluginDirs(splitArgs(cmdline), env, &launchDir{dir: dir, pwd: cenv[envPWD]})
}

// merge adds p's folders to out, each once, at most MaxPluginDirs. Each is
// read with its MCP servers: a superset of what any client loads of it.
func merge(out *PluginDirs, p PluginDirs) {
	if out.Problem == "" {
		out.Problem = p.Problem
	}
	for _, d := range p.Dirs {
		switch {
		case slices.Contains(out.Dirs, d):
		case len(out.Dirs) == MaxPluginDirs:
			if out.Problem == "" {
				out.Problem = problemPluginTooMany
			}
		default:
			out.Dirs = append(out.Dirs, d)
		}
	}
}

// sameDir reports whether a and b are one directory, however spelled.
func sameDir(a, b string) bool {
	var sa, sb unix.Stat_t
	return unix.Stat(a, &sa) == nil && unix.Stat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// gone reports whether err says the process ended while it was read.
func gone(err error) bool { return errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) }
