package findings

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Tag characters U+E0000–E007F spell ASCII no view shows: U+E0041 is an
// invisible "A". Zero-width characters hide or join words unseen.
const (
	tagFirst = 0xE0000
	tagLast  = 0xE007F
)

// isZeroWidth: the format characters that show nothing. The Hangul
// fillers and U+034F are letters and marks the escaper shows as is, so
// they are not told here.
func isZeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E:
		return true
	}
	return false
}

// isBidi: the controls that reorder what a view shows (Trojan Source).
func isBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// scanUnicode reports each run of tag characters with what it spells,
// each zero-width character, and each bidi control. A byte order mark
// opening the file is not hidden text.
func scanUnicode(c *collector, data []byte) {
	line := 1
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			j := i + asciiRun(data[i:])
			line += bytes.Count(data[i:j], []byte{'\n'})
			i = j
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r >= tagFirst && r <= tagLast:
			start := i
			var spelled strings.Builder
			for i < len(data) {
				r, size := utf8.DecodeRune(data[i:])
				if r < tagFirst || r > tagLast {
					break
				}
				if r-tagFirst >= 0x20 && r-tagFirst < 0x7F && spelled.Len() < MaxLineBytes {
					spelled.WriteByte(byte(r - tagFirst))
				}
				i += size
			}
			if c.at(InvisibleUnicode) {
				c.add(InvisibleUnicode, line, lineOf(data, start), spelled.String())
			}
			continue
		case isZeroWidth(r) && !(r == 0xFEFF && i == 0):
			if c.at(InvisibleUnicode) {
				c.add(InvisibleUnicode, line, lineOf(data, i), "")
			}
		case isBidi(r):
			if c.at(Bidi) {
				c.add(Bidi, line, lineOf(data, i), "")
			}
		}
		i += size
	}
}

// asciiRun is how many bytes b opens with that are ASCII, read eight at a
// time: no rule of scanUnicode looks at them but for the line breaks.
func asciiRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}
