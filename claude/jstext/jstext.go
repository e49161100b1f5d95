// Package jstext reads text as Claude Code's JavaScript reads it: the
// white space trim removes, and the @path imports of an instruction file.
package jstext

import (
	"strings"
	"unicode/utf8"
)

// Space is the set JavaScript's String.prototype.trim removes. The
// client trims a Skill name with it. U+0085 and U+200B are not in it, and
// the client does not trim them.
func Space(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r == ' ', r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f,
		r == 0x205f, r == 0x3000, r == 0xfeff:
		return true
	}
	return false
}

// Imports lists the @path imports of an instruction file as written: in
// order, without duplicates, "\ " unescaped and a #fragment cut. It lists
// at most max of them.
//
// Claude Code 2.1.328 lexes the file with marked. In each text token it
// matches `(?:^|\s)@((?:[^\s\\]|\\ )+)`, with JavaScript's \s. It skips
// code, code spans and closed HTML comments. skillwire reads a superset
// and never skips text the client might read.
//   - Code and comments are read too: binding a path never imported costs
//     nothing.
//   - An @ counts after white space, at the start, or after ASCII
//     punctuation. There one of marked's tokens may end and a text token
//     start: `|@x.md|` in a table, `\*@x.md` after an escape, `<b>@x.md`.
//   - A path is read whole and also cut where a token may end inside it
//     (tokenCuts).
//
// An @ after a letter or digit (mail@example.com) is none: marked never
// ends a token there.
func Imports(data []byte, max int) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(data); i++ {
		if data[i] != '@' || !importStart(data[:i]) {
			continue
		}
		p := importPath(data[i+1:])
		if j := strings.IndexByte(p, '#'); j >= 0 {
			p = p[:j]
		}
		for _, p := range tokenCuts(p) {
			p = strings.ReplaceAll(p, `\ `, " ")
			if !Importable(p) || seen[p] {
				continue
			}
			seen[p] = true
			if out = append(out, p); len(out) == max {
				return out
			}
		}
	}
	return out
}

// tokenCutChars are where marked may end, mid-path, the text token an
// import is read from. They come before emphasis, strikethrough, a code
// span, inline HTML, a link or image, or a table cell's end.
const tokenCutChars = "<![]`*~_|"

// tokenCuts are p and each prefix of it that ends before a run of
// tokenCutChars, longest last. `|@x.md|` is x.md to the client.
func tokenCuts(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if strings.IndexByte(tokenCutChars, p[i]) >= 0 && strings.IndexByte(tokenCutChars, p[i-1]) < 0 {
			out = append(out, p[:i])
		}
	}
	return append(out, p)
}

// importStart reports whether an @ after before may begin an import.
func importStart(before []byte) bool {
	if len(before) == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(before)
	return Space(r) || r < utf8.RuneSelf && isASCIIPunct(byte(r))
}

// importPath is the path an @ is followed by. It runs over runes that are
// neither JavaScript white space nor a backslash, and over a backslash and
// a space. Space is the set trim removes: a no-break space ends a path
// for the client as a blank does.
func importPath(b []byte) string {
	n := 0
	for n < len(b) {
		if b[n] == '\\' {
			if n+1 < len(b) && b[n+1] == ' ' {
				n += 2
				continue
			}
			break
		}
		r, size := utf8.DecodeRune(b[n:])
		if Space(r) {
			break
		}
		n += size
	}
	return string(b[:n])
}

func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// Importable is the client's test of a path. It is "./", "~/" or "/"
// followed by more, or a first character of [A-Za-z0-9._-].
func Importable(p string) bool {
	if p == "" || p == "/" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	c := p[0]
	return c == '/' || c == '~' && strings.HasPrefix(p, "~/") ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}
