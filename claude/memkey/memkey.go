// Package memkey names a project's auto memory folder as Claude Code
// 2.1.332 does: <config>/projects/<key>/memory (e2e/memory_test.go).
package memkey

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// Of is Claude Code's folder name for a project path. Each UTF-16
// unit outside [a-zA-Z0-9] becomes '-'. A key over 200 is cut, and the
// path's hash added. A byte that is no UTF-8 counts as U+FFFD.
func Of(path string) string {
	var b strings.Builder
	var h int32
	for _, r := range path { // an invalid byte is utf8.RuneError, U+FFFD
		units := utf16.Encode([]rune{r})
		for _, u := range units {
			h = h*31 + int32(u) // the client's string hash, wrapping as it does
		}
		if r < 128 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Repeat("-", len(units)))
		}
	}
	if k := b.String(); len(k) <= 200 {
		return k
	}
	return b.String()[:200] + "-" + strconv.FormatInt(max(int64(h), -int64(h)), 36)
}
