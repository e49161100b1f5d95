package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/walker"
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

// claudeMDDigest observes dir/CLAUDE.md as a project's instruction file.
func claudeMDDigest(t *testing.T, dir string) walker.Candidate {
	t.Helper()
	r := Root{Path: dir, Scope: Project, Kind: Config, Names: []string{"CLAUDE.md"}}
	return walker.ObserveIn(context.Background(), r.Spec(), []byte("CLAUDE.md"), walker.DefaultConfig())
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The client follows imports four levels deep, each relative to the file
// that imports it: a change at any of those levels moves CLAUDE.md's
// digest, one at the fifth (which the client does not load) does not.
func TestImportsAreBoundToTheClientsDepth(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/CLAUDE.md", "@l1/a.md\n")
	write(t, dir+"/l1/a.md", "@l2/b.md\n")
	write(t, dir+"/l1/l2/b.md", "@../c.md\n") // relative to b.md: l1/c.md
	write(t, dir+"/l1/c.md", "@d.md\n")
	write(t, dir+"/l1/d.md", "@e.md\n") // level 4: loaded; e.md is level 5
	write(t, dir+"/l1/e.md", "five\n")
	for _, f := range []string{"l1/a.md", "l1/l2/b.md", "l1/c.md", "l1/d.md", "l1/e.md"} {
		before := claudeMDDigest(t, dir)
		if before.Partial() || len(before.Anomalies()) > 0 {
			t.Fatalf("anomalies %v", before.Anomalies())
		}
		b, _ := os.ReadFile(dir + "/" + f)
		write(t, dir+"/"+f, string(b)+"changed\n")
		moved := claudeMDDigest(t, dir).Digest != before.Digest
		if want := f != "l1/e.md"; moved != want {
			t.Errorf("a change of %s moved the digest: %v, want %v", f, moved, want)
		}
	}
}

// Imports that import each other end; more than the walker binds is an
// anomaly of the candidate, never silence.
func TestImportCyclesEndAndTooManyImportsAreAnAnomaly(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/CLAUDE.md", "@a.md\n")
	write(t, dir+"/a.md", "@b.md @CLAUDE.md\n")
	write(t, dir+"/b.md", "@a.md\n")
	c := claudeMDDigest(t, dir)
	if c.Partial() || len(c.Anomalies()) > 0 {
		t.Errorf("a cycle: anomalies %v", c.Anomalies())
	}
	// 32 imports per file, each importing 32 more: over the 64 bound.
	var top strings.Builder
	for i := range maxImports {
		fmt.Fprintf(&top, "@f%d.md\n", i)
		var sub strings.Builder
		for j := range maxImports {
			fmt.Fprintf(&sub, "@g%d-%d.md\n", i, j)
			write(t, fmt.Sprintf("%s/g%d-%d.md", dir, i, j), "x\x1b[2J\n")
		}
		write(t, fmt.Sprintf("%s/f%d.md", dir, i), sub.String())
	}
	write(t, dir+"/CLAUDE.md", top.String())
	c = claudeMDDigest(t, dir)
	if !slices.Contains(walker.Reasons(c.Anomalies()), anomaly.Fanout) {
		t.Errorf("too many imports: anomalies %v", walker.Reasons(c.Anomalies()))
	}
}
