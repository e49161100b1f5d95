// Package clientproc reads the Claude Code process that runs a hook. It
// finds the client among the hook's parent processes. From the client's
// command line and the environment it started with, it reads the folders
// the session added (Client.Added). It tells in fixed words what it cannot
// read.
//
// The folders a session added load skills, agents and commands as the
// project's own do (e2e/adddir_test.go). No hook input names them; the
// client's own process does. Claude Code 2.1.328 adds them at its start,
// from three places. Each --add-dir of its command line is one. A
// relaunch passes a JSON array of paths in
// CLAUDE_RELAUNCH_SESSION_ADD_DIRS. A background session passes addDirs of
// CLAUDE_BG_SESSION_PERMISSION_RULES, a JSON object. The variables are
// read from the environment the client started with. /proc/<pid>/environ
// keeps that, whatever the client unsets later
// (TestTheClientsAddedFoldersAreReadFromItsEnvironment). A hook runs under
// a `/bin/sh -c` the client starts, so the client is a near ancestor.
package clientproc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude"
	"golang.org/x/sys/unix"
)

// Limits of reading the client's process.
const (
	// maxHops bounds the walk up the hook's parent processes.
	maxHops = 16
	// maxCmdline bounds the client's command line read. Linux's ARG_MAX
	// is 2 MiB by default. A longer one is not parsed in part.
	maxCmdline = 2 << 20
	// maxEnviron bounds the client's environment read, likewise.
	maxEnviron = 2 << 20
	// MaxAdded bounds the added folders watched. The rest are told.
	MaxAdded = 32
)

// Client is where a hook looks for the Claude Code process that runs it.
type Client struct {
	// Proc is the proc filesystem, "" where the system has none.
	Proc string
	// Parent is the hook's parent process. The walk starts there.
	Parent int
}

// ThisClient is the client of this process, on this system.
func ThisClient() Client { return Client{Proc: procDir, Parent: os.Getppid()} }

// AddedDirs is what the client's command line says of the folders it added.
type AddedDirs struct {
	// Dirs are the added folders, absolute, as the client reads them.
	Dirs []string
	// Problem, in fixed words, is why the added folders cannot all be
	// observed. The client may not be found. Its command line or working
	// directory may not be readable. A path may not be read as the client
	// reads it. Problem is "" when all are observed, or no client runs
	// this hook.
	Problem string
	// Plugins are the plugin folders the client loads (--plugin-dir).
	Plugins PluginDirs
	// Settings are the settings files the client loads with --settings,
	// absolute, as it reads them (settingsflag.go).
	Settings []string
	// MCPConfigs are the MCP configuration files of --mcp-config, the same.
	MCPConfigs []string
	// PromptFiles are the system prompt files (PromptFileArgs), the same.
	PromptFiles []string
	// startInstructions: the environment the client started with switches
	// on reading the added folders' instruction files. It is also set when
	// that environment could not be read (Instructions).
	startInstructions bool
}

// Instructions is whether the client reads the instruction files of the
// folders it added (claude.EnvAddedInstructions). The switch may be on in
// the environment the client started with, read with its command line. Or
// it may be on in the hook's own env, which carries the settings env the
// client applied to itself. An environment that cannot be read is taken
// as on. A file watched that the client does not read costs a line. One
// it reads unwatched is silence.
func (a AddedDirs) Instructions(env claude.Env) bool {
	if v, _ := env.Getenv(claude.EnvAddedInstructions); claude.EnvOn(v) {
		return true
	}
	return a.startInstructions
}

// Problems reading the client, in fixed words.
const (
	problemNoProc     = "this system has no /proc to read the client's command line from"
	problemNotFound   = "the client is not among the hook's parent processes"
	problemCmdline    = "the client's command line could not be read"
	problemCwd        = "the client's working directory could not be read"
	problemDotted     = "a folder's path has . or .. components that do not name the folder the kernel reaches"
	problemTilde      = "a folder's path starts with ~, which skillwire does not expand"
	problemTooMany    = "more folders were added than skillwire watches"
	problemProcRefuse = "the client's process cannot be read (another user's, or /proc mounted with hidepid)"
	problemEnviron    = "the client's environment could not be read"
	problemRelaunch   = "the folders the client was relaunched with (CLAUDE_RELAUNCH_SESSION_ADD_DIRS) cannot be read as the client reads them"
	problemBackground = "the folders of the client's background session (CLAUDE_BG_SESSION_PERMISSION_RULES) cannot be read as the client reads them"
	problemLaunchDir  = "a relative path is read against the folder the client started in, which skillwire cannot prove is its working directory now (it moves for --worktree, or was started without $PWD)"
)

