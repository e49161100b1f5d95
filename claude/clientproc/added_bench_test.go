package clientproc

import (
	"os"
	"path/filepath"
	"testing"
)

// What each hook pays to read the client's added folders. That is the
// walk from sh -c up to the client, its command line and working
// directory.
func BenchmarkClientAdded(b *testing.B) {
	base := b.TempDir()
	for _, d := range []string{"proj", "extra"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	fp := fakeProc{t: b, dir: b.TempDir()}
	for _, p := range hookChain("claude", "/x/claude", filepath.Join(base, "proj"), "-p", "hi", "--add-dir", "../extra", "/abs") {
		fp.add(p)
	}
	c, env := Client{Proc: fp.dir, Parent: 200}, envOf("CLAUDE_PID", "100")
	b.ReportAllocs()
	for b.Loop() {
		if a := c.Added(env); len(a.Dirs) != 2 {
			b.Fatalf("%+v", a)
		}
	}
}
