package testtree

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMakeBuildsEveryKindOfEntryItsSpecNames(t *testing.T) {
	old := unix.Umask(0o077) // files keep their modes whatever the umask
	defer unix.Umask(old)
	dir := t.TempDir()
	Make(t, dir, "d/", "a/b/f", "a/g=text", "a/e=", "a/x*=#!/bin/sh", "a/y*", "a/l -> g", "a/p|", "n\n\xff=raw")
	for _, tc := range []struct {
		path    string
		mode    os.FileMode
		content string
	}{
		{path: "d", mode: os.ModeDir | 0o700},
		{path: "a/b/f", mode: 0o644, content: "a/b/f"},
		{path: "a/g", mode: 0o644, content: "text"},
		{path: "a/e", mode: 0o644, content: ""},
		{path: "a/x", mode: 0o755, content: "#!/bin/sh"},
		{path: "a/y", mode: 0o755, content: "a/y"},
		{path: "a/l", mode: os.ModeSymlink | 0o777},
		{path: "a/p", mode: os.ModeNamedPipe | 0o600},
		{path: "n\n\xff", mode: 0o644, content: "raw"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := filepath.Join(dir, tc.path)
			fi, err := os.Lstat(p)
			Must(t, err)
			if fi.Mode() != tc.mode {
				t.Errorf("mode %v, want %v", fi.Mode(), tc.mode)
			}
			if fi.Mode().IsRegular() {
				got, err := os.ReadFile(p)
				Must(t, err)
				if string(got) != tc.content {
					t.Errorf("content %q, want %q", got, tc.content)
				}
			}
		})
	}
	if target, err := os.Readlink(filepath.Join(dir, "a/l")); err != nil || target != "g" {
		t.Errorf("link target %q, %v; want g", target, err)
	}
}