// The client's environment variables that add folders, and the one that
// proves the folder it started in.
const (
	envRelaunchDirs = "CLAUDE_RELAUNCH_SESSION_ADD_DIRS"
	envBgRules      = "CLAUDE_BG_SESSION_PERMISSION_RULES"
	envPWD          = "PWD"
)

// Added finds the client among the hook's ancestors and reads the folders
// its command line adds. The client is the nearest ancestor that is Claude
// Code by its process name or executable (claude, claude.exe). The client
// sets $CLAUDE_PID for its hooks. When it is set the client must be that
// one, so a settings env cannot point the reading elsewhere. The client
// also sets $CLAUDECODE for its hooks. With neither set, no client runs
// the process: a person runs the hook by hand, or a test does. Then
// nothing is added, there is no problem, and no other process is read.
func (c Client) Added(env claude.Env) AddedDirs {
	dir, problem := c.locate(env)
	if dir == "" {
		if problem == "" {
			return AddedDirs{} // no client runs this process: nothing to read
		}
		return failed(problem)
	}
	cmdline, err := readBounded(dir+"/cmdline", maxCmdline)
	if err != nil {
		return failed(problemCmdline)
	}
	var out AddedDirs
	environ, err := readBounded(dir+"/environ", maxEnviron)
	if err != nil {
		out.problem(problemEnviron)
	}
	cenv := environVars(environ, envRelaunchDirs, envBgRules, envPWD, claude.EnvAddedInstructions)
	out.startInstructions = err != nil || claude.EnvOn(cenv[claude.EnvAddedInstructions])
	vals := out.envAdded(cenv)
	argv := splitArgs(cmdline)
	vals = append(vals, AddDirArgs(argv)...)
	launch := launchDir{dir: dir, pwd: cenv[envPWD]}
	out.add(&launch, vals)
	out.files(&launch, SettingsArgs(argv), &out.Settings, true)
	out.files(&launch, MCPConfigArgs(argv), &out.MCPConfigs, true)
	out.files(&launch, PromptFileArgs(argv), &out.PromptFiles, false)
	out.Plugins = pluginDirs(argv, env, &launch)
	return out
}

// envAdded are the values the client's start environment adds: a
// background session's addDirs, then a relaunch's folders. A variable
// that cannot be read as the client reads it is a problem.
func (a *AddedDirs) envAdded(cenv map[string]string) []string {
	var vals []string
	for _, v := range []struct{ name, problem string }{{envBgRules, problemBackground}, {envRelaunchDirs, problemRelaunch}} {
		raw, ok := cenv[v.name]
		if !ok {
			continue
		}
		read := relaunchDirs
		if v.name == envBgRules {
			read = backgroundDirs
		}
		ds, ok := read(raw)
		if !ok {
			a.problem(v.problem)
		}
		vals = append(vals, ds...)
	}
	return vals
}

// add resolves each added value against launch and keeps each folder
// once, at most MaxAdded. A value it cannot resolve is a problem.
func (a *AddedDirs) add(launch *launchDir, vals []string) {
	for _, v := range vals {
		if len(a.Dirs) == MaxAdded {
			a.problem(problemTooMany)
			return
		}
		p, problem := launch.resolve(v)
		if problem != "" {
			a.problem(problem)
			continue
		}
		if !slices.Contains(a.Dirs, p) {
			a.Dirs = append(a.Dirs, p)
		}
	}
}

// resolve is the folder an added value v names as the client reads it, or
// why skillwire cannot read it so. Trailing slashes are dropped. A
// relative path is read against the folder the client started in, proven.
func (l *launchDir) resolve(v string) (string, string) {
	if len(v) > 1 {
		v = strings.TrimRight(v, "/")
		if v == "" {
			v = "/"
		}
	}
	if strings.HasPrefix(v, "~") {
		return "", problemTilde
	}
	if !strings.HasPrefix(v, "/") {
		base, problem := l.get()
		if problem != "" {
			return "", problem
		}
		v = strings.TrimSuffix(base+"/"+v, "/") // "" is the working directory
	}
	p, ok := resolveAdded(v)
	if !ok {
		return "", problemDotted
	}
	return p, ""
}

// failed is what is known when the client's command line cannot be read.
// Neither its added folders nor its plugin folders are known.
func failed(problem string) AddedDirs {
	return AddedDirs{Problem: problem, Plugins: PluginDirs{Problem: problem}, startInstructions: true}
}

