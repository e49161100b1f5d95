//go:build darwin || freebsd || netbsd || openbsd

package walker

import "golang.org/x/sys/unix"

// The longest name struct dirent holds: on macOS 1023 bytes. An APFS or
// HFS+ name of 255 characters can take more than 255 bytes in UTF-8.
const maxNameLen = len(unix.Dirent{}.Name) - 1

// Elsewhere system calls go through the platform's C library, as macOS
// supports nothing else. It wants a Go string: one copy per call.

// The kernel retries slow syscalls interrupted by Go's signals
// (SA_RESTART), but not all. EINTR is transient and the only error
// retried here.
func openatZ(dirfd int, name zname, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, string(name.bytes()), flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func readlinkatZ(dirfd int, name zname, buf []byte) ([]byte, error) {
	for {
		n, err := unix.Readlinkat(dirfd, string(name.bytes()), buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == len(buf) { // possibly truncated: a target that long is not a link we accept
			return nil, unix.ENAMETOOLONG
		}
		return append(make([]byte, 0, n), buf[:n]...), nil
	}
}
