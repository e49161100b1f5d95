package workflow

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const metaHead = "export const meta = { name: 'wf', description: 'd', phases: [{ title: 'one' }] }\n"

// Every literal an agent may be started by is a name. Every agent() or
// workflow() whose name the reader cannot see makes the starts unnamed.
// The reader answers a superset, never silence.
func TestEveryAgentAScriptMayStartIsNamedOrItsStartsAreUnnamed(t *testing.T) {
	cases := []struct {
		name, body string
		names      []string // each must be among Names
		absent     []string // none may be among Names
		workflows  []string
		unnamed    bool
	}{
		{"a literal agentType", "await agent('p', { agentType: 'evil' })", []string{"evil", "p"}, nil, nil, false},
		{"double quotes, quoted key", `agent("p", {"agentType": "evil", model: 'x'})`, []string{"evil"}, nil, nil, false},
		{"a template without ${}", "agent(`p`, { agentType: `evil` })", []string{"evil"}, nil, nil, false},
		{"escapes are decoded", `agent('p', { agentType: 'e\x76\u0069\u{6c}' })`, []string{"evil"}, nil, nil, false},
		{"no options: the client's own subagent", "agent('p')\nagent('q',)", []string{"p"}, nil, nil, false},
		{"options without agentType", "agent('p', { model: m, schema: s })", nil, nil, nil, false},
		{"a name in a string elsewhere", "const t = 'evil'\nlog('x')", []string{"evil"}, nil, nil, false},
		{"a comment holds no name", "// 'evil'\n/* \"worse\" */ agent('p')", nil, []string{"evil", "worse"}, nil, false},
		{"a regular expression holds no name", "const r = /'evil'/g; agent('p')", nil, []string{"evil"}, nil, false},
		{"a regex with a slash in a class", "const r = /[/']/; agent('p', {agentType: 'a'})", []string{"a"}, nil, nil, false},
		{"division after a word", "const h = n / 2 / 'x'.length", []string{"x"}, nil, nil, false},
		{"a member named agent is another's", "r.agent(x); r?.agent; o.workflow(y)", nil, nil, nil, false},
		{"a child workflow by name", "await workflow('child')", []string{"child"}, nil, []string{"child"}, false},
		{"a substitution holds code", "const s = `a ${agent('p', {agentType: 'inner'})} b`", []string{"inner", "p"}, nil, nil, false},
		{"nested templates", "const s = `a ${`b ${'c'}`}`", []string{"c"}, nil, nil, false},

		{"a variable agentType", "agent('p', { agentType: t })", nil, nil, nil, true},
		{"a template with ${}", "agent('p', { agentType: `e${v}` })", nil, nil, nil, true},
		{"concatenated literals", "agent('p', { agentType: 'e' + 'vil' })", nil, nil, nil, true},
		{"a member expression", "agent('p', { agentType: names[0] })", nil, nil, nil, true},
		{"a number", "agent('p', { agentType: 5 })", nil, nil, nil, true},
		{"shorthand", "agent('p', { agentType })", nil, nil, nil, true},
		{"a getter", "agent('p', { get agentType() { return t } })", nil, nil, nil, true},
		{"a computed getter", "agent('p', { get [k]() { return t } })", nil, nil, nil, true},
		// The client copies the options key by key. A getter read before
		// agentType writes it. A BLOCKed agent ran so, pinned in e2e.
		{"a getter writing agentType through super", "const t = ['e2e', 'agent'].join('')\nagent('p', { get a() { super.agentType = t; return 1 }, agentType: 'general-purpose' })", nil, nil, nil, true},
		{"a getter writing it through this", "agent('p', { get a() { this.agentType = t; return 1 }, agentType: 'x' })", nil, nil, nil, true},
		{"a setter", "agent('p', { set a(v) { }, agentType: 'x' })", nil, nil, nil, true},
		{"a method", "agent('p', { a() { return 1 }, agentType: 'x' })", nil, nil, nil, true},
		{"an async method", "agent('p', { async a() { }, agentType: 'x' })", nil, nil, nil, true},
		{"a shorthand of another key is data", "agent('p', { agentType: 'x', model })", []string{"x"}, nil, nil, false},
		{"a computed key", "agent('p', { ['agent' + 'Type']: 'x' })", nil, nil, nil, true},
		{"a spread", "agent('p', { ...o })", nil, nil, nil, true},
		{"a prototype", "agent('p', { __proto__: o })", nil, nil, nil, true},
		{"options in a variable", "const o = { agentType: 'x' }\nagent('p', o)", nil, nil, nil, true},
		{"options in an expression", "agent('p', c ? {agentType: 'a'} : o)", nil, nil, nil, true},
		{"spread arguments", "agent(...args)", nil, nil, nil, true},
		{"agent as a value", "const a = agent\na('p', { agentType: 'x' })", nil, nil, nil, true},
		{"agent through call", "agent.call(null, 'p', o)", nil, nil, nil, true},
		{"agent tagged", "agent`p`", nil, nil, nil, true},
		{"the global object", "globalThis['age' + 'nt']('p', o)", nil, nil, nil, true},
		{"this", "this[k]('p', o)", nil, nil, nil, true},
		{"an escaped identifier", `\u0061gent('p', { agentType: t })`, nil, nil, nil, true},
		{"a workflow by a variable", "workflow(n)", nil, nil, nil, true},
		{"a workflow by scriptPath", "workflow({ scriptPath: 'x.js' })", nil, nil, nil, true},
		{"an HTML-like comment", "x <!-- `\nagent('p', {agentType: t})", nil, nil, nil, true},
		{"a slash after a parenthesis", "if (x) /'/.test(y); agent('p', {agentType: t}) //'", nil, nil, nil, true},
		{"a slash after a brace", "{} /'/; agent('p', {agentType: t}) //'", nil, nil, nil, true},
		{"an unterminated string", "agent('p, { agentType: 'x' })", nil, nil, nil, true},
		{"an unterminated template", "agent(`p, { agentType: 'x' })", nil, nil, nil, true},
		{"an unterminated comment", "agent('p') /* 'x'", nil, nil, nil, true},
		{"an unterminated regex", "const r = /abc\nagent('p')", nil, nil, nil, true},
		{"a line break in a string", "agent('p\n', {agentType: 'x'})", nil, nil, nil, true},
		{"an octal escape", `agent('p', {agentType: '\1'})`, nil, nil, nil, true},
		{"an unbalanced bracket", "agent('p', {agentType: 'x'}", nil, nil, nil, true},
		{"a stray closer", "}) agent('p')", nil, nil, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := ReadStarts([]byte(metaHead + c.body + "\n"))
			if got := st.Unnamed != ""; got != c.unnamed {
				t.Fatalf("unnamed %v (%q), want %v", got, st.Unnamed, c.unnamed)
			}
			for _, n := range c.names {
				if !slices.Contains(st.Names, n) {
					t.Errorf("%q not among the names %q", n, st.Names)
				}
			}
			for _, n := range c.absent {
				if slices.ContainsFunc(st.Names, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("%q is among the names %q", n, st.Names)
				}
			}
			if !c.unnamed && !slices.Equal(st.Workflows, c.workflows) {
				t.Errorf("workflows %q, want %q", st.Workflows, c.workflows)
			}
		})
	}
}

