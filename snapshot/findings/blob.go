package findings

import (
	"fmt"
)

// scanBlobs reports each base64 or hex run over blobRun characters. A run
// goes on across a line break when the line it breaks is long (base64 is
// wrapped at 64 or 76), so a wrapped blob is one run.
func scanBlobs(c *collector, data []byte) {
	line := 1
	for i := 0; i < len(data); {
		if !isB64(data[i]) {
			if data[i] == '\n' {
				line++
			}
			i++
			continue
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
			if data[j] == '\n' && seg >= 60 && wholeLine(data[j+1:]) {
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

// wholeLine: the line data opens is all base64, as a wrapped blob's is.
func wholeLine(data []byte) bool {
	k := 0
	for k < len(data) && isB64(data[k]) {
		k++
	}
	return k > 0 && (k == len(data) || data[k] == '\n' || data[k] == '\r')
}

func isB64(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' || b == '-' || b == '_'
}

func isHex(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }
