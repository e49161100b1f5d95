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

func TestImportsAreBoundedAndResolvedAgainstTheImportingFile(t *testing.T) {
	var many strings.Builder
	for i := range 4 * maxImportPaths {
		fmt.Fprintf(&many, "@f%d.md\n", i)
	}
	if n := len(importPaths("/d", "", []byte(many.String()))); n != maxImportPaths {
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

func FuzzImportPaths(f *testing.F) {
	f.Add([]byte("@a.md ```\n@b\n``` `@c` <!-- @d --> @e\\ f"))
	f.Fuzz(func(t *testing.T, data []byte) {
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