// Hostile scripts are read without a panic. They are garbage, control
// bytes, invalid UTF-8, a script past the client's size, and nesting past
// the bound. None reads as naming all it starts unless it truly does.
func TestHostileScriptsAreReadBoundedAndNeverSilently(t *testing.T) {
	huge := metaHead + strings.Repeat("agent('p', {agentType: 'a'})\n", MaxSize/28)
	deep := strings.Repeat("(", maxNest+1) + strings.Repeat(")", maxNest+1)
	quotes := strings.Repeat(`'\'`, 100000)
	for _, c := range []struct {
		name, src string
		unnamed   bool
	}{
		{"past the client's size", huge, true},
		{"invalid UTF-8", metaHead + "agent('\xff', {agentType: 'a'})", true},
		{"control bytes in a literal", metaHead + "agent('p', {agentType: 'a\x1b[2J\x00'})", false},
		{"control bytes outside", metaHead + "\x00\x1b agent('p')", false},
		{"nesting past the bound", deep, true},
		{"nesting at the bound", strings.Repeat("(", maxNest) + strings.Repeat(")", maxNest), false},
		{"escaped quotes to the end", quotes, true},
		{"a lone backslash", "\\", true},
		{"a lone slash", "/", true},
		{"a lone backtick", "`", true},
		{"empty", "", false},
		{"a hashbang is a comment", "#!/usr/bin/env node '\nagent('p')", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ReadStarts([]byte(c.src)).Unnamed != ""; got != c.unnamed {
				t.Errorf("unnamed %v, want %v", got, c.unnamed)
			}
		})
	}
	st := ReadStarts([]byte(metaHead + "agent('p', {agentType: 'a\\x1b\\u202e'})"))
	if !slices.Contains(st.Names, "a\x1b\u202e") {
		t.Errorf("an escaped control byte is not decoded: %q", st.Names)
	}
}

