// Package safefile holds the two file primitives every skillwire package
// uses for a file it does not walk: a bounded read that never follows a
// symlink, never blocks and proves what it read, and an atomic replace.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/skillwire/skillwire/pathname"
	"golang.org/x/sys/unix"
)

// Refusals. A refusal opened nothing it should not have and wrote nothing.
var (
	// ErrNotRegular: the path holds something other than a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink: the path is a symbolic link (it also matches ErrNotRegular).
	ErrSymlink = errors.New("a symbolic link")
	// ErrTooLarge: the file holds more than the caller's bound.
	ErrTooLarge = errors.New("too large")
	// ErrNotOwner: Trust.Owner was asked and another user owns the file.
	ErrNotOwner = errors.New("not owned by this user")
	// ErrPermissive: the file has a permission bit Trust.DenyPerm forbids.
	ErrPermissive = errors.New("writable by others")
)

// KindError is a path that is not a regular file; Mode is what it is.
type KindError struct{ Mode fs.FileMode }

func (e *KindError) Error() string {
	if e.Mode&fs.ModeSymlink != 0 {
		return ErrSymlink.Error()
	}
	return fmt.Sprintf("%s: %s", ErrNotRegular, e.Mode.Type())
}

// Is matches ErrNotRegular always, and ErrSymlink for a link.
func (e *KindError) Is(target error) bool {
	return target == ErrNotRegular || target == ErrSymlink && e.Mode&fs.ModeSymlink != 0
}

// Trust is what Read proves about the opened file besides its kind.
type Trust struct {
	Owner    bool        // the effective user owns it (else ErrNotOwner)
	DenyPerm fs.FileMode // none of these permission bits is set (else ErrPermissive)
}

// openFlags: a link at the path is refused, not followed; a FIFO or device
// planted there cannot block the open nor become a controlling terminal.
const openFlags = os.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY

// Read reads the regular file at path, at most max bytes, and checks trust
// on the descriptor it read. The path is examined with lstat first, so
// nothing but a regular file is ever opened, and the opened file must be
// the one examined. A missing file wraps fs.ErrNotExist.
func Read(path string, max int64, trust Trust) ([]byte, fs.FileInfo, error) {
	lfi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !lfi.Mode().IsRegular() {
		return nil, nil, &KindError{Mode: lfi.Mode().Type()}
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, nil, &KindError{Mode: fs.ModeSymlink}
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &KindError{Mode: fi.Mode().Type()}
	}
	if !os.SameFile(fi, lfi) {
		return nil, nil, fmt.Errorf("%w: replaced while it was opened", ErrNotRegular)
	}
	if err := trust.check(fi); err != nil {
		return nil, nil, err
	}
	if fi.Size() > max {
		return nil, nil, ErrTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > max {
		return nil, nil, ErrTooLarge
	}
	return b, fi, nil
}

func (t Trust) check(fi fs.FileInfo) error {
	if t.Owner {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) != os.Geteuid() {
			return ErrNotOwner
		}
	}
	if fi.Mode().Perm()&t.DenyPerm != 0 {
		return fmt.Errorf("%w: mode %#o", ErrPermissive, fi.Mode().Perm())
	}
	return nil
}

// Write replaces the file at path with data, mode perm, atomically: a
// reader sees the old file or the new one, never part of either, and a
// crash leaves at most a temporary file beside it, never in its place. The
// temporary file is created in the same directory (O_EXCL|O_NOFOLLOW),
// written and synced, renamed over path, and the directory synced. A path
// that exists and is not a regular file is refused (a *KindError).
//
// check, when not nil, runs once the new content is durable, just before
// it takes the path's place: its error aborts the write, leaving the path
// as it was (for a caller that must not overwrite a concurrent change).
func Write(path string, data []byte, perm fs.FileMode, check func() error) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return &KindError{Mode: fi.Mode().Type()}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return place(path, data, perm, check, os.Rename)
}

// Create writes data at path, mode perm, only when nothing is there:
// otherwise it fails with an error wrapping fs.ErrExist and writes
// nothing. The file appears whole (written, synced, then linked in).
func Create(path string, data []byte, perm fs.FileMode) error {
	return place(path, data, perm, nil, linkNew)
}

// linkNew puts tmp at path only if path is free: link(2) never replaces.
// Where hard links are not supported, a rename after a fresh lstat is the
// best there is.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		return os.Remove(tmp)
	}
	// No fallback to a rename where link(2) fails (a filesystem without hard
	// links): a check then a rename could replace a file made in between.
	return err
}

func place(path string, data []byte, perm fs.FileMode, check func() error, put func(tmp, path string) error) (err error) {
	dir := dirOf(path)
	f, tmp, err := createTemp(dir, path[strings.LastIndexByte(path, '/')+1:])
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// Created 0600 (under any umask), then given the mode asked for.
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if check != nil {
		if err = check(); err != nil {
			return err
		}
	}
	if err = put(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// dirOf is the directory holding path, as text: "." for a bare name.
func dirOf(path string) string {
	if d := pathname.Parent(path); d != "" {
		return d
	}
	return "."
}

// createTemp makes a new file beside the target, named after it with a
// random suffix; O_EXCL|O_NOFOLLOW refuse anything already at the name.
func createTemp(dir, base string) (*os.File, string, error) {
	for range 100 {
		var r [8]byte
		rand.Read(r[:])
		name := dir + "/." + base + ".tmp-" + hex.EncodeToString(r[:])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name in %s", dir)
}

// syncDir makes a rename or link in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
