package workflow

import (
	"strings"
	"unicode/utf8"
)

// Starts is what a workflow script may start when the client runs it. It
// starts agents by agent(prompt, {agentType}). It starts child workflows
// by workflow(name). The client runs them with no PreToolUse call
// (TestAWorkflowsAgentStartsWithoutAPreToolUseCall). So the gate judges
// them at the Workflow call, the one moment it holds.
type Starts struct {
	// Names is every string literal of the script, decoded, each once.
	// Literals are '…', "…", and `…` without ${}. Names is a superset of
	// the agent types its agent() calls give as literals.
	Names []string
	// Agents are the agent types its agent() calls give as literals
	// (agentType: '…'), each once. The script is certain to start those
	// when the call runs. Agents is a subset of Names.
	Agents []string
	// Workflows are the names its workflow('name') calls give.
	Workflows []string
	// Unnamed, when not "", says why the script may start an agent or a
	// workflow whose name is no literal the reader saw. It holds fixed
	// words, never the script's.
	Unnamed string
}

// maxNest bounds the nesting of brackets and template substitutions.
// Deeper is not read. So each call's arguments are scanned at most this
// many times over.
const maxNest = 64

// Reasons a script's starts are unnamed.
const (
	unnamedUnread   = "its script could not be read as a whole"
	unnamedComputed = "an agent() call's agentType is no literal (a variable, a template with ${}, a concatenation or another expression)"
	unnamedOptions  = "an agent() call's options are no object literal of plain keys (spread, computed keys, a getter, setter or method)"
	unnamedRef      = "it refers to agent() or workflow() other than by calling it by name"
	unnamedWorkflow = "a workflow() call names its workflow other than by one literal"
	unnamedGlobal   = "it reaches the global object or code from strings (globalThis, this, eval, Function, import, require)"
	unnamedLexical  = "it holds what the reader cannot tokenize for certain (a backslash or a character past ASCII outside a literal, an HTML-like comment, a / that may start a regular expression or divide)"
)

// ReadStarts reads src as a superset reader, not a JavaScript parser. It
// splits the script into tokens: comments, string and template literals,
// regular expressions, words and punctuation. It keeps every string
// literal as a name an agent may be started by. It checks every agent(
// and workflow( call for a name it can see. Whatever could name an agent
// unseen makes the starts Unnamed, never silence. The Unnamed reasons
// above list each way.
//
// It does not evaluate. A name built at run time may be reached only
// through a computed key of an object the script made. That is beyond it.
// The client runs scripts with code generation from strings switched off.
func ReadStarts(src []byte) Starts {
	if len(src) > MaxSize || !utf8.Valid(src) {
		return Starts{Unnamed: unnamedUnread}
	}
	toks, why := tokenize(strings.ReplaceAll(string(src), "\r\n", "\n"))
	if why != "" {
		return Starts{Unnamed: why}
	}
	var st Starts
	seen, typed := map[string]bool{}, map[string]bool{}
	for i, t := range toks {
		if t.kind == tString && !seen[t.text] {
			seen[t.text] = true
			st.Names = append(st.Names, t.text)
		}
		if t.kind != tIdent || i > 0 && (toks[i-1].is(".") || toks[i-1].is("?.")) {
			continue // a property of another object is no global
		}
		var why string
		switch t.text {
		case "globalThis", "this", "eval", "Function", "import", "require":
			why = unnamedGlobal
		case "agent":
			var typ string
			if typ, why = agentCall(toks, i); typ != "" && !typed[typ] {
				typed[typ] = true
				st.Agents = append(st.Agents, typ)
			}
		case "workflow":
			var name string
			if name, why = workflowCall(toks, i); why == "" {
				st.Workflows = append(st.Workflows, name)
			}
		}
		if why != "" && st.Unnamed == "" {
			st.Unnamed = why
		}
	}
	return st
}