// planted is an agent() call whose agentType no reader can see. It is
// planted where a statement may go, on lines of its own. So only a block
// comment or a template can hold it: the literals that hold a line break.
const planted = "\n;agent(p, {agentType: x});\n"

func FuzzReadStarts(f *testing.F) {
	for _, s := range []string{metaHead + "agent('p', {agentType: 'a'})", "`${`${'x'}`}`", "/[/]/g; a / b", "workflow('w')", "agent(p, {get [k]() {}})",
		"const q = o.new / 2; x; const z = 2 / 1", "class X extends /'/.constructor {}; x // '", "var x\n/'/.test(''); x // '", "/* a */ `b` x"} {
		f.Add([]byte(s), uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint) {
		st := ReadStarts(src)
		for _, n := range st.Names {
			if !utf8.ValidString(n) && !strings.ContainsRune(n, utf8.RuneError) {
				t.Fatalf("a name that is not UTF-8: %q", n)
			}
		}
		for _, w := range st.Workflows {
			if !slices.Contains(st.Names, w) {
				t.Fatalf("workflow %q is not among the names", w)
			}
		}
		// Whatever the tokenizer makes of src, the planted call is seen. Or
		// the reader's own tokens hold it inside a template or a comment.
		k := int(at % uint(len(src)+1))
		mod := string(src[:k]) + planted + string(src[k:])
		if ReadStarts([]byte(mod)).Unnamed != "" {
			return
		}
		norm := strings.ReplaceAll(mod, "\r\n", "\n")
		q := len(strings.ReplaceAll(string(src[:k])+"\n", "\r\n", "\n")) + 1 // where its agent is
		if norm[q:q+len("agent")] != "agent" {
			t.Fatalf("the planted call is not at %d of %q", q, norm)
		}
		toks, why := tokenize(norm)
		if why != "" {
			t.Fatalf("read as named, yet not tokenized: %s", why)
		}
		var held *token
		for j := range toks {
			if toks[j].pos <= q && q < toks[j].end {
				held = &toks[j]
				break
			}
		}
		switch {
		case held == nil:
			if !strings.Contains(norm[:q], "/*") {
				t.Fatalf("the planted call is in no token and no comment of %q", norm)
			}
		case held.kind == tPart || held.kind == tString && norm[held.pos] == '`':
		default:
			t.Fatalf("the planted call is unseen inside %+v of %q", *held, norm)
		}
	})
}

func BenchmarkReadStarts(b *testing.B) {
	src := []byte(metaHead + strings.Repeat("const r = await agent(`review ${f}`, { agentType: 'reviewer', model: 'x' })\n", MaxSize/80))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if st := ReadStarts(src); st.Unnamed != "" {
			b.Fatal(st.Unnamed)
		}
	}
}

