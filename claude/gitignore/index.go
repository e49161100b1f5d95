package gitignore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"strings"

	"github.com/skillwire/skillwire/internal/safefile"
)

// MaxIndex bounds the index read. Past it, no folder is called ignored.
const MaxIndex = 64 << 20

// tracked is the repository's index, read for the paths it names only.
// go-git's decoder was measured at 90 ms for 20,000 entries: it checks the
// whole file's SHA-1 and keeps every field. git check-ignore skips a path
// whose pathspec names an index entry, so only names matter here.
type tracked struct {
	path     string
	hashSize int
}

// holding tells, of dirs (paths below the top), those the index names: an
// entry at dir, inside it, or a submodule above it (git refuses a path
// inside one). ok is false when the index could not be read whole.
func (t *tracked) holding(dirs []string) (map[string]bool, bool) {
	b, _, err := safefile.Read(t.path, MaxIndex, safefile.Trust{})
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, true // nothing added yet
	}
	if err != nil {
		return nil, false
	}
	want := map[string]bool{}
	above := map[string][]string{} // a proper prefix, to the dirs under it
	first := map[string]bool{}     // every name that matters starts so
	for _, d := range dirs {
		want[d] = true
		head, _, _ := strings.Cut(d, "/")
		first[head] = true
		for i := range len(d) {
			if d[i] == '/' {
				above[d[:i]] = append(above[d[:i]], d)
			}
		}
	}
	out := map[string]bool{}
	ok := eachName(b, t.hashSize, func(name []byte) {
		head := name
		if i := bytes.IndexByte(name, '/'); i >= 0 {
			head = name[:i]
		}
		if !first[string(head)] {
			return // one lookup for most entries
		}
		for _, d := range above[string(name)] {
			out[d] = true
		}
		for i := len(name); i > 0; i-- {
			if (i == len(name) || name[i] == '/') && want[string(name[:i])] {
				out[string(name[:i])] = true
			}
		}
	})
	return out, ok
}

// eachName calls f with each entry's path, in index order, and reports
// whether the entries read whole. Versions 2 to 4 are read. f must not
// keep the name: its bytes are reused.
func eachName(b []byte, hashSize int, f func([]byte)) bool {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return false
	}
	version := binary.BigEndian.Uint32(b[4:])
	n := binary.BigEndian.Uint32(b[8:])
	if version < 2 || version > 4 {
		return false
	}
	fixed := 40 + hashSize + 2 // stat data, object name, flags
	off := 12
	var name []byte // version 4 names the prefix of the one before
	for range n {
		if off+fixed > len(b) {
			return false
		}
		flags := binary.BigEndian.Uint16(b[off+fixed-2:])
		start := off + fixed
		if flags&0x4000 != 0 {
			if version < 3 {
				return false
			}
			start += 2
		}
		if version == 4 {
			if start > len(b) {
				return false
			}
			strip, w := binary.Uvarint(b[start:])
			if w <= 0 || strip > uint64(len(name)) {
				return false
			}
			end := indexByte(b, start+w)
			if end < 0 {
				return false
			}
			name = append(name[:len(name)-int(strip)], b[start+w:end]...)
			off = end + 1
		} else {
			end := indexByte(b, start)
			if end < 0 {
				return false
			}
			name = b[start:end]
			off += (end - off + 8) &^ 7 // NUL-padded to a multiple of 8
			if off > len(b) {
				return false
			}
		}
		f(name)
	}
	return extensionsRead(b[off:], hashSize)
}

// extensionsRead reports whether the extensions after the entries read
// whole and none changes what the entries are. A lowercase one is one git
// must understand: a split index's "link" keeps entries elsewhere. A sparse
// index's "sdir" only makes folders entries, which holding already counts.
func extensionsRead(b []byte, hashSize int) bool {
	for len(b) > hashSize {
		if len(b) < 8 {
			return false
		}
		sig := b[:4]
		size := uint64(binary.BigEndian.Uint32(b[4:]))
		if sig[0] >= 'a' && sig[0] <= 'z' && string(sig) != "sdir" || size > uint64(len(b)-8) {
			return false
		}
		b = b[8+size:]
	}
	return len(b) == hashSize
}

func indexByte(b []byte, from int) int {
	if from > len(b) {
		return -1
	}
	i := bytes.IndexByte(b[from:], 0)
	if i < 0 {
		return -1
	}
	return from + i
}