// agentCall checks the agent token at i. It must be a direct call. Its
// options, when given, must be an object literal. Their agentType, when
// set, must be one string literal. typ is that literal, "" for none. No
// agentType starts the client's own workflow-subagent. why is not "" when
// the call may start an agent of another name (then typ is "").
func agentCall(toks []token, i int) (typ, why string) {
	args, ok := callArgs(toks, i)
	if !ok {
		return "", unnamedRef
	}
	if len(args) < 2 {
		return "", ""
	}
	opts := args[1]
	if len(opts) < 2 || !opts[0].is("{") || !opts[len(opts)-1].is("}") || closing(opts, 0) != len(opts)-1 {
		return "", unnamedOptions
	}
	for _, m := range split(opts[1 : len(opts)-1]) {
		switch {
		case len(m) == 0:
			continue
		case m[0].is("...") || m[0].is("["):
			return "", unnamedOptions
		case len(m) >= 2 && (m[0].kind == tIdent || m[0].kind == tString) && m[1].is(":"):
			switch m[0].text {
			case "__proto__":
				return "", unnamedOptions // its prototype may carry an agentType
			case "agentType":
				if len(m) != 3 || m[2].kind != tString {
					return "", unnamedComputed
				}
				// A later agentType key overrides an earlier one, as the
				// object literal does. An empty one is none.
				typ = m[2].text
			}
		case len(m) == 1 && m[0].kind == tIdent && m[0].text != "agentType" && m[0].text != "__proto__":
			// A shorthand copies a variable's value. No code of it runs
			// with the options object in reach.
		default:
			// A method, a getter or a setter. The client copies the options
			// key by key (Object.keys order). A getter read before agentType
			// can write it through super or this. A BLOCKed agent ran so
			// under a reviewed workflow. So no member that is code is read
			// past.
			return "", unnamedOptions
		}
	}
	return typ, ""
}

// workflowCall reads workflow('name', …) at i: the name, or why not.
func workflowCall(toks []token, i int) (string, string) {
	args, ok := callArgs(toks, i)
	if !ok {
		return "", unnamedRef
	}
	if len(args) == 0 || len(args[0]) != 1 || args[0][0].kind != tString {
		return "", unnamedWorkflow
	}
	return args[0][0].text, ""
}

// callArgs are the arguments of the call whose callee is toks[i], split at
// its top-level commas. ok is false when toks[i] is not called directly.
// It is false when an argument is spread, since that may supply any of
// them.
func callArgs(toks []token, i int) ([][]token, bool) {
	if i+1 >= len(toks) || !toks[i+1].is("(") {
		return nil, false
	}
	end := closing(toks, i+1)
	if end < 0 {
		return nil, false
	}
	args := split(toks[i+2 : end])
	for _, a := range args {
		if len(a) > 0 && a[0].is("...") {
			return nil, false
		}
	}
	if n := len(args); n > 0 && len(args[n-1]) == 0 {
		args = args[:n-1] // a trailing comma
	}
	return args, true
}

// closing is the index of the bracket closing toks[open], -1 for none.
func closing(toks []token, open int) int {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].opens():
			depth++
		case toks[j].closes():
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// split cuts toks at its commas outside brackets.
func split(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for j, t := range toks {
		switch {
		case t.opens():
			depth++
		case t.closes():
			depth--
		case depth == 0 && t.is(","):
			out = append(out, toks[start:j])
			start = j + 1
		}
	}
	if start < len(toks) || len(out) > 0 {
		out = append(out, toks[start:])
	}
	return out
}

type tokKind uint8

const (
	tPunct  tokKind = iota
	tIdent          // a word: an identifier or a keyword
	tNumber         // a numeric literal
	tString         // a string literal or a template without ${}, decoded
	tRegex          // a regular expression literal
	tPart           // a piece of a template with ${}: no name of itself
)

type token struct {
	kind     tokKind
	text     string
	pos, end int // where in the script it is read from
}

func (t token) is(p string) bool { return t.kind == tPunct && t.text == p }

