package walker

import (
	"bytes"
	"encoding/binary"
)

// linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name.
const direntNameOff = 19

// parseDirents calls fn for each name in a getdents64 buffer, skipping "."
// and "..". A name is valid until fn returns; fn returning false stops the
// parse early. unix.ParseDirent is not used: it drops d_type, which would
// cost an fstatat per entry.
func parseDirents(buf []byte, fn func(name []byte, typ uint8) bool) error {
	for len(buf) > 0 {
		if len(buf) < direntNameOff {
			return errDirent
		}
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen <= direntNameOff || reclen > len(buf) {
			return errDirent
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntNameOff:]
		end := bytes.IndexByte(name, 0)
		if end <= 0 {
			return errDirent
		}
		name = name[:end:end]
		if bytes.IndexByte(name, '/') >= 0 {
			return errDirent
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		if !fn(name, rec[18]) {
			return nil
		}
	}
	return nil
}
