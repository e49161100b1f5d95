package claude

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/pathname"
	"github.com/skillwire/skillwire/shellword"
)

// Command is one thing a configuration makes Claude Code run or call without
// asking: a hook handler, the status line, a helper.
type Command struct {
	Source  string // "hooks", "statusLine", "fileSuggestion", "apiKeyHelper", …
	Event   string // hooks: the event name as written
	Matcher string // hooks: the matcher as written; "" when none
	Type    string // hooks: the handler type ("command", "http", "prompt", …)
	Command string // the command line; for an http hook its URL, for a prompt hook its prompt
}

// helperKeys are the settings keys whose string value is a command run by
// /bin/sh: credentials (gcpAuthRefresh ran a project's value under a Vertex
// setup), telemetry headers, and the proxy's credentials.
var helperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper"}

// objectHelperKeys are the settings keys whose object's "command" is run:
// the status lines (the subagents' too) and the file picker.
var objectHelperKeys = []string{"statusLine", "subagentStatusLine", "fileSuggestion"}

// marketplaceKeys hold marketplaces by name; each may name a headersHelper
// command run to fetch it. additionalMarketplaces is Claude Code's alias of
// extraKnownMarketplaces.
var marketplaceKeys = []string{"extraKnownMarketplaces", "additionalMarketplaces"}

// HeadersHelper is the Command.Source of a marketplace's headersHelper; its
// Matcher is the marketplace's name.
const HeadersHelper = "headersHelper"

// decodeCanonical reads a canonical form back. A form that does not decode
// reads as empty, so a damaged old form makes everything new, never less.
func decodeCanonical(canonical []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(canonical, &m); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// SettingsCommands lists every command of a settings subset (its Canonical
// form): every hook handler of every event and matcher, then the status
// line, the file suggestion command and the helpers.
func SettingsCommands(canonical []byte) []Command {
	doc := decodeCanonical(canonical)
	cmds := hookCommands(doc["hooks"])
	for _, k := range objectHelperKeys {
		if o, ok := doc[k].(map[string]any); ok {
			if c, ok := o["command"].(string); ok {
				cmds = append(cmds, Command{Source: k, Type: cfgString(o["type"]), Command: c})
			}
		}
	}
	for _, k := range helperKeys {
		if c, ok := doc[k].(string); ok {
			cmds = append(cmds, Command{Source: k, Command: c})
		}
	}
	for _, k := range marketplaceKeys {
		ms, _ := doc[k].(map[string]any)
		for _, name := range cfgKeys(ms) {
			m, _ := ms[name].(map[string]any)
			if c, ok := m["headersHelper"].(string); ok {
				cmds = append(cmds, Command{Source: HeadersHelper, Matcher: name, Command: c})
			}
		}
	}
	return cmds
}

// hookCommands walks a hooks value (settings, plugin hooks.json or
// frontmatter): event → [ {matcher, hooks: [handler]} ]. A single object
// where a list belongs is read as a one-element list, so a shape Claude Code
// might accept is never silently passed over.
func hookCommands(hooks any) []Command {
	events, _ := hooks.(map[string]any)
	var cmds []Command
	for _, ev := range cfgKeys(events) {
		for _, g := range cfgList(events[ev]) {
			group, _ := g.(map[string]any)
			matcher := cfgString(group["matcher"])
			for _, h := range cfgList(group["hooks"]) {
				handler, ok := h.(map[string]any)
				if !ok {
					continue
				}
				c := Command{Source: "hooks", Event: ev, Matcher: matcher, Type: cfgString(handler["type"])}
				for _, k := range []string{"command", "url", "prompt"} {
					if s, ok := handler[k].(string); ok {
						c.Command = s
						break
					}
				}
				c.Command += execArgs(handler["args"])
				cmds = append(cmds, c)
			}
		}
	}
	return cmds
}

// execArgs is an exec-form hook's args as shell words after its command:
// under `command: "/bin/sh"` the args are the payload, so a change of args
// is a changed hook, and `sh ./x.sh` binds the script as a shell line does.
// An arg that is not a string is its JSON, quoted: never dropped.
func execArgs(v any) string {
	args, ok := v.([]any)
	if !ok {
		if v != nil {
			return " " + shellword.Quote(cfgJSON(v))
		}
		return ""
	}
	var b strings.Builder
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			s = cfgJSON(a)
		}
		b.WriteString(" " + shellword.Quote(s))
	}
	return b.String()
}

func cfgList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case map[string]any:
		return []any{v}
	}
	return nil
}

func cfgString(v any) string {
	s, _ := v.(string)
	return s
}

func cfgKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// ScriptAnchor is what a script path is relative to.
type ScriptAnchor uint8

const (
	ScriptAbsolute   ScriptAnchor = iota + 1 // Path is absolute
	ScriptHome                               // ~/ or $HOME/
	ScriptProjectDir                         // $CLAUDE_PROJECT_DIR/
	ScriptPluginRoot                         // ${CLAUDE_PLUGIN_ROOT}/
	// ScriptRelative is relative to the working directory: a hook runs in
	// the project directory, so only a project's own settings bind it.
	ScriptRelative
)

// Script is a local file a command runs: its anchor and the path under it,
// exactly as written after shell quoting is removed (never cleaned).
type Script struct {
	Anchor ScriptAnchor
	Path   string
}

// Bind is what CommandScript could tell of a command line.
type Bind uint8

const (
	// BindNone: nothing local to bind (a program found on PATH, code given
	// inline in the command line, which facts tell whole).
	BindNone   Bind = iota
	BindScript      // the Script it runs
	// BindUnknown: it runs something skillwire cannot bind to a file (an
	// expansion, a construct it does not parse, an interpreter reading stdin).
	BindUnknown
)

var scriptAnchors = []struct {
	prefix string
	anchor ScriptAnchor
}{
	{"$CLAUDE_PROJECT_DIR/", ScriptProjectDir}, {"${CLAUDE_PROJECT_DIR}/", ScriptProjectDir},
	{"$CLAUDE_PLUGIN_ROOT/", ScriptPluginRoot}, {"${CLAUDE_PLUGIN_ROOT}/", ScriptPluginRoot},
	{"$HOME/", ScriptHome}, {"${HOME}/", ScriptHome},
}

// scriptInterpreters run the file named by their first operand; `bash x.sh`
// runs x.sh as surely as `./x.sh` does. `source` and `.` read one into the shell.
var scriptInterpreters = []string{".", "bash", "bun", "dash", "deno", "fish", "ksh", "lua", "mksh", "node", "nodejs",
	"perl", "php", "pwsh", "pypy", "pypy3", "python", "python2", "python3", "ruby", "sh", "source", "ts-node", "tsx", "zsh"}

// scriptShells take -c with a command line of their own.
var scriptShells = []string{"bash", "dash", "fish", "ksh", "mksh", "sh", "zsh"}

// scriptRunner runs what follows its subcommand (sub, "" for none): a
// package from a registry (`npx tsx x.ts` runs the tsx package), or, with
// files, a file of the project (`uv run x.py`). An interpreter after it is read as one.
type scriptRunner struct {
	sub   string
	files bool
}

var scriptRunners = map[string]scriptRunner{"npx": {}, "bunx": {}, "pnpx": {}, "uvx": {}, "pnpm": {sub: "exec"}, "npm": {sub: "exec"},
	"uv": {sub: "run", files: true}, "poetry": {sub: "run", files: true}, "pipenv": {sub: "run", files: true}}

// maxCommandWords bounds the words looked at: wrappers and options past it are not followed.
const maxCommandWords = 32

// CommandScript reports the local file a command line runs: its program,
// or the first operand of a known interpreter (named by its basename when
// it is a system path), past assignments and wrappers (exec, env, timeout,
// nohup, npx, uv run, …) and a leading `cd DIR &&`. A path is reported as
// written, never cleaned; a relative one is ScriptRelative.
func CommandScript(command string) (Script, Bind) {
	return commandScript(command, 0)
}

func commandScript(command string, depth int) (Script, Bind) {
	words, op, rest, ok := cmdWords(command, maxCommandWords)
	if !ok {
		return Script{}, BindUnknown
	}
	if len(words) > 0 && words[0].plain("cd") && (op == "&&" || op == ";") {
		dir, b := cdDir(words[1:])
		if b != BindScript {
			return Script{}, BindUnknown
		}
		sc, b := commandScript(rest, depth)
		if b == BindScript && sc.Anchor == ScriptRelative {
			sc = dir.join(sc.Path)
		}
		return sc, b
	}
	return programScript(words, depth)
}

// cdDir reads the one operand of `cd` as a directory a relative path is joined to.
func cdDir(args []cmdWord) (Script, Bind) {
	if len(args) != 1 {
		return Script{}, BindUnknown
	}
	w := args[0]
	switch {
	case w.expansion || w.literal:
		return Script{}, BindUnknown
	case w.text == "$CLAUDE_PROJECT_DIR" || w.text == "${CLAUDE_PROJECT_DIR}":
		return Script{Anchor: ScriptProjectDir}, BindScript
	case w.text == "$CLAUDE_PLUGIN_ROOT" || w.text == "${CLAUDE_PLUGIN_ROOT}":
		return Script{Anchor: ScriptPluginRoot}, BindScript
	case w.text == "~" && w.tilde || w.text == "$HOME" || w.text == "${HOME}":
		return Script{Anchor: ScriptHome}, BindScript
	}
	return w.script(true)
}

