package findings

import (
	"bytes"
	"fmt"
)

// scanBlobs reports each base64 or hex run over blobRun characters. A run
// goes on across a line break when the line it breaks is long (base64 is
// wrapped at 64 or 76), so a wrapped blob is one run.
func scanBlobs(c *collector, data []byte) {
	line := 1
	for i := 0; i < len(data); {
		j := nextSeg(data, i)
		line += bytes.Count(data[i:j], []byte{'\n'})
		if i = j; i == len(data) {
			break
		}
		start, startLine := i, line
		n, seg, hex := 0, 0, true
		for i < len(data) {
			b := data[i]
			if isB64(b) {
				n, seg = n+1, seg+1
				hex = hex && isHex(b)
				i++
				continue
			}
			j := i
			if b == '\r' && j+1 < len(data) {
				j++
			}
			if data[j] == '\n' && seg >= wrapSeg && wholeLine(data[j+1:]) {
				line++
				seg = 0
				i = j + 1
				continue
			}
			break
		}
		if n > blobRun && c.at(EncodedBlob) {
			what := "base64"
			if hex {
				what = "hex"
			}
			head := data[start:min(i, start+48)]
			c.add(EncodedBlob, startLine, fmt.Sprintf("%d characters of %s: %s", n, what, head), "")
		}
	}
}

// wrapSeg is the shortest line of base64 a run goes on past.
const wrapSeg = 60

// nextSeg is the start of the first run at or past i of wrapSeg base64
// bytes or more, len(data) when there is none. Only such a run can go on
// past its line or pass blobRun (over wrapSeg), so the shorter ones are
// passed over: each window of wrapSeg bytes is read from its end, and a
// byte not of base64 at k moves the next window past k. A list's lines
// cost a byte or two per window, not a look at every byte. The run found
// starts past a byte not of base64, or at i.
func nextSeg(data []byte, i int) int {
	for i+wrapSeg <= len(data) {
		k := i + wrapSeg - 1
		for k >= i && isB64(data[k]) {
			k--
		}
		if k < i {
			return i
		}
		i = k + 1
	}
	return len(data)
}

// wholeLine: the line data opens is all base64, as a wrapped blob's is.
func wholeLine(data []byte) bool {
	k := 0
	for k < len(data) && isB64(data[k]) {
		k++
	}
	return k > 0 && (k == len(data) || data[k] == '\n' || data[k] == '\r')
}

// isB64: b is of base64's alphabets, standard or URL-safe, or its padding.
func isB64(b byte) bool { return blobBytes[b]&classB64 != 0 }

// isHex: b is a hexadecimal digit.
func isHex(b byte) bool { return blobBytes[b]&classHex != 0 }

// blobBytes classes each byte for isB64 and isHex: scanBlobs asks of
// every byte scanned.
var blobBytes = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' || b == '-' || b == '_' {
			t[b] |= classB64
		}
		if b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' {
			t[b] |= classHex
		}
	}
	return t
}()

const (
	classB64 = 1 << iota
	classHex
)