// locate is the /proc directory of the client running this process. Or
// it is "" and why it cannot be read, "" too when no client runs it.
func (c Client) locate(env claude.Env) (dir, problem string) {
	want, pidSet := 0, false
	if v, ok := env.Getenv("CLAUDE_PID"); ok && v != "" {
		n, err := strconv.Atoi(v)
		want, pidSet = n, err == nil && n > 0
		if !pidSet {
			return "", problemNotFound
		}
	}
	if cc, _ := env.Getenv("CLAUDECODE"); !pidSet && cc == "" {
		return "", "" // no client runs this process: nothing to read
	}
	if c.Proc == "" {
		return "", problemNoProc
	}
	pid, err := c.find(want)
	switch {
	case errors.Is(err, errRefused):
		return "", problemProcRefuse
	case err != nil:
		return "", problemNotFound
	}
	return pathJoinPid(c.Proc, pid), ""
}

// problem keeps the first reason the folders cannot all be observed.
func (a *AddedDirs) problem(p string) {
	if a.Problem == "" {
		a.Problem = p
	}
}

// launchDir is the folder the client read its relative paths against: the
// one it started in. Its working directory now is that folder only on
// proof. The proof is the $PWD it started with, a shell's naming where it
// was started. That $PWD must be absolute and the same directory as its
// working directory now. A client that moved since proves nothing: by
// --worktree, or a resumed worktree session. Nor does one started without
// $PWD.
type launchDir struct {
	dir, pwd      string
	base, problem string
	read          bool
}

func (l *launchDir) get() (string, string) {
	if l.read {
		return l.base, l.problem
	}
	l.read = true
	cwd, err := os.Readlink(l.dir + "/cwd")
	if err != nil || !claude.PlainPath(cwd) || strings.HasSuffix(cwd, " (deleted)") {
		l.problem = problemCwd
		return "", l.problem
	}
	var now, pwd unix.Stat_t
	if !strings.HasPrefix(l.pwd, "/") || unix.Stat(l.dir+"/cwd", &now) != nil || unix.Stat(l.pwd, &pwd) != nil ||
		now.Dev != pwd.Dev || now.Ino != pwd.Ino {
		l.problem = problemLaunchDir
		return "", l.problem
	}
	l.base = cwd
	return l.base, ""
}

// environVars are the values of names in a NUL-separated environment. The
// first of a name counts, as getenv reads it.
func environVars(environ []byte, names ...string) map[string]string {
	out := map[string]string{}
	for _, kv := range bytes.Split(environ, []byte{0}) {
		k, v, ok := bytes.Cut(kv, []byte("="))
		if !ok {
			continue
		}
		if n := string(k); slices.Contains(names, n) {
			if _, seen := out[n]; !seen {
				out[n] = string(v)
			}
		}
	}
	return out
}

// relaunchDirs reads CLAUDE_RELAUNCH_SESSION_ADD_DIRS as the client does,
// by JSON.parse. An array's strings are added; anything else adds nothing.
// ok is false when skillwire cannot be sure it reads what the client read.
func relaunchDirs(v string) ([]string, bool) {
	x, ok := strictJSON(v)
	if !ok {
		return nil, false
	}
	return jsonStrings(x)
}

// backgroundDirs reads the addDirs of CLAUDE_BG_SESSION_PERMISSION_RULES.
// The client adds them only when allow and deny are arrays too. Keys are
// compared exactly. The last of a repeated one wins, as in JSON.parse.
func backgroundDirs(v string) ([]string, bool) {
	x, ok := strictJSON(v)
	if !ok {
		return nil, false
	}
	o, isObj := x.(map[string]any)
	if !isObj {
		return nil, true
	}
	_, allow := o["allow"].([]any)
	_, deny := o["deny"].([]any)
	if !allow || !deny {
		return nil, true
	}
	return jsonStrings(o["addDirs"])
}

// strictJSON is one JSON value and nothing after it, from valid UTF-8. The
// client decodes its environment as UTF-8, replacing what is not.
func strictJSON(v string) (any, bool) {
	if !utf8.ValidString(v) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return x, true
}

// jsonStrings are the strings of a JSON array. The rest are skipped, as
// the client skips them. Some strings are not read: those holding a NUL,
// and those Go and JavaScript decode differently. A lone surrogate
// becomes U+FFFD here.
func jsonStrings(x any) ([]string, bool) {
	a, isArr := x.([]any)
	if !isArr {
		return nil, true
	}
	var out []string
	ok := true
	for _, e := range a {
		s, isStr := e.(string)
		switch {
		case !isStr:
		case s == "": // the client adds no empty path
		case strings.ContainsRune(s, utf8.RuneError) || strings.IndexByte(s, 0) >= 0:
			ok = false
		default:
			out = append(out, s)
		}
	}
	return out, ok
}

var errRefused = errors.New("refused")