// join is the path rel under the directory sc names.
func (sc Script) join(rel string) Script {
	if sc.Path == "" {
		return Script{Anchor: sc.Anchor, Path: rel}
	}
	return Script{Anchor: sc.Anchor, Path: pathname.Join(sc.Path, rel)}
}

func programScript(words []cmdWord, depth int) (Script, Bind) {
	for len(words) > 0 && cmdAssignment(words[0]) {
		words = words[1:]
	}
	for len(words) > 0 {
		w := words[0]
		if w.expansion || w.literal {
			return Script{}, BindUnknown
		}
		name, system := w.text, w.text != "" && w.text[0] == '/'
		if strings.ContainsAny(name, "$`") {
			return w.script(true) // an anchored path, or an expansion not followed
		}
		if system {
			name = name[strings.LastIndexByte(name, '/')+1:]
		} else if strings.ContainsRune(name, '/') || w.tilde {
			return w.script(true) // a program of the project's or the user's: the file itself
		}
		switch {
		case slices.Contains([]string{"eval", "if", "for", "while", "until", "case", "function", "!", "[[", "coproc", "select"}, name):
			return Script{}, BindUnknown
		case slices.Contains([]string{"exec", "nohup", "command", "time", "setsid", "nice"}, name):
			words = skipOptions(words[1:], []string{"-n", "-a"})
			continue
		case name == "timeout":
			words = skipOptions(words[1:], []string{"-s", "-k"})
			if len(words) == 0 {
				return Script{}, BindUnknown
			}
			words = words[1:] // the duration
			continue
		case name == "env":
			for _, o := range words[1:] {
				if !strings.HasPrefix(o.text, "-") {
					break
				}
				if strings.HasPrefix(o.text, "-S") || strings.HasPrefix(o.text, "--split-string") {
					return Script{}, BindUnknown // a command line of env's own
				}
			}
			words = skipOptions(words[1:], []string{"-u", "-C"})
			for len(words) > 0 && cmdAssignment(words[0]) {
				words = words[1:]
			}
			continue
		case cfgHas(scriptRunners, name):
			r := scriptRunners[name]
			words = words[1:]
			if r.sub != "" {
				if len(words) == 0 || !words[0].plain(r.sub) {
					return Script{}, BindNone // another subcommand: no file of ours
				}
				words = words[1:]
			}
			words = skipOptions(words, nil)
			switch {
			case len(words) == 0:
				return Script{}, BindUnknown
			case isInterpreter(words[0].text) || words[0].text == "env":
				continue
			case r.files:
				return words[0].script(false)
			}
			return Script{}, BindNone // a package from a registry
		case isInterpreter(name):
			return interpreterScript(name, words[1:], depth)
		}
		if system {
			return w.script(true)
		}
		return Script{}, BindNone // found on PATH
	}
	return Script{}, BindUnknown
}

func isInterpreter(name string) bool {
	if slices.Contains(scriptInterpreters, name) {
		return true
	}
	// python3.12, pypy3.10, php8.3, perl5.36, ruby3.3
	for _, p := range []string{"python", "pypy", "php", "perl", "ruby", "node"} {
		if v, ok := strings.CutPrefix(name, p); ok && v != "" && strings.Trim(v, "0123456789.") == "" {
			return true
		}
	}
	return false
}

// interpreterScript reads an interpreter's arguments: its first operand is
// the file; `sh -c LINE` is parsed once more; other inline code binds nothing.
func interpreterScript(name string, args []cmdWord, depth int) (Script, Bind) {
	if (name == "deno" || name == "bun") && len(args) > 0 && args[0].plain("run") {
		args = args[1:]
	}
	for i, a := range args {
		switch {
		case a.plain("--"):
			if i+1 < len(args) {
				return args[i+1].script(false)
			}
			return Script{}, BindUnknown
		case a.plain("-c") && slices.Contains(scriptShells, name):
			if i+1 == len(args) || depth > 0 || args[i+1].expansion {
				return Script{}, BindUnknown
			}
			return commandScript(args[i+1].text, depth+1)
		case a.plain("-m"):
			return Script{}, BindUnknown // a module found on a search path
		case a.plain("-c") || a.plain("-e") || a.plain("-p") || a.plain("--eval") || a.plain("--print") || a.plain("-E"):
			return Script{}, BindNone // the code is the command line itself
		case strings.HasPrefix(a.text, "-") && !a.expansion && !a.literal:
			continue
		}
		return a.script(false)
	}
	return Script{}, BindUnknown // the program is read from stdin
}

