// Package safefile holds the two file primitives for a file no walk reads.
// Read is bounded, never follows a symlink, never blocks, and proves what
// it read. Write replaces atomically.
package safefile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/skillwire/skillwire/internal/pathname"
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
	// ErrName: an *At function was given a name that is not one entry of
	// its directory. An empty name, ".", ".." or a slash would reach past
	// the directory the caller proved.
	ErrName = errors.New("not a name in the directory")
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

// openFlags: a link at the path is refused, not followed. A FIFO or device
// planted there can neither block the open nor become a controlling
// terminal.
const openFlags = os.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY

// Read reads the regular file at path, at most max bytes. It checks trust
// on the descriptor it read. An lstat comes first, so nothing but a
// regular file is ever opened. The opened file must be the one examined. A
// missing file wraps fs.ErrNotExist.
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
	return readHeld(f, func(fi fs.FileInfo) bool { return os.SameFile(fi, lfi) }, max, trust)
}

// readHeld reads the opened f under trust and max. f must be a regular
// file and the one examined (same).
func readHeld(f *os.File, same func(fs.FileInfo) bool, max int64, trust Trust) ([]byte, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &KindError{Mode: fi.Mode().Type()}
	}
	if !same(fi) {
		return nil, nil, fmt.Errorf("%w: replaced while it was opened", ErrNotRegular)
	}
	if err := trust.check(fi); err != nil {
		return nil, nil, err
	}
	if fi.Size() > max {
		return nil, nil, ErrTooLarge
	}
	// Sized by fstat, at most max: one allocation. io.ReadAll's doublings
	// copied a 200 KB file ten times (the hash cache, issue 23).
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, nil, err
	}
	b := buf.Bytes()
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

// Write replaces the file at path with data, mode perm, atomically. A
// reader sees the old file or the new one, never part of either. A crash
// leaves at most a temporary file beside it, never in its place. The
// temporary file is made in the same directory (O_EXCL|O_NOFOLLOW). It is
// written and synced, renamed over path, then the directory is synced. A
// path that exists and is not a regular file is refused (a *KindError).
//
// check, when not nil, runs once the new content is durable, just before
// it takes the path's place. Its error aborts the write and leaves the
// path as it was. It serves a caller that must not overwrite a concurrent
// change.
func Write(path string, data []byte, perm fs.FileMode, check func() error) error {
	return inDirOf(path, func(dirfd int, name string) error { return WriteAt(dirfd, name, data, perm, check) })
}

// Create writes data at path, mode perm, only when nothing is there.
// Otherwise it writes nothing and fails with an error wrapping
// fs.ErrExist. The file appears whole: written, synced, then linked in.
func Create(path string, data []byte, perm fs.FileMode) error {
	return inDirOf(path, func(dirfd int, name string) error { return CreateAt(dirfd, name, data, perm, nil) })
}

// inDirOf opens the directory holding path once, then runs f with it and
// the file's name. Every step after is relative to that descriptor.
func inDirOf(path string, f func(dirfd int, name string) error) error {
	d, err := OpenDir(dirOf(path))
	if err != nil {
		return err
	}
	defer unix.Close(d)
	return f(d, path[strings.LastIndexByte(path, '/')+1:])
}

// OpenDir opens the directory at path for the *At functions. A link on
// the way is followed, as the path names it.
func OpenDir(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// Owner is who a file Create makes should belong to.
type Owner struct{ UID, GID int }

// WriteAt is Write of the file name in the directory dirfd. The check,
// the temporary file, the rename and the sync all go through dirfd. So a
// directory swapped in after the caller proved dirfd is never written in.
func WriteAt(dirfd int, name string, data []byte, perm fs.FileMode, check func() error) error {
	if !entryName(name) {
		return ErrName
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &KindError{Mode: ModeType(uint32(st.Mode))}
	} else if err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return place(dirfd, name, data, perm, nil, check, func(tmp string) error {
		return unix.Renameat(dirfd, tmp, dirfd, name)
	})
}

// CreateAt is Create of the file name in the directory dirfd. own, when
// not nil, is the owner the file gets before it appears: a backup of
// someone else's file, made as root. Where the process may not give it,
// the file stays the process's.
func CreateAt(dirfd int, name string, data []byte, perm fs.FileMode, own *Owner) error {
	if !entryName(name) {
		return ErrName
	}
	return place(dirfd, name, data, perm, own, nil, func(tmp string) error {
		// link(2) never replaces. Where it fails (no hard links), there is
		// no fallback to a rename: that could replace a file made in
		// between.
		if err := unix.Linkat(dirfd, tmp, dirfd, name, 0); err != nil {
			return &fs.PathError{Op: "link", Path: name, Err: err}
		}
		return unix.Unlinkat(dirfd, tmp, 0)
	})
}

func place(dirfd int, name string, data []byte, perm fs.FileMode, own *Owner, check func() error, put func(tmp string) error) (err error) {
	f, tmp, err := createTemp(dirfd, name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// Created 0600 (under any umask), then given the mode asked for.
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if own != nil {
		if err = f.Chown(own.UID, own.GID); errors.Is(err, fs.ErrPermission) {
			err = nil // not ours to give: the file stays the process's
		} else if err != nil {
			return err
		}
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
	if err = put(tmp); err != nil {
		return err
	}
	return unix.Fsync(dirfd)
}

// ReadAt is Read of the file name in the directory dirfd.
func ReadAt(dirfd int, name string, max int64, trust Trust) ([]byte, fs.FileInfo, error) {
	if !entryName(name) {
		return nil, nil, ErrName
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil, &KindError{Mode: ModeType(uint32(st.Mode))}
	}
	fd, err := unix.Openat(dirfd, name, openFlags, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, nil, &KindError{Mode: fs.ModeSymlink}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return readHeld(f, func(fi fs.FileInfo) bool {
		held, ok := fi.Sys().(*syscall.Stat_t)
		return ok && uint64(held.Dev) == uint64(st.Dev) && uint64(held.Ino) == uint64(st.Ino)
	}, max, trust)
}

// entryName reports whether name is one entry of a directory.
func entryName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// ModeType is the fs type of a stat mode: the one table from a file's
// mode to its entry type. A regular file is 0. A type it does not know
// is fs.ModeIrregular.
func ModeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// dirOf is the directory holding path, as text: "." for a bare name.
func dirOf(path string) string {
	if d := pathname.Parent(path); d != "" {
		return d
	}
	return "."
}

// createTemp makes a new file in dirfd, named after the target with a
// random suffix. O_EXCL|O_NOFOLLOW refuse anything already at the name.
func createTemp(dirfd int, base string) (*os.File, string, error) {
	for range 100 {
		var r [8]byte
		rand.Read(r[:])
		name := "." + base + ".tmp-" + hex.EncodeToString(r[:])
		fd, err := unix.Openat(dirfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", &fs.PathError{Op: "create", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), name, nil
	}
	return nil, "", errors.New("no free temporary name in the directory")
}
