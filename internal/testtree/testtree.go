// Package testtree builds the file trees that tests observe, from one
// small DSL, and holds the one helper that fails a test on an error. It is
// imported only by tests.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Make builds a tree under dir, one entry per spec, making missing parent
// directories. Names are raw bytes (a newline or \xff is data):
//
//	"d/"        a directory
//	"f"         a regular file holding its own spec ("a/f" holds "a/f")
//	"f=text"    a regular file holding text ("f=" is empty)
//	"x*=text"   an executable regular file named x
//	"l -> t"    a symbolic link to t
//	"p|"        a FIFO
//
// A regular file is 0644, or 0755 when executable, whatever the umask: a
// digest binds modes, so a tree must not depend on who builds it.
func Make(t testing.TB, dir string, specs ...string) {
	t.Helper()
	for _, s := range specs {
		switch {
		case strings.HasSuffix(s, "/"):
			Must(t, os.MkdirAll(filepath.Join(dir, s), 0o755))
		case strings.Contains(s, " -> "):
			name, target, _ := strings.Cut(s, " -> ")
			p := filepath.Join(dir, name)
			Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			Must(t, os.Symlink(target, p))
		case strings.HasSuffix(s, "|"):
			p := filepath.Join(dir, strings.TrimSuffix(s, "|"))
			Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			Must(t, unix.Mkfifo(p, 0o644))
		default:
			name, text, ok := strings.Cut(s, "=")
			if !ok {
				text = name
			}
			mode := os.FileMode(0o644)
			if strings.HasSuffix(name, "*") {
				name, mode = strings.TrimSuffix(name, "*"), 0o755
				if !ok {
					text = name
				}
			}
			p := filepath.Join(dir, name)
			Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			Must(t, os.WriteFile(p, []byte(text), mode))
			Must(t, os.Chmod(p, mode))
		}
	}
}

// Must fails the test at once when err is not nil.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