// A / is read as a regular expression or a division only where JS's
// grammar makes it certain from the token before it. Anywhere else the
// script is unnamed. Each hidden case hides agent() from a reader that
// guesses, and the client runs it (issue 22). A guess may open a string
// inside a regex it took for a division. Or its "regex" may swallow code
// JS divides by.
//
// The unknown cases, each pinned below:
//   - After ). It may close a condition or a call.
//   - After }. It may close a block or an object.
//   - After ++ and --.
//   - After a reserved or contextual word outside regexAfter and
//     valueWords. await, yield and of precede an expression where they
//     are keywords; elsewhere they are identifiers. extends, let, static,
//     get and the like are never followed by a division.
//   - After a word across a line break: var x or break label, then an
//     inserted semicolon.
//   - After a module's name in export … from 'm'.
func TestASlashIsReadOnlyWhereTheGrammarMakesItCertain(t *testing.T) {
	const call = `agent("p", {agentType: ["e2e", "agent"].join("")})`
	hidden := map[string]string{
		"the reviewer's keyword property": "const o = { new: 4 }; const q = o.new / 2; const r = await " + call + "; const z = 2 / 1",
		"the reviewer's extends":          "class X extends /'/.constructor {}; const r = await " + call + " // '",
		"break, a line break, a regex":    "for (;;) { break\n/'/.test(\"\") }; " + call + " // '",
		"continue, then a regex":          "for (;;) { continue\n/'/.test(\"\") }; " + call + " // '",
		"a label, a line break":           "a: for (;;) { break a\n/'/.test(\"\") }; " + call + " // '",
		"var x, a line break":             "var x\n/'/.test(\"\"); " + call + " // '",
		"let x, a line break":             "let x\n/'/.test(\"\"); " + call + " // '",
		"a comment's line break":          "var x /*\n*/ /'/.test(\"\"); " + call + " // '",
		"await":                           "await /'/; " + call + " // '",
		"yield":                           "function* g() { yield /'/ }; " + call + " // '",
		"of":                              "for (const x of /'/.exec(\"'\")) log(x); " + call + " // '",
		"export from":                     "export * from 'm'\n/'/.test(\"\"); " + call + " // '",
		"a private name":                  "class A { #return = 4; m(o) { const q = o.#return / 2; " + call + "; return 2 / 1 } }; new A().m(new A())",
		"a word past ASCII":               "const éreturn = 4; éreturn / 2; " + call + "; 2 / 1",
		"a blank past ASCII":              "const k = typeof\u00a0/'/.test(\"\"); " + call + " // '",
		"a parenthesis":                   "if (x) /'/.test(y); " + call + " //'",
		"a brace":                         "{} /'/; " + call + " //'",
		"++":                              "x++ /'/; " + call + " //'",
	}
	for _, kw := range []string{"new", "in", "return", "typeof", "delete", "case", "do", "else", "instanceof", "void", "throw", "extends", "break", "continue", "await", "of", "let", "static", "get", "set", "async", "yield"} {
		hidden["a property named "+kw] = "const o = {}; const q = o." + kw + " / 2; const r = await " + call + "; const z = 2 / 1"
		hidden["an optional property named "+kw] = "const q = o?." + kw + " / 2; " + call + "; 2 / 1"
	}
	for name, body := range hidden {
		t.Run(name, func(t *testing.T) {
			if st := ReadStarts([]byte(metaHead + body + "\n")); st.Unnamed == "" {
				t.Errorf("the agent() is unseen: %q", st.Names)
			}
		})
	}
	for _, c := range []struct{ name, body, name2 string }{
		{"division after a word", "const h = n / 2 / 1; agent('p', {agentType: 'a'})", "a"},
		{"division after a property named like a keyword", "const h = o.new / 2 / 1; agent('p', {agentType: 'a'})", "a"},
		{"division after a bracket", "const h = a[0] / 2 / 1; agent('p', {agentType: 'a'})", "a"},
		{"division after a literal", "const h = 'x' / 2 / `y` / 3 / /z/ / 1; agent('p', {agentType: 'a'})", "a"},
		{"division after true", "const h = true / 2 / 1; agent('p', {agentType: 'a'})", "a"},
		{"division across a line break after a literal", "const h = 4\n/ 2 / 1; agent('p', {agentType: 'a'})", "a"},
		{"a regex after return", "function f(s) { return /'/.test(s) }; agent('p', {agentType: 'a'})", "a"},
		{"a regex after return and a line break", "function f(s) { return\n/'/.test(s) }; agent('p', {agentType: 'a'})", "a"},
		{"a regex after typeof", "const k = typeof /'/; agent('p', {agentType: 'a'})", "a"},
		{"a regex after a punctuator", "const k = x ? /'/ : [/'/]; agent('p', {agentType: 'a'})", "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := ReadStarts([]byte(metaHead + c.body + "\n"))
			if st.Unnamed != "" || !slices.Contains(st.Names, c.name2) {
				t.Errorf("unnamed %q, names %q; want %q named", st.Unnamed, st.Names, c.name2)
			}
			if slices.ContainsFunc(st.Names, func(s string) bool { return strings.Contains(s, "/") }) {
				t.Errorf("a regex was read as a string: %q", st.Names)
			}
		})
	}
}

