package claude

import (
	"bytes"
	"fmt"
	"strings"
)

// DiffLine is one line of a line diff: Op is ' ' (kept), '-' or '+'.
type DiffLine struct {
	Op   byte
	Text string
}

// maxDiffCells bounds the longest-common-subsequence table; past it the
// changed middle is shown as removed, then added.
const maxDiffCells = 1 << 22

// LineDiff is a minimal line diff from before to after, the change an
// edit of settings (or of a service definition) is confirmed on: the
// common prefix and suffix, and a longest common subsequence of what lies
// between, bounded in memory.
func LineDiff(before, after []byte) []DiffLine {
	a, b := splitLines(before), splitLines(after)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	var out []DiffLine
	for _, l := range a[:p] {
		out = append(out, DiffLine{' ', l})
	}
	ma, mb := a[p:len(a)-q], b[p:len(b)-q]
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		for _, l := range ma {
			out = append(out, DiffLine{'-', l})
		}
		for _, l := range mb {
			out = append(out, DiffLine{'+', l})
		}
	} else {
		out = append(out, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-q:] {
		out = append(out, DiffLine{' ', l})
	}
	return out
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func lcsDiff(a, b []string) []DiffLine {
	n, m := len(a), len(b)
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
			} else {
				lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
			out = append(out, DiffLine{'-', a[i]})
			i++
		default:
			out = append(out, DiffLine{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, DiffLine{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, DiffLine{'+', b[j]})
	}
	return out
}

// QuoteJSON spells s as a JSON string the way a settings file shows it:
// quotes, backslashes and control characters escaped, everything else as
// it is (the terminal escaping comes after, on the whole line).
func QuoteJSON(s string) string {
	var b bytes.Buffer
	b.WriteString(`"`)
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"`)
	return b.String()
}
