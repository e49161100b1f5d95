package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/clientproc"
	"github.com/skillwire/skillwire/claude/memkey"
	"github.com/skillwire/skillwire/walker"
)

// clientStart is what the oracle needs of one client start.
type clientStart struct {
	trace string   // strace's output
	dir   string   // the working directory it started in
	env   []string // its environment
	args  []string // its arguments, its own name left out
	// managed is the world's folder bound at /etc/claude-code, or "".
	managed string
}

// clientManagedDir is where Claude Code on Linux reads managed settings.
const clientManagedDir = "/etc/claude-code"

// watched is skillwire's picture of one client start. It is its roots, as
// a hook of that session finds them. bound holds the files its candidates
// bind in from elsewhere (walker.ScriptEntry): scripts, imports.
type watched struct {
	roots []claude.Root
	bound map[string]bool
	// scopes are the folders the oracle judges: home, config, project and
	// the folders the session added.
	scopes []string
	// problem is why skillwire cannot observe every added folder.
	problem string
	// told are the plugin folders skillwire tells it cannot name or that
	// the client refuses. It holds every plugin name for them, so what is
	// read there is told, not missed.
	told []string
}

// fakePid is the client's pid in the /proc the oracle lays out.
const fakePid = 4242

// watchedOf is what skillwire watches for the client start s. It reads the
// added folders as a hook does, from a /proc laid out for the gone client.
func watchedOf(s clientStart) (*watched, error) {
	vars := map[string]string{}
	for _, kv := range s.env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	env := claude.Env{
		Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		Home:   func() (string, error) { return vars["HOME"], nil },
		Getwd:  func() (string, error) { return s.dir, nil },
	}
	places, err := claude.Locate(env, "")
	if err != nil {
		return nil, err
	}
	proc, err := fakeProc(s)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(proc)
	hook := env
	pluginDirs, havePluginDirs := settledPluginDirs(vars, places.Config)
	hook.Getenv = func(k string) (string, bool) {
		switch k {
		case "CLAUDE_PID":
			return fmt.Sprint(fakePid), true
		case "CLAUDECODE":
			return "1", true
		case "CLAUDE_CODE_PLUGIN_DIRS":
			return pluginDirs, havePluginDirs
		}
		return env.Getenv(k)
	}
	added := clientproc.Client{Proc: proc, Parent: fakePid}.Added(hook)
	inline := claude.InlinePlugins(added.Plugins.Dirs, added.Plugins.NoMCP)
	places.Added, places.Inline = added.Dirs, inline.Plugins
	places.Flags, places.FlagsMCP, places.FlagsPrompt = added.Settings, added.MCPConfigs, added.PromptFiles
	places.Memory = append(places.Memory, memkey.MovedByFlags(added.Settings, places.Home)...)
	places.AddedInstructions = added.Instructions(hook)
	wd := &watched{roots: places.Roots(), problem: added.Problem}
	// The folders sessions added, as the store records them: a /add-dir
	// typed mid-session is heard by the hooks alone (DirectoryAdded).
	store := baseline.Options{Dir: baseline.Location(vars["SKILLWIRE_STATE_DIR"], places.Config)}
	if more, err := baseline.AddedRoots(store, wd.roots, places.Home); err == nil {
		wd.roots = append(wd.roots, more...)
	} else {
		wd.problem = "the store's added folders: " + err.Error()
	}
	if added.Plugins.Problem != "" || inline.Problem != "" || inline.Unnamed {
		// Every folder given, as given: a .zip is none of Dirs.
		wd.told = append(wd.told, added.Plugins.Dirs...)
		wd.told = append(wd.told, givenPluginDirs(s.args, s.dir)...)
		if pluginDirs != "" {
			wd.told = append(wd.told, strings.Split(pluginDirs, ":")...)
		}
	}
	for _, r := range inline.Refused {
		wd.told = append(wd.told, r.Dir)
	}
	// A --worktree session moves into .claude/worktrees/<name>, and its
	// hooks find that folder their project.
	trees, _ := filepath.Glob(filepath.Join(s.dir, ".claude", "worktrees", "*"))
	for _, t := range trees {
		wenv := env
		wenv.Getwd = func() (string, error) { return t, nil }
		if tp, err := claude.Locate(wenv, ""); err == nil {
			tp.Added, tp.Inline, tp.AddedInstructions = places.Added, places.Inline, places.AddedInstructions
			wd.roots = append(wd.roots, tp.Roots()...)
		}
	}
	// A --settings or --mcp-config file is judged wherever it is: the
	// client loads it.
	for _, d := range slices.Concat([]string{vars["HOME"], places.Config, s.dir, s.managed}, added.Dirs, added.Plugins.Dirs, givenPaths(s.args, s.dir, "--settings", "--mcp-config", "--system-prompt-file", "--append-system-prompt-file", "--append-subagent-system-prompt-file")) {
		if strings.HasPrefix(d, "/") {
			wd.scopes = append(wd.scopes, path.Clean(d))
		}
	}
	return wd, nil
}

