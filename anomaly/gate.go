package anomaly

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/zeebo/blake3"
)

// MaxNameLen is the longest name the display gate lets through.
const MaxNameLen = 64

// Gate reports whether a candidate name may be shown to a person or a model:
// [A-Za-z0-9][A-Za-z0-9._-]{0,63}, and not shaped like a minted id, so a
// name can never pose as an id. Everything else is shown by id only.
func Gate(name []byte) bool {
	if len(name) == 0 || len(name) > MaxNameLen || !alnum(name[0]) {
		return false
	}
	for _, c := range name[1:] {
		if !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return !idShaped(name)
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// PathLabel names a path inside a candidate without showing its bytes:
// "<root>" for the candidate itself, else "depthN/<hex>" where N counts the
// path's components and hex is an unkeyed hash of the path bytes, so the
// label needs no store and is the same on every machine.
func PathLabel(path []byte) string {
	if len(path) == 0 {
		return "<root>"
	}
	depth := 1
	for _, c := range path {
		if c == '/' {
			depth++
		}
	}
	sum := blake3.Sum256(path)
	return "depth" + strconv.Itoa(depth) + "/" + hex.EncodeToString(sum[:8])
}

// QuoteBytes renders bytes that may come from an attacker (a root path under
// a cloned project, say) for a terminal or a log: a conservative set of
// printable ASCII passes as is, everything else, including the shell's $ and
// backtick, is escaped as \xNN, and the result is wrapped in double quotes
// whenever anything was escaped. No control byte, no shell syntax and no
// non-ASCII byte survives.
func QuoteBytes(b []byte) string {
	plain := true
	for _, c := range b {
		if !quoteSafe(c) {
			plain = false
			break
		}
	}
	if plain {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, '"')
	for _, c := range b {
		if quoteSafe(c) {
			out = append(out, c)
			continue
		}
		out = append(out, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
	}
	return string(append(out, '"'))
}

const hexDigits = "0123456789abcdef"

func quoteSafe(c byte) bool {
	if alnum(c) {
		return true
	}
	switch c {
	case '/', '.', '_', '-', '+', ',', ':', '@', '=', '~':
		return true
	}
	return false
}

// NameHash is a short, unkeyed, fixed-width tag for a raw name, for output
// that has no store (and so no minted id) yet.
func NameHash(name []byte) string {
	sum := blake3.Sum256(name)
	return hex.EncodeToString(sum[:4])
}

// appendLen writes a length prefix, so adjacent fields cannot run together.
func appendLen(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }
