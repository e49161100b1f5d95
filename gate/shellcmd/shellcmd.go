// Package shellcmd finds, in a shell command line, the skillwire commands
// that record a person's decision. It reads the line with the mvdan.cc/sh
// parser.
package shellcmd

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The model's Bash tool can run skillwire itself. Some commands record a
// decision only a person may make. Such a command is asked of the person.
// They are: a verdict, a trusted source, the gate's policy, forgetting a
// record, dropping undelivered events, a restore, an announced edit, and
// switching the hooks off. This is defence in depth, not a boundary. Code
// the model runs as the user can reach the store other ways.

// maxShellDepth bounds how deep `sh -c`, `eval` and their like are read
// into one another.
const maxShellDepth = 4

// Decision reports whether the shell command line runs a skillwire
// command that records a person's decision. It names the command
// ("record", "trust add", …). The line is read with a shell parser, never
// a pattern. Every simple command anywhere in it is looked at: pipelines,
// lists, substitutions, functions, `sh -c` strings, `eval`. So is what a
// wrapper runs (env, sudo, timeout, xargs, …). Unknown is asked, never let
// through. So a decision word after a command word that cannot be read
// statically counts as a decision. So does a line naming skillwire that
// does not parse. A line past a bound is not read: the error wraps
// ErrUnread.
func Decision(line string) (string, bool, error) {
	r := reader{fields: maxFields, bytes: maxFieldBytes, parsed: maxParsed}
	what, ok := r.decisionIn(line, 0)
	if r.err != nil {
		return "", false, r.err
	}
	return what, ok, nil
}

// reader reads one line and the lines nested in it. fields and bytes are
// what brace expansion may still make. parsed is what may still be
// parsed. err is the bound a line passed.
type reader struct {
	fields, bytes, parsed int
	err                   error
}

func (r *reader) decisionIn(line string, depth int) (string, bool) {
	if depth > maxShellDepth {
		return unreadable("a command nested past what skillwire reads", line)
	}
	if err := bounded(line); err != nil {
		r.err = err
	}
	if r.parsed -= len(line) + parseCost; r.parsed < 0 && r.err == nil {
		r.err = ErrTooWide
	}
	if r.err != nil {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return unreadable("a command line that does not parse", line)
	}
	var what string
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found || r.err != nil {
			return false
		}
		if c, ok := n.(*syntax.CallExpr); ok {
			var words []word
			for _, a := range c.Args {
				words = append(words, r.literal(a)...)
			}
			if r.err == nil {
				what, found = r.decisionCall(words, depth, line)
			}
		}
		return !found && r.err == nil
	})
	if r.err != nil {
		return "", false
	}
	return what, found
}

// unreadable asks about a line skillwire cannot read when it names
// skillwire at all.
func unreadable(what, line string) (string, bool) {
	if strings.Contains(line, "skillwire") {
		return what, true
	}
	return "", false
}

// word is one argument. text is its literal value, quotes removed. lit is
// false when it is no literal.
type word struct {
	text string
	lit  bool
}

// literal is the value of w, quotes and escapes removed. It is known only
// when no expansion is needed.
func (r *reader) literal(w *syntax.Word) []word {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return []word{{}}
				}
			}
		default:
			return []word{{}}
		}
	}
	// The shell expands a glob against files skillwire cannot predict.
	// skillwi?e names skillwire, so a glob is no literal.
	lit := w.Lit()
	if strings.ContainsAny(lit, "*?[") {
		return []word{{}}
	}
	if plain(w) {
		return []word{{text: lit, lit: true}} // half the time of a long flat line
	}
	// An empty Config expands nothing and globs nothing. Quote removal and
	// brace expansion are left: {skillwire,record} is two words. Each word
	// past a word's first is charged to the line. Past the budget the line
	// is not read: an unknown word could hide a decision.
	var out []word
	for f, err := range expand.FieldsSeq(&expand.Config{}, w) {
		if err != nil {
			return []word{{}}
		}
		if len(out) > 0 {
			r.fields--
			r.bytes -= len(f)
			if r.fields < 0 || r.bytes < 0 {
				r.err = ErrTooWide
				return nil
			}
		}
		out = append(out, word{text: f, lit: true})
	}
	return out
}