// skipOptions passes over leading options; withArg are those taking the next word.
func skipOptions(words []cmdWord, withArg []string) []cmdWord {
	for len(words) > 0 && strings.HasPrefix(words[0].text, "-") && !words[0].literal && !words[0].expansion {
		if words[0].text == "--" {
			return words[1:]
		}
		if slices.Contains(withArg, words[0].text) && len(words) > 1 {
			words = words[1:]
		}
		words = words[1:]
	}
	return words
}

// cmdWord is one word of a command line with its quotes removed.
type cmdWord struct {
	text      string
	tilde     bool // began with an unquoted ~/ (or is an unquoted ~)
	literal   bool // holds a $ or ` that the shell would not expand (single-quoted)
	expansion bool // holds an unquoted or double-quoted $, `, glob or escape we do not follow
}

// plain reports whether w is exactly s, written without anything the shell expands.
func (w cmdWord) plain(s string) bool { return w.text == s && !w.expansion && !w.literal }

// script reads w as a file path; relative, it is ScriptRelative (a bare
// name only as an interpreter's operand: as a program it is found on PATH).
func (w cmdWord) script(program bool) (Script, Bind) {
	if w.literal || w.expansion || w.text == "" {
		return Script{}, BindUnknown
	}
	sc := Script{}
	switch rest, _ := strings.CutPrefix(w.text, "~/"); {
	case w.tilde:
		sc = Script{Anchor: ScriptHome, Path: rest}
	case w.text[0] == '/':
		sc = Script{Anchor: ScriptAbsolute, Path: w.text}
	case w.text[0] == '$':
		for _, a := range scriptAnchors {
			if rest, ok := strings.CutPrefix(w.text, a.prefix); ok {
				sc = Script{Anchor: a.anchor, Path: rest}
				break
			}
		}
	case program && !strings.ContainsRune(w.text, '/'):
		return Script{}, BindNone
	default:
		sc = Script{Anchor: ScriptRelative, Path: w.text}
	}
	// Any other expansion left in the path makes the file unknowable here.
	if sc.Anchor == 0 || sc.Path == "" || strings.ContainsAny(sc.Path, "$`") {
		return Script{}, BindUnknown
	}
	return sc, BindScript
}

func cmdAssignment(w cmdWord) bool {
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" || w.literal {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cmdWords splits the first simple command of a POSIX shell line into at
// most n words, removing quotes. It stops at the first operator, returned
// with the line after it; ok is false for an unterminated quote, a line
// that starts with an operator or more than n words.
func cmdWords(s string, n int) (words []cmdWord, op, rest string, ok bool) {
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return words, "", "", true
		}
		if strings.IndexByte(";|&<>()\n", s[i]) >= 0 {
			j := i + 1
			for j < len(s) && j < i+2 && strings.IndexByte(";|&<>", s[j]) >= 0 && s[j] == s[i] {
				j++
			}
			return words, s[i:j], s[j:], len(words) > 0
		}
		if len(words) == n {
			return words, "", "", false
		}
		var w cmdWord
		var b strings.Builder
		w.tilde = strings.HasPrefix(s[i:], "~/") || s[i] == '~' && (i+1 == len(s) || strings.IndexByte(" \t;|&<>()\n", s[i+1]) >= 0)
		for i < len(s) && strings.IndexByte(" \t;|&<>()\n", s[i]) < 0 {
			switch c := s[i]; c {
			case '\'':
				end := strings.IndexByte(s[i+1:], '\'')
				if end < 0 {
					return words, "", "", false
				}
				part := s[i+1 : i+1+end]
				w.literal = w.literal || strings.ContainsAny(part, "$`")
				b.WriteString(part)
				i += end + 2
			case '"':
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' || s[j] == '`' {
						w.expansion = true
					}
					j++
				}
				if j == len(s) {
					return words, "", "", false
				}
				b.WriteString(s[i+1 : j])
				i = j + 1
			default:
				if strings.IndexByte("\\`*?[{", c) >= 0 && !(c == '{' && i > 0 && s[i-1] == '$') {
					w.expansion = true
				}
				b.WriteByte(c)
				i++
			}
		}
		w.text = b.String()
		words = append(words, w)
	}
}