// Agents are the literal agentTypes only, each once, decoded. A repeated
// key keeps its last, as the object literal does. Some literals are no
// agent: a prompt, another key's literal, a literal elsewhere, an empty
// agentType (none) and a workflow's name. Control bytes and a huge name
// are kept as the literal holds them, never cut or cleaned.
func TestAgentsAreTheLiteralAgentTypesOnly(t *testing.T) {
	long := strings.Repeat("x", 300000)
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"a literal", "agent('p', { agentType: 'evil' })", []string{"evil"}},
		{"each once, in order", "agent('p', {agentType: 'b'})\nagent('q', {agentType: \"a\"})\nagent('r', {agentType: `b`})", []string{"b", "a"}},
		{"decoded", `agent('p', { agentType: 'e\x76\u0069\u{6c}' })`, []string{"evil"}},
		{"the last of a repeated key", "agent('p', { agentType: 'a', agentType: 'b' })", []string{"b"}},
		{"inside a substitution", "const s = `${agent('p', {agentType: 'inner'})}`", []string{"inner"}},
		{"none: no options, another key, an empty type, a workflow", "agent('evil')\nagent('p', { model: 'worse' })\nagent('q', { agentType: '' })\nworkflow('child')\nconst k = 'other'", nil},
		{"a member's call is another's", "r.agent('p', { agentType: 'evil' })", nil},
		{"control bytes kept", "agent('p', { agentType: 'e\\x1b[2Jvil\\u0000' })", []string{"e\x1b[2Jvil\x00"}},
		{"a huge name kept whole", "agent('p', { agentType: '" + long + "' })", []string{long}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := ReadStarts([]byte(metaHead + c.body + "\n"))
			if st.Unnamed != "" {
				t.Fatalf("unnamed: %q", st.Unnamed)
			}
			if !slices.Equal(st.Agents, c.want) {
				t.Errorf("agents %q, want %q", st.Agents, c.want)
			}
			for _, a := range st.Agents {
				if !slices.Contains(st.Names, a) {
					t.Errorf("%q is not among the names: Agents must be a subset", a)
				}
			}
		})
	}
	if st := ReadStarts([]byte(metaHead + "agent('p', { agentType: 'a', get b() { return 1 } })\n")); st.Unnamed == "" || len(st.Agents) != 0 {
		t.Errorf("a call read as unnamed names no certain agent: %q, %q", st.Unnamed, st.Agents)
	}
}