// plain reports whether w is one bare word that expansion leaves as it is:
// no escape, brace or tilde.
func plain(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && !strings.ContainsAny(l.Value, "\\{~")
}

// wrappers run the command that follows them (after their own options).
var wrappers = map[string]bool{
	"env": true, "sudo": true, "doas": true, "command": true, "exec": true, "nohup": true,
	"nice": true, "ionice": true, "time": true, "stdbuf": true, "setsid": true, "xargs": true,
	"timeout": true, "chronic": true, "builtin": true, "unbuffer": true, "flock": true,
}

// shells run the string after -c; source and . read a file, here a
// stdin, a here-string or a substitution skillwire cannot read.
var shells = map[string]bool{"source": true, ".": true, "sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "busybox": true}

func (r *reader) decisionCall(args []word, depth int, line string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	a := args[0]
	if !a.lit {
		// A command we cannot name: asked when a decision follows.
		return subcommand(args[1:], true)
	}
	base := path.Base(a.text)
	switch {
	case isSkillwire(base):
		return subcommand(args[1:], false)
	case shells[base]:
		return r.shellCall(args, depth, line)
	case base == "eval":
		parts := make([]string, 0, len(args)-1)
		for _, e := range args[1:] {
			if !e.lit {
				return "eval of a string skillwire cannot read", true
			}
			parts = append(parts, e.text)
		}
		return r.decisionIn(strings.Join(parts, " "), depth+1)
	case wrappers[base]:
		return r.wrapped(base, args, depth, line)
	case printOnly[base]:
		return "", false
	}
	return r.inArguments(args[1:], depth)
}

// shellCall reads a shell's command string: the first operand after a -c.
// Combined flags (-lc) and options between (-x, --) are read past. A shell
// given no -c reads its commands from stdin, a here-document or a file.
// Those cannot be read here. Such a line is asked when it names skillwire
// at all: `echo … | sh`, `bash <<EOF`, `sh <(…)`.
func (r *reader) shellCall(args []word, depth int, line string) (string, bool) {
	j := dashC(args)
	if j == len(args) {
		return unreadable("a shell reading its commands from elsewhere", line)
	}
	for k := j + 1; k < len(args); k++ {
		w := args[k]
		if w.lit && strings.HasPrefix(w.text, "-") {
			continue // an option between -c and its string
		}
		if !w.lit {
			return "a shell running a string skillwire cannot read", true
		}
		return r.decisionIn(w.text, depth+1)
	}
	return "", false
}

// dashC is the index of the first -c after the shell's name, else len(args).
func dashC(args []word) int {
	for j := 1; j < len(args); j++ {
		o := args[j].text
		if args[j].lit && strings.HasPrefix(o, "-") && !strings.HasPrefix(o, "--") && strings.Contains(o, "c") {
			return j
		}
	}
	return len(args)
}

// wrapped reads the command a wrapper runs: one of the words after its own
// options. Option values are not modelled. So each word is tried that is
// not an option, an assignment or another wrapper. The loop reaches what
// follows those. env -S gives a whole command line. xargs gives skillwire
// its arguments from stdin, which cannot be read, so it is asked.
//
// A later word often reads as an earlier one did. Such a word is skipped,
// so sudo x sudo x … is read in linear time. A plain command reads all
// the words after it. A shell reads up to its -c, the same for every
// shell before that -c.
func (r *reader) wrapped(base string, args []word, depth int, line string) (string, bool) {
	argsRead, shellTo := false, 0
	for j := 1; j < len(args) && r.err == nil; j++ {
		w := args[j]
		if base == "env" && w.lit {
			if v, ok := strings.CutPrefix(w.text, "--split-string="); ok {
				return r.decisionIn(v, depth+1)
			}
			if strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "S") && j+1 < len(args) {
				if !args[j+1].lit {
					return "env -S with a string skillwire cannot read", true
				}
				return r.decisionIn(args[j+1].text, depth+1)
			}
		}
		if w.lit && (strings.HasPrefix(w.text, "-") || strings.Contains(w.text, "=") || wrappers[path.Base(w.text)]) {
			continue
		}
		if base == "xargs" && w.lit && isSkillwire(path.Base(w.text)) {
			if what, ok := subcommand(args[j+1:], false); ok {
				return what, true
			}
			return unreadable("skillwire given its arguments by xargs", line)
		}
		if b := path.Base(w.text); w.lit && shells[b] {
			if j < shellTo {
				continue
			}
			shellTo = j + dashC(args[j:])
		} else if w.lit && !isSkillwire(b) && b != "eval" && !printOnly[b] {
			if argsRead {
				continue
			}
			argsRead = true
		}
		if what, ok := r.decisionCall(args[j:], depth, line); ok {
			return what, true
		}
	}
	return "", false
}

