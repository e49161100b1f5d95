package workflow

import (
	"strings"
	"testing"
)

// The meta name is read as the client's fast reader reads it. Every shape
// it would not read is unknown (ok false), never a wrong name.
func TestTheMetaNameIsReadAsTheClientReadsIt(t *testing.T) {
	const desc = ", description: 'd' }\n"
	cases := []struct {
		name, src, want string
		ok              bool
	}{
		{"plain", "export const meta = { name: 'wf'" + desc + "return 1\n", "wf", true},
		{"double quotes, key quoted", `export const meta = {"name": "wf", 'description': "d", phases: [{title: 'one'}]};`, "wf", true},
		{"comments and blanks before", "// head\n/* block\n */\n\t export  const\nmeta={name:`wf`,description:'d'}", "wf", true},
		{"the last name wins", "export const meta = { name: 'a', name: 'b'" + desc, "b", true},
		{"escapes", `export const meta = { name: 'a\x41\u0042\u{43}\'\n', description: 'd' }`, "aABC'\n", true},
		{"line continuation", "export const meta = { name: 'a\\\nb'" + desc, "ab", true},
		{"numbers, booleans, null, trailing commas", "export const meta = { n: -1.5e3, z: 0, f: .5, t: true, x: null, a: [1, 2,], name: 'wf', description: 'd', }", "wf", true},
		{"a name in a nested object is not meta's", "export const meta = { phases: [{ name: 'inner' }], name: 'outer'" + desc, "outer", true},
		{"CRLF", "export const meta = {\r\n name: 'wf',\r\n description: 'd'\r\n}\r\nreturn 1", "wf", true},
		{"newline then a word ends it", "export const meta = { name: 'wf'" + desc + "const x = 1", "wf", true},

		{"empty", "", "", false},
		{"no export", "const meta = { name: 'wf'" + desc, "", false},
		{"exportconst", "exportconst meta = { name: 'wf'" + desc, "", false},
		{"meta not first", "const x = 1\nexport const meta = { name: 'wf'" + desc, "", false},
		{"empty name", "export const meta = { name: ''" + desc, "", false},
		{"no description", "export const meta = { name: 'wf' }", "", false},
		{"name not a string", "export const meta = { name: 1, description: 'd' }", "", false},
		{"computed value", "export const meta = { name: 'a' + 'b'" + desc, "", false},
		{"identifier value", "export const meta = { name: n" + desc, "", false},
		{"template with ${}", "export const meta = { name: `${x}`" + desc, "", false},
		{"line break in a string", "export const meta = { name: 'a\nb'" + desc, "", false},
		{"octal escape", `export const meta = { name: '\1', description: 'd' }`, "", false},
		{"surrogate escape", `export const meta = { name: '\uD800', description: 'd' }`, "", false},
		{"escape past unicode", `export const meta = { name: '\u{110000}', description: 'd' }`, "", false},
		{"__proto__ key", "export const meta = { __proto__: 1, name: 'wf'" + desc, "", false},
		{"unterminated", "export const meta = { name: 'wf'", "", false},
		{"continued on the same line", "export const meta = { name: 'wf', description: 'd' } + 1", "", false},
		{"continued by in", "export const meta = { name: 'wf', description: 'd' }\nin x", "", false},
		{"continued by a call", "export const meta = { name: 'wf', description: 'd' }\n(1)", "", false},
		{"a NBSP blank", "export\u00a0const meta = { name: 'wf'" + desc, "", false},
		{"a BOM", "\ufeffexport const meta = { name: 'wf'" + desc, "", false},
		{"not UTF-8", "export const meta = { name: '\xff'" + desc, "", false},
		{"number then word", "export const meta = { n: 1x, name: 'wf'" + desc, "", false},
		{"leading zero", "export const meta = { n: 01, name: 'wf'" + desc, "", false},
		{"deep", "export const meta = { a: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + ", name: 'wf'" + desc, "", false},
		{"too large", "export const meta = { name: 'wf'" + desc + strings.Repeat(" ", MaxSize), "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Name([]byte(tc.src))
			if got != tc.want || ok != tc.ok {
				t.Errorf("Name = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestOnlyTheClientsOwnWorkflowsAreBuiltins(t *testing.T) {
	if !Builtin("deep-research") || Builtin("deep-research ") || Builtin("") || Builtin("Deep-Research") {
		t.Error("Builtin answers other than the exact names of Builtins")
	}
}

// FuzzName: any bytes end in a name or in unknown, never a panic or an
// empty name. A name read is read again from the same script.
func FuzzName(f *testing.F) {
	f.Add([]byte("export const meta = { name: 'wf', description: 'd' }\nreturn 1"))
	f.Add([]byte("export const meta = {\"name\":\"\\u{41}\",description:`x`,a:[-1,.5e3,{}]};"))
	f.Add([]byte("/* */ // x\nexport const meta = { name: 'a\\\nb', description: 'd' }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		name, ok := Name(src)
		if ok && name == "" {
			t.Fatalf("Name(%q) = \"\", true", src)
		}
		if again, ok2 := Name(src); again != name || ok2 != ok {
			t.Fatalf("Name is not a function of its input")
		}
	})
}
