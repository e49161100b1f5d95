//go:build darwin || freebsd || netbsd || openbsd

package walker

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// This platform's struct dirent.
var platformDirent = bsdDirent{
	reclen: int(unsafe.Offsetof(unix.Dirent{}.Reclen)),
	namlen: int(unsafe.Offsetof(unix.Dirent{}.Namlen)),
	typ:    int(unsafe.Offsetof(unix.Dirent{}.Type)),
	name:   int(unsafe.Offsetof(unix.Dirent{}.Name)),
}

// parseDirents calls fn for each name in a ReadDirent buffer; see
// parseBSDDirents.
func parseDirents(buf []byte, fn func(name []byte, typ uint8) bool) error {
	return parseBSDDirents(buf, platformDirent, fn)
}
