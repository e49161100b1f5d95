package anomaly

import (
	"strings"
	"unicode/utf8"
)

// CutMark is where Quote cut text out. It is the only '…' a quoted string
// can hold, since the text's own is escaped (\u2026).
const CutMark = "…"

// Quote fences attacker text for one line that a person or a model reads.
// It is in double quotes, every rune escaped as Escape does, '"' as \" and
// '…' as \u2026. So the text can neither close the quotes nor pass for
// skillwire's words or its cut. Text over max characters, escaped, keeps
// its head and its tail around CutMark. The cut never falls inside an
// escape. What a command line ends with ("| sh") is what runs. So a
// reassuring head cannot push it out of view.
func Quote(s string, max int) string {
	var pieces []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == '"':
			piece = `\"`
		case r == '…':
			piece = `\u2026`
		default:
			piece = Escape([]byte(s[i : i+size])) // the one escaper
		}
		pieces = append(pieces, piece)
		i += size
	}
	var b strings.Builder
	b.WriteByte('"')
	if width(pieces) <= max {
		for _, p := range pieces {
			b.WriteString(p)
		}
		b.WriteByte('"')
		return b.String()
	}
	room := max - 1 // the mark's own
	head, tail := 0, len(pieces)
	for used := 0; head < len(pieces); head++ {
		w := utf8.RuneCountInString(pieces[head])
		if used+w > room*2/3 {
			break
		}
		used += w
	}
	used := width(pieces[:head])
	for tail > head {
		w := utf8.RuneCountInString(pieces[tail-1])
		if used+w > room {
			break
		}
		used += w
		tail--
	}
	for _, p := range pieces[:head] {
		b.WriteString(p)
	}
	b.WriteString(CutMark)
	for _, p := range pieces[tail:] {
		b.WriteString(p)
	}
	b.WriteByte('"')
	return b.String()
}

// width counts the characters of escaped pieces.
func width(pieces []string) int {
	n := 0
	for _, p := range pieces {
		n += utf8.RuneCountInString(p)
	}
	return n
}