// opens and closes are the brackets. A template's ${ opens like a brace;
// its } closes one.
func (t token) opens() bool  { return t.is("(") || t.is("[") || t.is("{") || t.is("${") }
func (t token) closes() bool { return t.is(")") || t.is("]") || t.is("}") }

// The words around a /. regexAfter are reserved words that always precede
// an expression or a statement, unless they are a property name. So a /
// after one starts a regular expression, across a line break too.
// valueWords end an expression. After any other reserved or contextual
// word the reader cannot tell. It says so and never guesses.
// TestASlashIsReadOnlyWhereTheGrammarMakesItCertain pins each word.
var (
	regexAfter   = words("return typeof instanceof in new delete void throw case do else extends break continue")
	valueWords   = words("true false null this")
	unknownAfter = words("await catch class const debugger default enum export finally for function if import super switch try var while with yield " +
		"let static implements interface package private protected public as async from get of set using target meta")
)

func words(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// tokenize splits s into tokens. why is not "" when s cannot be split for
// certain; then the script's starts are unnamed.
func tokenize(s string) (toks []token, why string) {
	var stack []int // per open template substitution, the braces open in it
	depth := 0
	i := 0
	if strings.HasPrefix(s, "#!") {
		i = lineEnd(s, 0)
	}
	last, n, from := 0, 0, 0 // where the last token ended, how many there were then, where this step began
	for i < len(s) {
		if len(toks) != n {
			span(toks[n:], from, i)
			last, n = i, len(toks)
		}
		from = i
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i++
		case c >= utf8.RuneSelf:
			// A blank, a line terminator or a letter of a word. Which one
			// decides what a / near it starts and whether agent is agent.
			return nil, unnamedLexical
		case strings.HasPrefix(s[i:], "//"):
			i = lineEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, unnamedUnread
			}
			i += 2 + end + 2
		case strings.HasPrefix(s[i:], "<!--") || strings.HasPrefix(s[i:], "-->"):
			return nil, unnamedLexical // a comment in a script, code in a module
		case c == '\\':
			return nil, unnamedLexical // an escaped identifier (\u0061gent)
		case c == '\'' || c == '"':
			p := &reader{s: s, i: i}
			v, err := p.str()
			if err != nil {
				return nil, unnamedUnread
			}
			toks, i = append(toks, token{kind: tString, text: v}), p.i
		case c == '`':
			var next int
			if toks, next, why = template(s, i+1, toks); why != "" {
				return nil, why
			}
			if next < 0 { // a ${ opened
				stack = append(stack, 0)
				if depth++; depth > maxNest {
					return nil, unnamedUnread
				}
				next = -next
			}
			i = next
		case c == '}' && len(stack) > 0 && stack[len(stack)-1] == 0:
			stack = stack[:len(stack)-1]
			depth--
			toks = append(toks, token{kind: tPunct, text: "}", pos: i, end: i + 1})
			next := 0
			if toks, next, why = template(s, i+1, toks); why != "" {
				return nil, why
			}
			if next < 0 {
				stack = append(stack, 0)
				depth++
				next = -next
			}
			i = next
		case isWordByte(c) && (c < '0' || c > '9'):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks, i = append(toks, token{kind: tIdent, text: s[i:j]}), j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			toks, i = append(toks, token{kind: tNumber, text: s[i:j]}), j
		case c == '/':
			switch slashStarts(toks, strings.ContainsAny(s[last:i], "\n\r\u2028\u2029")) {
			case slashDivides:
				toks, i = append(toks, token{kind: tPunct, text: "/"}), i+1
			case slashUnknown:
				return nil, unnamedLexical
			default:
				end, ok := regexEnd(s, i+1)
				if !ok {
					return nil, unnamedUnread
				}
				toks, i = append(toks, token{kind: tRegex, text: s[i:end]}), end
			}
		default:
			p := punct(s[i:])
			t := token{kind: tPunct, text: p}
			switch {
			case t.opens():
				if depth++; depth > maxNest {
					return nil, unnamedUnread
				}
				if len(stack) > 0 {
					stack[len(stack)-1]++
				}
			case t.closes():
				if depth--; depth < 0 {
					return nil, unnamedUnread
				}
				if len(stack) > 0 {
					stack[len(stack)-1]--
				}
			}
			toks, i = append(toks, t), i+len(p)
		}
	}
	if depth != 0 || len(stack) > 0 {
		return nil, unnamedUnread
	}
	span(toks[n:], from, i)
	return toks, ""
}

