// Package testtree builds the file trees tests observe, from one small
// DSL. It also holds the one helper that fails a test on an error. Only
// tests import it.
package testtree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Make builds a tree under dir, one entry per spec, with missing parent
// directories. Names are raw bytes: a newline or \xff is data.
//
//	"d/"        is a directory.
//	"f"         is a regular file holding its own spec: "a/f" holds "a/f".
//	"f=text"    is a regular file holding text; "f=" is empty.
//	"x*=text"   is an executable regular file named x.
//	"l -> t"    is a symbolic link to t.
//	"p|"        is a FIFO.
//
// A regular file is 0644, or 0755 when executable, whatever the umask. A
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