// givenPluginDirs are the values of args' --plugin-dir and
// --plugin-dir-no-mcp, a relative one read against dir.
func givenPluginDirs(args []string, dir string) []string {
	return givenPaths(args, dir, "--plugin-dir", "--plugin-dir-no-mcp")
}

// givenPaths are the values of args' flags, a relative one read against
// dir. A --settings or --mcp-config value that is JSON names no file.
func givenPaths(args []string, dir string, flags ...string) []string {
	var out []string
	for i, a := range args {
		v, ok := "", false
		name, val, eq := strings.Cut(a, "=")
		switch {
		case slices.Contains(flags, a) && i+1 < len(args):
			v, ok = args[i+1], true
		case eq && slices.Contains(flags, name):
			v, ok = val, true
		}
		if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			continue
		}
		if ok && v != "" {
			if !strings.HasPrefix(v, "/") {
				v = path.Join(dir, v)
			}
			out = append(out, path.Clean(v))
		}
	}
	return out
}

// settledPluginDirs is CLAUDE_CODE_PLUGIN_DIRS as the client hands it to
// its hooks (clientproc/plugindirs.go): the user's settings env over the
// environment, ~ expanded, relative folders left out.
func settledPluginDirs(vars map[string]string, config string) (string, bool) {
	v, ok := vars["CLAUDE_CODE_PLUGIN_DIRS"]
	var settings struct{ Env map[string]string }
	if b, err := os.ReadFile(filepath.Join(config, "settings.json")); err == nil && json.Unmarshal(b, &settings) == nil {
		if sv, sok := settings.Env["CLAUDE_CODE_PLUGIN_DIRS"]; sok {
			v, ok = sv, true
		}
	}
	var dirs []string
	for _, d := range strings.Split(v, ":") {
		if d == "~" || strings.HasPrefix(d, "~/") {
			d = vars["HOME"] + d[1:]
		}
		if strings.HasPrefix(d, "/") {
			dirs = append(dirs, path.Clean(d))
		}
	}
	return strings.Join(dirs, ":"), ok
}

// fakeProc lays out /proc/<fakePid> for the client start s: its name, its
// command line, its environment and its working directory.
func fakeProc(s clientStart) (string, error) {
	proc, err := os.MkdirTemp("", "swproc")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(proc, fmt.Sprint(fakePid))
	files := map[string]string{
		"stat":    fmt.Sprintf("%d (claude) S 1 %d %d 0 -1 0", fakePid, fakePid, fakePid),
		"cmdline": strings.Join(append([]string{"claude"}, s.args...), "\x00") + "\x00",
		"environ": strings.Join(s.env, "\x00") + "\x00",
	}
	err = os.MkdirAll(dir, 0o755)
	for name, text := range files {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
	}
	if err == nil {
		err = os.Symlink(s.dir, filepath.Join(dir, "cwd"))
	}
	if err != nil {
		os.RemoveAll(proc)
		return "", err
	}
	return proc, nil
}