// inArguments looks into the arguments of a command skillwire does not
// know. A word that is skillwire runs it with what follows: find -exec,
// watch. A string naming skillwire is read as a command line of its own:
// trap "…", su -c "…", script -c "…", alias x="…".
func (r *reader) inArguments(args []word, depth int) (string, bool) {
	for j, w := range args {
		if r.err != nil {
			return "", false
		}
		if !w.lit || !strings.Contains(w.text, "skillwire") {
			continue
		}
		if isSkillwire(path.Base(w.text)) && !strings.ContainsAny(w.text, " \t\n;&|") {
			if what, ok := subcommand(args[j+1:], false); ok {
				return what, true
			}
			continue
		}
		text := w.text
		if i := strings.IndexByte(text, '='); i > 0 && !strings.ContainsAny(text[:i], " \t") {
			text = text[i+1:] // alias x="…", VAR=…
		}
		text = strings.TrimPrefix(text, "!") // git's shell alias: alias.x=!cmd
		if what, ok := r.decisionIn(text, depth+1); ok {
			return what, true
		}
	}
	return "", false
}

func isSkillwire(base string) bool { return strings.HasPrefix(base, "skillwire") }

// printOnly are commands whose arguments are text, never run. A message
// that mentions skillwire is not a decision.
var printOnly = map[string]bool{"echo": true, "printf": true, "grep": true, "rg": true}

// subcommand reports whether skillwire's arguments args name a decision.
// loose is for a command word that could not be read. Then only a literal
// decision word counts.
func subcommand(args []word, loose bool) (string, bool) {
	// The first three words that are no options name a decision. Only
	// clear reads on, for --events.
	var rest []word
	for _, a := range args {
		if a.lit && strings.HasPrefix(a.text, "-") {
			continue
		}
		if rest = append(rest, a); len(rest) == 3 {
			break
		}
	}
	if len(rest) == 0 {
		return "", false
	}
	if !rest[0].lit {
		if loose {
			return "", false
		}
		return "skillwire with a subcommand it cannot read", true
	}
	next := func() (string, bool) {
		if len(rest) < 2 {
			return "", false
		}
		return rest[1].text, rest[1].lit
	}
	switch sub := rest[0].text; sub {
	case "record", "forget", "restore", "import":
		return sub, true
	case "trust":
		if n, lit := next(); !lit || n == "add" || n == "remove" {
			return "trust " + n, true
		}
	case "gate":
		if n, lit := next(); !lit || n == "policy" && len(rest) > 2 {
			return "gate policy", true
		}
	case "audit":
		if n, lit := next(); !lit || n == "append" {
			return "audit append", true
		}
	case "hook":
		// uninstall switches the gate off. post-tool-use, fed a forged
		// input, would record a person's allow.
		if n, lit := next(); !lit || n == "uninstall" || n == "post-tool-use" {
			return "hook " + n, true
		}
	case "clear":
		for _, a := range args {
			if !a.lit || a.text == "--events" || strings.HasPrefix(a.text, "--events=") {
				return "clear --events", true
			}
		}
	}
	return "", false
}