// find walks up from c.Parent to the client. That is the pid wanted, when
// set, else the nearest that is Claude Code. A process that is not the
// client is never read beyond its stat and name.
func (c Client) find(want int) (int, error) {
	pid := c.Parent
	for range maxHops {
		if pid <= 1 {
			break
		}
		dir := pathJoinPid(c.Proc, pid)
		stat, err := readBounded(dir+"/stat", 4096)
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return 0, errRefused
			}
			return 0, err
		}
		isClient := c.isClient(dir, stat)
		if want == 0 && isClient || want == pid {
			if !isClient {
				return 0, errors.New("the process named by CLAUDE_PID is not Claude Code")
			}
			return pid, nil
		}
		ppid, ok := statPPID(stat)
		if !ok {
			return 0, errors.New("unreadable stat")
		}
		pid = ppid
	}
	return 0, errors.New("not found")
}

// isClient: the process's name (comm, in stat) or its executable's base
// name is the client's. A wrapper (node, a shell script) is not; its child
// is.
func (Client) isClient(dir string, stat []byte) bool {
	if comm, ok := statComm(stat); ok && comm == "claude" {
		return true
	}
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		return false
	}
	b := path.Base(exe)
	return b == "claude" || b == "claude.exe"
}

func pathJoinPid(proc string, pid int) string { return proc + "/" + strconv.Itoa(pid) }

// statComm is the process name of a /proc/<pid>/stat line. It lies
// between the first "(" and the last ")", since the name may hold either.
func statComm(stat []byte) (string, bool) {
	i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if i < 0 || j < i {
		return "", false
	}
	return string(stat[i+1 : j]), true
}

// statPPID is the parent pid of a /proc/<pid>/stat line. It is the second
// field after the name.
func statPPID(stat []byte) (int, bool) {
	j := bytes.LastIndexByte(stat, ')')
	if j < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[j+1:]))
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil && n >= 0
}

// readBounded reads a small proc file whole, refusing one larger than
// limit.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errors.New("too long")
	}
	return b, nil
}

// splitArgs splits a NUL-separated command line.
func splitArgs(cmdline []byte) []string {
	cmdline = bytes.TrimSuffix(cmdline, []byte{0})
	if len(cmdline) == 0 {
		return nil
	}
	return strings.Split(string(cmdline), "\x00")
}

// AddDirArgs are the values of --add-dir in argv (argv[0] first). No
// folder Claude Code 2.1.328's option parser (Commander) adds is left out.
// TestAddDirArgsReadsTheFlagAsTheClientsParserDoes records how it parses.
// As for PluginDirArgs, "--" ends no options here. An argument that is a
// value and reads like the flag is also taken as the flag. A folder too
// many is watched, never one too few.
func AddDirArgs(argv []string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if v, ok := strings.CutPrefix(a, "--add-dir="); ok {
			out = append(out, v)
			continue
		}
		if a != "--add-dir" || i+1 == len(argv) {
			continue
		}
		out = append(out, argv[i+1]) // and read again as a flag
		for j := i + 2; j < len(argv) && !looksLikeOption(argv[j]); j++ {
			out = append(out, argv[j])
		}
	}
	return out
}

// negativeNumber is Commander's. Such an argument is a value, not an
// option, since the client has no short option of a digit.
var negativeNumber = regexp.MustCompile(`^-\d*\.?\d+(e[+-]?\d+)?$`)

// looksLikeOption is Commander's test of an argument that ends a variadic
// option's values.
func looksLikeOption(a string) bool {
	return len(a) > 1 && a[0] == '-' && !negativeNumber.MatchString(a)
}

// resolveAdded is an added folder's path as the client reads it, and
// whether skillwire may read it so. The client uses Node's path.resolve,
// which reads the text. A plain path is taken as it is. One with ".", ".."
// or empty components is read by its text only on arrival evidence. The
// folder its text names and the folder the kernel reaches through it must
// be one directory. Else the two readings may differ (a link before a
// ".."), and the folder is not observed.
func resolveAdded(p string) (string, bool) {
	if claude.PlainPath(p) {
		return p, true
	}
	lex := path.Clean(p)
	var a, b unix.Stat_t
	if !claude.PlainPath(lex) || unix.Stat(p, &a) != nil || unix.Stat(lex, &b) != nil {
		return "", false
	}
	if a.Dev != b.Dev || a.Ino != b.Ino || a.Mode&unix.S_IFMT != unix.S_IFDIR {
		return "", false
	}
	return lex, true
}

// Told is what a session is told when the folders it added or the plugin
// folders it loads cannot all be observed. It is built from fixed words
// only. One reason may cover both, when the client's command line could
// not be read. Then it is one line. Told is "" when all can be observed.
func (a AddedDirs) Told() string {
	var lines []string
	if a.Problem != "" {
		lines = append(lines, "skillwire cannot observe every folder this session added ("+a.Problem+
			"): the skills, agents and commands of a folder it cannot observe are not watched, and the gate cannot judge them.")
	}
	if a.Plugins.Problem != a.Problem {
		if l := a.Plugins.Told(); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
