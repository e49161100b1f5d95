// Package cmdline reads a command line the client runs for the local
// script it starts. The script's bytes are then bound into a digest.
package cmdline

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/internal/pathname"
)

// Anchor is what a script path is relative to.
type Anchor uint8

const (
	Absolute   Anchor = iota + 1 // Path is absolute
	Home                         // ~/ or $HOME/
	ProjectDir                   // $CLAUDE_PROJECT_DIR/
	PluginRoot                   // ${CLAUDE_PLUGIN_ROOT}/
	// Relative is relative to the working directory: a hook runs in
	// the project directory, so only a project's own settings bind it.
	Relative
)

// Script is a local file a command runs: its anchor and the path under it.
// The path is as written once shell quoting is removed. It is never cleaned.
type Script struct {
	Anchor Anchor
	Path   string
}

// Bind is what ScriptOf could tell of a command line.
type Bind uint8

const (
	// BindNone: nothing local to bind. It is a program found on PATH, or
	// code inline in the command line, which facts tell whole.
	BindNone   Bind = iota
	BindScript      // the Script it runs
	// BindUnknown: it runs something skillwire cannot bind to a file. That
	// is an expansion, a construct it does not parse, or an interpreter
	// reading stdin.
	BindUnknown
)

var scriptAnchors = []struct {
	prefix string
	anchor Anchor
}{
	{"$CLAUDE_PROJECT_DIR/", ProjectDir}, {"${CLAUDE_PROJECT_DIR}/", ProjectDir},
	{"$CLAUDE_PLUGIN_ROOT/", PluginRoot}, {"${CLAUDE_PLUGIN_ROOT}/", PluginRoot},
	{"$HOME/", Home}, {"${HOME}/", Home},
}

// scriptInterpreters run the file named by their first operand. `bash x.sh`
// runs x.sh as surely as `./x.sh` does. `source` and `.` read one into the shell.
var scriptInterpreters = []string{".", "bash", "bun", "dash", "deno", "fish", "ksh", "lua", "mksh", "node", "nodejs",
	"perl", "php", "pwsh", "pypy", "pypy3", "python", "python2", "python3", "ruby", "sh", "source", "ts-node", "tsx", "zsh"}

// scriptShells take -c with a command line of their own.
var scriptShells = []string{"bash", "dash", "fish", "ksh", "mksh", "sh", "zsh"}

// scriptRunner runs what follows its subcommand (sub, "" for none). That is
// a package from a registry: `npx tsx x.ts` runs the tsx package. With
// files, it is a file of the project: `uv run x.py`. An interpreter after
// it is read as one.
type scriptRunner struct {
	sub   string
	files bool
}

var scriptRunners = map[string]scriptRunner{"npx": {}, "bunx": {}, "pnpx": {}, "uvx": {}, "pnpm": {sub: "exec"}, "npm": {sub: "exec"},
	"uv": {sub: "run", files: true}, "poetry": {sub: "run", files: true}, "pipenv": {sub: "run", files: true}}

// maxCommandWords bounds the words looked at. Wrappers and options past it
// are not followed.
const maxCommandWords = 32

// ScriptOf reports the local file a command line runs. That is its program,
// or the first operand of a known interpreter. An interpreter at a system
// path is known by its basename. Assignments, wrappers (exec, env, timeout,
// nohup, npx, uv run, …) and a leading `cd DIR &&` are passed over. A path
// is reported as written, never cleaned. A relative one is Relative.
func ScriptOf(command string) (Script, Bind) {
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
		if b == BindScript && sc.Anchor == Relative {
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
		return Script{Anchor: ProjectDir}, BindScript
	case w.text == "$CLAUDE_PLUGIN_ROOT" || w.text == "${CLAUDE_PLUGIN_ROOT}":
		return Script{Anchor: PluginRoot}, BindScript
	case w.text == "~" && w.tilde || w.text == "$HOME" || w.text == "${HOME}":
		return Script{Anchor: Home}, BindScript
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
		_, runner := scriptRunners[name]
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
		case runner:
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

// interpreterScript reads an interpreter's arguments. Its first operand is
// the file. `sh -c LINE` is parsed once more. Other inline code binds nothing.
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

// script reads w as a file path. A relative one is Relative. A bare name
// is one only as an interpreter's operand: as a program it is found on PATH.
func (w cmdWord) script(program bool) (Script, Bind) {
	if w.literal || w.expansion || w.text == "" {
		return Script{}, BindUnknown
	}
	sc := Script{}
	switch rest, _ := strings.CutPrefix(w.text, "~/"); {
	case w.tilde:
		sc = Script{Anchor: Home, Path: rest}
	case w.text[0] == '/':
		sc = Script{Anchor: Absolute, Path: w.text}
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
		sc = Script{Anchor: Relative, Path: w.text}
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
// with the line after it. ok is false for an unterminated quote, for a line
// that starts with an operator, and past n words.
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
