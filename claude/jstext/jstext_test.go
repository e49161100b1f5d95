package jstext

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// skillwire reads a superset of the imports the client reads. Code, code
// spans and comments are read too. The cases are the reviewer's spellings:
// an indented fence, a code span across a paragraph, an unclosed comment,
// a backtick info string. An @ after punctuation starts an import, since
// one of marked's tokens may end there. An @ after a letter never does.
func TestImportsAreASupersetOfWhatTheClientReads(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"line start", "@docs/extra.md\n", []string{"docs/extra.md"}},
		{"after a word", "see @a.md and @./b.md\n", []string{"a.md", "./b.md"}},
		{"home and absolute", "@~/x.md @/etc/y.md\n", []string{"~/x.md", "/etc/y.md"}},
		{"escaped space", `@my\ notes.md`, []string{"my notes.md"}},
		{"a lone backslash ends the path", `@a\b.md`, []string{"a"}},
		{"fragment cut", "@a.md#part\n", []string{"a.md"}},
		{"an address is no import", "mail me@example.com\n", nil},
		{"fenced code is read", "```\n@in.md\n```\n@yes.md\n", []string{"in.md", "yes.md"}},
		{"an indented fence is read", "# p\n\n    ```\n\n@evil.md\n\n    ```\n", []string{"evil.md"}},
		{"a code span across a paragraph is read", "a `b\n\n@evil.md\n\nc` d\n", []string{"evil.md"}},
		{"an unclosed comment is read", "hello <!-- note\n\n@evil.md\n", []string{"evil.md"}},
		{"a backtick info string is read", "```x`\n@evil.md\n", []string{"evil.md"}},
		{"a comment is read", "<!-- @in.md -->@x @yes.md", []string{"in.md", "x", "yes.md"}},
		{"in a table cell", "|@cell.md|", []string{"cell.md", "cell.md|"}},
		{"after an escape", `\*@esc.md`, []string{"esc.md"}},
		{"after inline html", "<b>@tag.md</b>", []string{"tag.md", "tag.md</b>"}},
		{"emphasis", "_@em_a.md_ **@st.md**", []string{"em", "em_a.md", "em_a.md_", "st.md", "st.md**"}},
		{"after an escaped @", `\@@twice.md`, []string{"twice.md"}},
		{"a no-break space ends and starts a path", "x\u00a0@nb.md\u00a0tail", []string{"nb.md"}},
		{"a byte-order mark starts a path", "\ufeff@bom.md", []string{"bom.md"}},
		{"punctuation is no path", "@#x @%y @(z)", nil},
		{"an @ after an @ may be an escape's", "@@w", []string{"w"}},
		{"/ alone is no path", "@/ @/a", []string{"/a"}},
		{"duplicates once", "@a.md @a.md", []string{"a.md"}},
		{"control bytes are path bytes", "@a\x1b[2J.md", []string{"a\x1b", "a\x1b[2J.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Imports([]byte(tc.text), 100); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestImportsAreBounded(t *testing.T) {
	var many strings.Builder
	for i := range 40 {
		fmt.Fprintf(&many, "@f%d.md\n", i)
	}
	if n := len(Imports([]byte(many.String()), 7)); n != 7 {
		t.Errorf("%d imports read, want 7", n)
	}
}

func FuzzImports(f *testing.F) {
	f.Add([]byte("@a.md ```\n@b\n``` `@c` <!-- @d --> @e\\ f"))
	f.Add([]byte("|@a|\u00a0@b\ufeff@c \\@@d \xff@e"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Imports(data, 9)
		if len(got) > 9 {
			t.Fatalf("%d imports", len(got))
		}
		for _, p := range got {
			if !Importable(p) || strings.ContainsAny(p, "\n\t\r\v\f ") && !strings.Contains(string(data), `\ `) {
				t.Fatalf("bad import %q", p)
			}
		}
	})
}
