//go:build unix

package walker

import (
	"errors"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// Every open is O_CLOEXEC and O_NONBLOCK. It is O_NOFOLLOW too, except
// through a top-level candidate link, on purpose. O_NONBLOCK means a FIFO
// swapped in after listing cannot block the walk.
const (
	openFile = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY
	openDir  = openFile | unix.O_DIRECTORY
)

// zname is a name followed by its NUL terminator, as getdents delivers
// it. Passed to the kernel as is, it costs no allocation per call.
type zname []byte

func (z zname) bytes() []byte { return z[: len(z)-1 : len(z)-1] }

// znameOf copies b with a NUL terminator; b is never written to.
func znameOf(b []byte) zname { return append(append(make(zname, 0, len(b)+1), b...), 0) }

func fstat(fd int, st *unix.Stat_t) error {
	for {
		if err := unix.Fstat(fd, st); err != unix.EINTR {
			return err
		}
	}
}

func fstatat(dirfd int, name []byte, st *unix.Stat_t, flags int) error {
	for {
		if err := unix.Fstatat(dirfd, string(name), st, flags); err != unix.EINTR {
			return err
		}
	}
}

func read(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Read(fd, p)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func closeFD(fd int) { unix.Close(fd) }

// openReason classifies a failed open of something listed as expected.
// The thing moved under us (swapped), went away (unstable), or is denied
// (unreadable); nothing else is guessed.
func openReason(err error) anomaly.Reason {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ENXIO),
		errors.Is(err, unix.EINVAL):
		return anomaly.Swapped
	case errors.Is(err, unix.ENOENT):
		return anomaly.Unstable
	}
	return anomaly.Unreadable
}

// rootReason classifies a failure to reach a candidate or root itself.
func rootReason(err error) anomaly.Reason {
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return anomaly.Unreadable
	}
	return anomaly.Root
}

func openDirPath(path string) (int, error) {
	for {
		fd, err := unix.Open(path, openDir, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// devOf is the device of the open fd, 0 when fstat fails.
func devOf(fd int) uint64 {
	var st unix.Stat_t
	if fstat(fd, &st) != nil {
		return 0
	}
	return uint64(st.Dev)
}

// sameFile is the arrival proof: what was listed is what was opened.
func sameFile(a, b *unix.Stat_t) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Mode&unix.S_IFMT == b.Mode&unix.S_IFMT
}