// inScope reports whether p lies in one of the folders judged.
func (wd *watched) inScope(p string) bool {
	for _, s := range wd.scopes {
		if within(p, s) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// covers reports whether skillwire watches p. That is a root, a folder on
// the way to one, or a path a root holds as (part of) a candidate. Else a
// candidate binds it in from elsewhere.
func (wd *watched) covers(p string) bool {
	for _, r := range wd.roots {
		if within(r.Path, p) {
			return true // the root, or a folder above it
		}
		rest, ok := strings.CutPrefix(p, r.Path+"/")
		if !ok {
			continue
		}
		name, _, ok := r.Split(rest)
		if !ok || r.Holds([]byte(name)) {
			return true // a candidate, within one, or a folder above them (the plugin cache)
		}
	}
	if wd.bound == nil {
		wd.bound = boundFiles(wd.roots)
	}
	return wd.bound[string(walker.ScriptEntry(p))]
}

// boundFiles observes the roots as a scan does. It keeps the manifest
// paths of the files bound into candidates.
func boundFiles(roots []claude.Root) map[string]bool {
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec()
	}
	out := map[string]bool{}
	for _, r := range walker.Scan(context.Background(), specs, walker.DefaultConfig()) {
		for _, c := range r.Candidates {
			for _, e := range c.Manifest.Entries {
				if strings.HasPrefix(string(e.Path), walker.ScriptsPath+"/") {
					out[string(e.Path)] = true
				}
			}
		}
	}
	return out
}

// verdict is what the oracle found of one client start.
type verdict struct {
	Uncovered []string // paths neither watched nor noise, escaped, with the call
	Unknown   []string // accesses whose path is not known, escaped
	Gaps      []string // paths on knownGaps, with the gap
}

// judge sorts the client's reads. client is its program. exempt are the
// paths the model's tool calls named: the client reads them for the model.
// managed is the folder the client saw at /etc/claude-code, or "".
func judge(reads []access, client string, wd *watched, anchors map[string]string, exempt []string, managed string) verdict {
	var v verdict
	calls := map[string][]string{} // each path judged, with its calls
	var order []string
	unknown := map[string]bool{}
	for _, a := range reads {
		if a.Prog != client {
			continue // a hook, a shell, skillwire: not the client
		}
		if a.Path == "" {
			if !unknown[a.Unknown] {
				unknown[a.Unknown] = true
				v.Unknown = append(v.Unknown, fmt.Sprintf("%s: %s", a.Call, anomaly.QuoteBytes([]byte(a.Unknown))))
			}
			continue
		}
		p := a.Path
		if rest, ok := strings.CutPrefix(p, clientManagedDir); managed != "" && ok && (rest == "" || rest[0] == '/') {
			p = managed + rest
		}
		if !wd.inScope(p) {
			continue
		}
		if _, ok := calls[p]; !ok {
			order = append(order, p)
		}
		if !slices.Contains(calls[p], a.Call) {
			calls[p] = append(calls[p], a.Call)
		}
	}
	// A folder on the way to another path read is judged by that path: a
	// listing loads nothing, the files read below it do. The target of a
	// watched link is watched through it.
	var targets []string
	left := order[:0:0]
	for _, p := range order {
		if !wd.covers(p) {
			left = append(left, p)
			continue
		}
		if t, err := filepath.EvalSymlinks(p); err == nil && t != p {
			targets = append(targets, t)
		}
	}
	for _, p := range left {
		switch {
		case slices.ContainsFunc(targets, func(t string) bool { return within(p, t) }):
			continue // a watched link's target, or within it
		case slices.ContainsFunc(order, func(o string) bool { return o != p && within(o, p) }):
			continue // a folder on the way to another path read
		case slices.ContainsFunc(exempt, func(e string) bool { return within(p, e) }):
			continue
		case slices.ContainsFunc(wd.told, func(d string) bool { return within(p, d) }):
			continue
		}
		label := fmt.Sprintf("%s (%s)", anomaly.QuoteBytes([]byte(p)), strings.Join(calls[p], ", "))
		// A gap first: it is more particular than the noise around it.
		if n := matchNoise(knownGaps, p, calls[p], anchors); n != nil {
			v.Gaps = append(v.Gaps, label+": "+n.Why)
			gapsSeen.add(n)
			continue
		}
		if matchNoise(hookOnly, p, calls[p], anchors) == nil && readNoiseOf(p, calls[p], anchors) == nil {
			v.Uncovered = append(v.Uncovered, label)
		}
	}
	return v
}

// gapsSeen counts, per known gap, the client runs that read there. The
// suite tells them at its end (TestMain): a passing test's log is not
// shown.
var gapsSeen gapCounts

type gapCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (g *gapCounts) add(e *noiseEntry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == nil {
		g.n = map[string]int{}
	}
	g.n[e.Pattern+": "+e.Why]++
}

// String lists each gap read, with how many times.
func (g *gapCounts) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var lines []string
	for k, n := range g.n {
		lines = append(lines, fmt.Sprintf("%s (read %d times)", k, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// noiseEntry is one place the client reads that is no load place, or a
// gap told (knownGaps). Pattern is a path: {home}, {config}, {project},
// {root}, {tmp} and {state} stand for the world's. A component * matches
// within a name, ** any number of components. A "stat:" prefix matches a
// path only stat'ed, never opened. A "dir:" prefix matches a path only
// stat'ed, opened as a directory or for a handle (O_PATH): no file's
// bytes read.
type noiseEntry struct {
	Pattern string
	Why     string
}

// readNoiseOf is the entry of readNoise matching p, read by calls, or nil. A
// load place within the noise (loadPlacesInNoise) is none.
func readNoiseOf(p string, calls []string, anchors map[string]string) *noiseEntry {
	if matchNoise(loadPlacesInNoise, p, calls, anchors) != nil {
		return nil
	}
	return matchNoise(readNoise, p, calls, anchors)
}

// matchNoise is the first entry of list matching p, read by calls, or
// nil. A pattern "stat:…" matches only a path the client never opened.
func matchNoise(list []noiseEntry, p string, calls []string, anchors map[string]string) *noiseEntry {
	for i := range list {
		pat, statOnly := strings.CutPrefix(list[i].Pattern, "stat:")
		pat, dirOnly := strings.CutPrefix(pat, "dir:")
		if statOnly && slices.ContainsFunc(calls, func(c string) bool { return c != "statx" && c != "newfstatat" }) ||
			dirOnly && slices.ContainsFunc(calls, func(c string) bool { return c != "statx" && c != "newfstatat" && c != dirOpen && c != pathOpen }) {
			continue
		}
		for k, v := range anchors {
			pat = strings.ReplaceAll(pat, "{"+k+"}", v)
		}
		if strings.Contains(pat, "{") {
			continue // an anchor this world has not
		}
		if globMatch(strings.Split(strings.Trim(pat, "/"), "/"), strings.Split(strings.Trim(p, "/"), "/")) {
			return &list[i]
		}
	}
	return nil
}

// globMatch matches path components against pattern components.
func globMatch(pat, comps []string) bool {
	if len(pat) == 0 {
		return len(comps) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(comps); i++ {
			if globMatch(pat[1:], comps[i:]) {
				return true
			}
		}
		return false
	}
	if len(comps) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], comps[0])
	return err == nil && ok && globMatch(pat[1:], comps[1:])
}

// toolPaths are the paths the model's tool calls named, as the client sent
// them back in its requests: file_path, path, notebook_path, and the words
// of a Bash command (the client checks the paths a command names). A
// relative word is read against dir.
func toolPaths(m *Model, dir string) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range m.Requests() {
		msgs, _ := r.Body["messages"].([]any)
		for _, msg := range msgs {
			mm, _ := msg.(map[string]any)
			blocks, _ := mm["content"].([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if bm["type"] != "tool_use" {
					continue
				}
				in, _ := bm["input"].(map[string]any)
				for _, k := range []string{"file_path", "path", "notebook_path"} {
					if s, _ := in[k].(string); strings.HasPrefix(s, "/") {
						out = append(out, path.Clean(s))
					}
				}
				cmd, _ := in["command"].(string)
				for _, f := range strings.Fields(cmd) {
					switch {
					case strings.HasPrefix(f, "/"):
						out = append(out, path.Clean(f))
					case !strings.HasPrefix(f, "-") && strings.ContainsAny(f, "./"):
						out = append(out, path.Join(dir, f))
					}
				}
			}
		}
	}
	return out
}
