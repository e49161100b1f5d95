package claude

import (
	"slices"
	"strings"
	"testing"
)

func TestImportsAreReadOutsideCodeAndComments(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"line start", "@docs/extra.md\n", []string{"docs/extra.md"}},
		{"after a word", "see @a.md and @./b.md\n", []string{"a.md", "./b.md"}},
		{"home and absolute", "@~/x.md @/etc/y.md\n", []string{"~/x.md", "/etc/y.md"}},
		{"escaped space", `@my\ notes.md`, []string{"my notes.md"}},
		{"fragment cut", "@a.md#part\n", []string{"a.md"}},
		{"an address is no import", "mail me@example.com\n", nil},
		{"fenced code", "```\n@no.md\n```\n@yes.md\n", []string{"yes.md"}},
		{"tilde fence", "~~~sh\n@no.md\n~~~\n", nil},
		{"code span", "run `@no.md` then @yes.md", []string{"yes.md"}},
		{"comment", "<!-- @no.md -->@x @yes.md", []string{"x", "yes.md"}},
		{"punctuation is no path", "@#x @%y @(z)", nil},
		{"duplicates once", "@a.md @a.md", []string{"a.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Imports([]byte(tc.text)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestImportsAreBoundedAndResolvedAgainstTheImportingFile(t *testing.T) {
	many := ""
	for i := range 100 {
		many += " @f" + string(rune('a'+i%26)) + strings.Repeat("z", i/26) + ".md"
	}
	if n := len(Imports([]byte(many))); n != maxImports {
		t.Errorf("%d imports read, want at most %d", n, maxImports)
	}
	got := importPaths("/p/docs", "/h", []byte("@../x.md @~/y.md @/abs.md @./z.md @~/"))
	want := []string{"/p/docs/../x.md", "/h/y.md", "/abs.md", "/p/docs/z.md", "/h/"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := importPaths("/p", "", []byte("@~/y.md")); got != nil {
		t.Errorf("~/ without a home: %q", got)
	}
}

func FuzzImports(f *testing.F) {
	f.Add([]byte("@a.md ```\n@b\n``` `@c` <!-- @d --> @e\\ f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Imports(data)
		if len(got) > maxImports {
			t.Fatalf("%d imports", len(got))
		}
		for _, p := range got {
			if p == "" || strings.IndexByte(p, 0) >= 0 || strings.ContainsAny(p, "\n\t") {
				t.Fatalf("bad import %q", p)
			}
		}
	})
}
