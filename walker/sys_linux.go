package walker

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// NAME_MAX: a name in a Linux directory is at most 255 bytes.
const maxNameLen = 255

// On Linux the NUL-terminated names go to the kernel directly.

func openatZ(dirfd int, name zname, flags int) (int, error) {
	for {
		r, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&name[0])), uintptr(flags), 0, 0, 0)
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			continue
		}
		return -1, e
	}
}

func readlinkatZ(dirfd int, name zname, buf []byte) ([]byte, error) {
	for {
		r, _, e := unix.Syscall6(unix.SYS_READLINKAT, uintptr(dirfd), uintptr(unsafe.Pointer(&name[0])),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return nil, e
		case int(r) == len(buf): // possibly truncated: a target that long is not a link we accept
			return nil, unix.ENAMETOOLONG
		}
		return append(make([]byte, 0, r), buf[:r]...), nil
	}
}
