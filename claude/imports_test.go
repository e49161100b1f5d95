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
			if got := Imports([]byte(tc.text)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestImportsAreBoundedAndResolvedAgainstTheImportingFile(t *testing.T) {
	var many strings.Builder
	for i := range 4 * maxImportPaths {
		fmt.Fprintf(&many, "@f%d.md\n", i)
	}
	if n := len(Imports([]byte(many.String()))); n != maxImportPaths {
		t.Errorf("%d imports read, want %d", n, maxImportPaths)
	}
	if maxImportPaths <= 2*walker.MaxScripts {
		t.Errorf("a cut list of %d paths might not reach the walker's bound of %d beyond those it has seen", maxImportPaths, walker.MaxScripts)
	}
	got := importPaths("/p/docs", "/h", []byte("@../x.md @~/y.md @/abs.md @./z.md @nowhere/../evil.md @~/"))
	want := []string{"/p/x.md", "/p/docs/../x.md", "/h/y.md", "/abs.md", "/p/docs/z.md",
		"/p/docs/evil.md", "/p/docs/nowhere/../evil.md", "/h", "/h/"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A lock's root is "./": a plain import keeps one spelling.
	got = importPaths(".", "", []byte("@docs/x.md @a/../y.md"))
	if want := []string{"./docs/x.md", "./y.md", "./a/../y.md"}; !slices.Equal(got, want) {
		t.Errorf("relative: got %q, want %q", got, want)
	}
	if got := importPaths("/p", "", []byte("@~/y.md")); got != nil {
		t.Errorf("~/ without a home: %q", got)
	}
}

func FuzzImports(f *testing.F) {
	f.Add([]byte("@a.md ```\n@b\n``` `@c` <!-- @d --> @e\\ f"))
	f.Add([]byte("|@a|\u00a0@b\ufeff@c \\@@d \xff@e"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Imports(data)
		if len(got) > maxImportPaths {
			t.Fatalf("%d imports", len(got))
		}
		for _, p := range got {
			if !importable(p) || strings.ContainsAny(p, "\n\t\r\v\f ") && !strings.Contains(string(data), `\ `) {
				t.Fatalf("bad import %q", p)
			}
		}
		for _, p := range importPaths("/d", "/h", data) {
			if !strings.HasPrefix(p, "/") {
				t.Fatalf("a relative path %q", p)
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
// that imports it. A change at any of those levels moves CLAUDE.md's
// digest. One at the fifth, which the client does not load, does not.
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

// Imports that import each other end. More than the walker binds is an
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
	for i := range 32 {
		fmt.Fprintf(&top, "@f%d.md\n", i)
		var sub strings.Builder
		for j := range 32 {
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

// The client has no bound on the imports of one file. The 65th is past the
// walker's bound, and the candidate is fanout, never a silent drop. The
// 33rd, at the old per-file bound, is bound like the first.
func TestTheImportsOfOneFileAreBoundOrAnAnomaly(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 32 {
		fmt.Fprintf(&b, "@f%d.md\n", i)
		write(t, fmt.Sprintf("%s/f%d.md", dir, i), "filler\n")
	}
	b.WriteString("@evil.md\n")
	write(t, dir+"/CLAUDE.md", b.String())
	write(t, dir+"/evil.md", "one\n")
	before := claudeMDDigest(t, dir)
	write(t, dir+"/evil.md", "two\n")
	after := claudeMDDigest(t, dir)
	if len(after.Anomalies()) > 0 || after.Digest == before.Digest {
		t.Errorf("the 33rd import's change: anomalies %v, digest moved %v", walker.Reasons(after.Anomalies()), after.Digest != before.Digest)
	}
	for i := 32; i <= walker.MaxScripts; i++ {
		fmt.Fprintf(&b, "@f%d.md\n", i)
	}
	write(t, dir+"/CLAUDE.md", b.String())
	if c := claudeMDDigest(t, dir); !slices.Contains(walker.Reasons(c.Anomalies()), anomaly.Fanout) {
		t.Errorf("past the bound: anomalies %v", walker.Reasons(c.Anomalies()))
	}
}

// The client reads nowhere/../evil.md as evil.md beside CLAUDE.md, though
// nowhere does not exist. A change of evil.md moves CLAUDE.md's digest.
func TestADotDotImportIsBoundAsTheClientReadsIt(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/CLAUDE.md", "@nowhere/../evil.md\n")
	write(t, dir+"/evil.md", "one\n")
	before := claudeMDDigest(t, dir)
	write(t, dir+"/evil.md", "two\n")
	if after := claudeMDDigest(t, dir); after.Digest == before.Digest || len(after.Anomalies()) > 0 {
		t.Errorf("digest moved %v, anomalies %v", after.Digest != before.Digest, walker.Reasons(after.Anomalies()))
	}
}
