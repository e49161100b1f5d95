package lockfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// MaxSize bounds a lock file: far above the lock of a full default scan
// budget (100,000 entries), far below what would exhaust a CI runner.
const MaxSize = 256 << 20

// ReadFile reads and parses the lock at path. The file must be a regular
// file, opened without following a link and without blocking (a FIFO
// planted as the lock must not hang CI). A missing file wraps
// fs.ErrNotExist.
func ReadFile(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%w: a symbolic link", ErrNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > MaxSize {
		return nil, ErrTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	return Parse(data)
}

// WriteFile replaces the file at path with data atomically: a temporary
// file in the same directory, synced, then renamed over path, then the
// directory synced. A reader sees the old lock or the new one, never part
// of either. It refuses a path that exists and is not a regular file (a
// link, a directory, a FIFO): replacing it would not do what was asked.
func WriteFile(path string, data []byte) (err error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s", ErrNotRegular, fi.Mode().Type())
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dir, base := splitPath(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600; a lock is committed and read by everyone.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// splitPath splits at the last '/', without cleaning the path: "a/../b"
// means what the kernel makes of it, not what filepath.Clean would.
func splitPath(path string) (dir, base string) {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