// span marks the tokens one step read as read from s[from:to]. It skips
// those marked already.
func span(toks []token, from, to int) {
	for j := range toks {
		if toks[j].end == 0 {
			toks[j].pos, toks[j].end = from, to
		}
	}
}

// template reads a template literal's text from i to its end or to a ${.
// i is past its backtick or a substitution's brace. A template read whole
// from its backtick is a string token; any other piece is a part. next is
// past the end, or negated past a ${. The ${ is added as a token.
func template(s string, i int, toks []token) (out []token, next int, why string) {
	start := i
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == '`':
			if start > 0 && s[start-1] == '`' {
				p := &reader{s: s, i: start - 1}
				v, err := p.str()
				if err != nil {
					return nil, 0, unnamedUnread
				}
				return append(toks, token{kind: tString, text: v, pos: start - 1, end: j + 1}), j + 1, ""
			}
			return append(toks, token{kind: tPart, pos: start - 1, end: j + 1}), j + 1, ""
		case strings.HasPrefix(s[j:], "${"):
			return append(toks, token{kind: tPart, pos: start - 1, end: j}, token{kind: tPunct, text: "${", pos: j, end: j + 2}), -(j + 2), ""
		}
	}
	return nil, 0, unnamedUnread
}

type slashRole uint8

const (
	slashRegex slashRole = iota
	slashDivides
	slashUnknown
)

// slashStarts is what a / after toks starts, where JS's grammar makes it
// certain from the token before it. It is a regular expression where an
// expression begins, a division after one. Everywhere else it is
// slashUnknown, never a guess. nl: a line terminator stands between that
// token and the /. TestASlashIsReadOnlyWhereTheGrammarMakesItCertain names
// each unknown case.
func slashStarts(toks []token, nl bool) slashRole {
	n := len(toks)
	if n == 0 {
		return slashRegex
	}
	t := toks[n-1]
	switch t.kind {
	case tNumber, tRegex, tPart:
		return slashDivides
	case tString:
		if n > 1 && toks[n-2].kind == tIdent && toks[n-2].text == "from" {
			return slashUnknown
		}
		return slashDivides
	case tIdent:
		switch {
		case n > 1 && (toks[n-2].is(".") || toks[n-2].is("?.") || toks[n-2].is("#")):
			return slashDivides // a property's or a private name ends a member expression
		case regexAfter[t.text]:
			return slashRegex
		case valueWords[t.text]:
			return slashDivides
		case unknownAfter[t.text] || nl:
			return slashUnknown
		}
		return slashDivides
	}
	switch t.text {
	case "]":
		return slashDivides
	case ")", "}", "++", "--":
		return slashUnknown
	}
	return slashRegex
}

// regexEnd is the index past the regular expression whose body starts at
// i, past its /. Its flags are included.
func regexEnd(s string, i int) (int, bool) {
	class := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			return 0, false
		case c == '\\':
			i++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			i++
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			return i, true
		}
	}
	return 0, false
}

// punct is the punctuator at the start of s. It is one of the few longer
// ones the reader tells apart, else one byte.
func punct(s string) string {
	for _, p := range []string{"...", "?.", "++", "--"} {
		if strings.HasPrefix(s, p) && (p != "?." || len(s) < 3 || s[2] < '0' || s[2] > '9') {
			return p
		}
	}
	return s[:1]
}

// lineEnd is the index of the line terminator ending the line at i.
func lineEnd(s string, i int) int {
	if end := strings.IndexAny(s[i:], "\n\r\u2028\u2029"); end >= 0 {
		return i + end
	}
	return len(s)
}
