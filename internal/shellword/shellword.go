// Package shellword spells one word for a POSIX shell, and reads it back.
// skillwire writes such words into command lines Claude Code runs.
package shellword

import "strings"

func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/._+-", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// Quote is s as it is when every byte is in [A-Za-z0-9/._+-]. Otherwise
// it is single-quoted: each ' inside closes the quote, adds \' and reopens.
func Quote(s string) string {
	if safe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Unquote undoes Quote: a safe word as it is, or single-quoted runs joined
// by \'.
func Unquote(w string) (string, bool) {
	if safe(w) {
		return w, true
	}
	var b strings.Builder
	for w != "" {
		switch {
		case strings.HasPrefix(w, `\'`):
			b.WriteByte('\'')
			w = w[2:]
		case w[0] == '\'':
			end := strings.IndexByte(w[1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(w[1 : 1+end])
			w = w[end+2:]
		default:
			return "", false
		}
	}
	return b.String(), true
}
