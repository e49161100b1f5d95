//go:build unix && !linux

package walker

// Elsewhere system calls go through the platform's C library (macOS
// supports nothing else), which wants a Go string: one copy per call.

func openatZ(dirfd int, name zname, flags int) (int, error) {
	return openat(dirfd, name.bytes(), flags)
}

func readlinkatZ(dirfd int, name zname, buf []byte) ([]byte, error) {
	return readlinkat(dirfd, name.bytes(), buf)
}
