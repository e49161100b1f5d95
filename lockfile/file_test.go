package lockfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/internal/testtree"
	"golang.org/x/sys/unix"
)

func TestWriteFileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultName)
	for _, content := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644 (a lock is committed)", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestWriteFileRefusesATargetThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "real=keep", "link -> real", "dangling -> nowhere", "sub/", "fifo|")
	for _, name := range []string{"link", "dangling", "sub", "fifo"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			before, _ := os.Lstat(path)
			err := WriteFile(path, []byte("lock"))
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("error %v, want ErrNotRegular", err)
			}
			after, _ := os.Lstat(path)
			if before.Mode() != after.Mode() || !os.SameFile(before, after) {
				t.Errorf("the target was replaced")
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real")); string(got) != "keep" {
		t.Errorf("the link's target was written through: %q", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 5 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	valid := mustMarshal(t, sampleLock(t))
	testtree.Make(t, dir, "lock="+string(valid), "link -> lock", "fifo|", "sub/", "bad={")
	big, err := os.Create(filepath.Join(dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxSize + 1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	big.Close()

	if _, err := ReadFile(filepath.Join(dir, "lock")); err != nil {
		t.Errorf("a valid lock: %v", err)
	}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"missing", fs.ErrNotExist},
		{"link", ErrNotRegular}, // never followed
		{"fifo", ErrNotRegular}, // never blocks
		{"sub", ErrNotRegular},
		{"bad", ErrMalformed},
		{"big", ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(filepath.Join(dir, tc.name))
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Errorf("error %v, want %v", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				// Unblock the reader so the test can end.
				if f, err := os.OpenFile(filepath.Join(dir, tc.name), os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("ReadFile blocked")
			}
		})
	}
}
