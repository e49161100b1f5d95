//go:build darwin || freebsd || netbsd || openbsd

package walker

import "golang.org/x/sys/unix"

// The longest name struct dirent holds: on macOS 1023 bytes (an APFS or
// HFS+ name of 255 characters can take more than 255 bytes in UTF-8).
const maxNameLen = len(unix.Dirent{}.Name) - 1

// Elsewhere system calls go through the platform's C library (macOS
// supports nothing else), which wants a Go string: one copy per call.

func openatZ(dirfd int, name zname, flags int) (int, error) {
	return openat(dirfd, name.bytes(), flags)
}

func readlinkatZ(dirfd int, name zname, buf []byte) ([]byte, error) {
	return readlinkat(dirfd, name.bytes(), buf)
}
