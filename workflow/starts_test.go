package workflow

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const metaHead = "export const meta = { name: 'wf', description: 'd', phases: [{ title: 'one' }] }\n"

// Every literal an agent may be started by is a name, and every agent()
// or workflow() whose name the reader cannot see makes the starts
// unnamed: the reader answers a superset, never silence.
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

// Garbage, control bytes, invalid UTF-8, a script past the client's size
// and nesting past the bound are read without a panic, and never as a
// script that starts nothing unseen unless it truly names all it starts.
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

func FuzzReadStarts(f *testing.F) {
	for _, s := range []string{metaHead + "agent('p', {agentType: 'a'})", "`${`${'x'}`}`", "/[/]/g; a / b", "workflow('w')", "agent(p, {get [k]() {}})"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
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
