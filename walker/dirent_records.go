package walker

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// errDirent reports a directory record the kernel should never produce. A
// malformed buffer makes the directory unreadable rather than guessed at.
var errDirent = errors.New("walker: malformed directory record")

// bsdDirent is where a BSD struct dirent (macOS, FreeBSD) keeps its record
// length, name length, type and name; d_ino is a uint64 at offset 0. It is
// a parameter so that Linux tests exercise the parser macOS uses.
type bsdDirent struct{ reclen, namlen, typ, name int }

// parseBSDDirents calls fn for each name in a buffer of BSD dirents,
// skipping "." and ".." and deleted records (d_ino 0). A name is valid
// until fn returns; fn returning false stops the parse early.
func parseBSDDirents(buf []byte, l bsdDirent, fn func(name []byte, typ uint8) bool) error {
	for len(buf) > 0 {
		if len(buf) < l.name {
			return errDirent
		}
		reclen := int(binary.NativeEndian.Uint16(buf[l.reclen:]))
		if reclen <= l.name || reclen > len(buf) {
			return errDirent
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 {
			continue
		}
		// d_namlen must be the name's length exactly: the name ends in a
		// NUL inside the record (found in review: a namlen shorter than the
		// name was taken as a shorter name).
		namlen := int(binary.NativeEndian.Uint16(rec[l.namlen:]))
		if namlen == 0 || l.name+namlen >= reclen || rec[l.name+namlen] != 0 {
			return errDirent
		}
		name := rec[l.name : l.name+namlen : l.name+namlen]
		if bytes.IndexByte(name, 0) >= 0 || bytes.IndexByte(name, '/') >= 0 {
			return errDirent
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		if !fn(name, rec[l.typ]) {
			return nil
		}
	}
	return nil
}
