package anomaly

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The one escaper for bytes an attacker may have written: names, paths, log
// lines, file contents, messages quoting them. Every renderer goes through
// render, in one of five styles. So no control byte, bidi or format rune,
// line separator or invalid UTF-8 reaches a terminal or a model raw.

// style is how render treats a rune that is not plainly safe to show.
type style uint8

const (
	// line: printable UTF-8 passes. A control or invalid byte is \xNN. A
	// format, bidi, separator or unassigned rune is \uXXXX. A backslash
	// is doubled, so the escaping is reversible.
	line style = iota
	// text: line, but newline and tab pass (multi-line text such as a diff).
	text
	// word: only a conservative set of ASCII passes, so no shell syntax
	// survives. Everything else is \xNN per byte. The result is quoted
	// when anything was escaped (QuoteBytes).
	word
	// message: printable ASCII but $, backtick and backslash passes. Tab
	// and newline become a space, every other byte '?' (Defang).
	message
	// jsonASCII: printable ASCII passes. Every other rune is a JSON \u
	// escape (EscapeJSON).
	jsonASCII
)

// Escape renders b on one line, printable UTF-8 as is. A control byte,
// tab, newline or invalid byte becomes \xNN. A bidi, format, separator or
// unassigned rune becomes \uXXXX: U+202E, U+2066, U+200B, U+FEFF and the
// like. A backslash becomes \\.
func Escape(b []byte) string { return render(b, line) }

// EscapeText is Escape for multi-line text: newline and tab pass as well.
func EscapeText(b []byte) string { return render(b, text) }

// QuoteBytes renders bytes that may come from an attacker as one
// shell-inert word: a root path under a cloned project, say. A
// conservative set of printable ASCII passes as is. Everything else is
// escaped as \xNN, the shell's $ and backtick included. The result is
// wrapped in double quotes whenever anything was escaped. No control
// byte, no shell syntax and no non-ASCII byte survives.
func QuoteBytes(b []byte) string { return render(b, word) }

// Defang makes a one-line message safe to print, lossily. The message may
// quote an argument or a system's words. Every byte a terminal or shell
// could act on becomes '?', and so does every non-ASCII byte. Tab and
// newline become a space.
func Defang(msg string) string { return render([]byte(msg), message) }

// EscapeJSON renders a line of JSON text, such as a line of a settings
// file, in printable ASCII. The value it denotes does not change. Every
// other rune becomes its JSON escape \uXXXX, a surrogate pair above
// U+FFFF. Invalid UTF-8 becomes \ufffd. Tab, CR and newline are escaped
// too. Valid JSON holds them only as whitespace between tokens, which a
// line shown alone does not need.
func EscapeJSON(b []byte) string { return render(b, jsonASCII) }

// render writes b in style s. A rune passes only when passes says so. The
// fuzz target checks the output, not this function's reasoning.
func render(b []byte, s style) string {
	if clean(b, s) {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b) + 8)
	if s == word {
		out.WriteByte('"')
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case passes(r, n, s):
			out.Write(b[:n])
		case s == message && (r == '\n' || r == '\t'):
			out.WriteByte(' ')
		case s == message:
			out.WriteString(strings.Repeat("?", n))
		case s == jsonASCII:
			writeJSONRune(&out, r)
		case s == word || r == utf8.RuneError && n == 1 || r < utf8.RuneSelf && r != '\\':
			for _, c := range b[:n] {
				out.WriteString(`\x`)
				out.WriteByte(hexDigits[c>>4])
				out.WriteByte(hexDigits[c&15])
			}
		case r == '\\':
			out.WriteString(`\\`)
		default:
			writeU(&out, r)
		}
		b = b[n:]
	}
	if s == word {
		out.WriteByte('"')
	}
	return out.String()
}

// clean reports whether every rune of b passes in style s.
func clean(b []byte, s style) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !passes(r, n, s) {
			return false
		}
		b = b[n:]
	}
	return true
}

// passes reports whether rune r, n bytes long in the input, is shown as is.
func passes(r rune, n int, s style) bool {
	switch s {
	case word:
		return r < utf8.RuneSelf && quoteSafe(byte(r))
	case jsonASCII:
		return r >= 0x20 && r < 0x7f
	case message:
		return r >= 0x20 && r < 0x7f && r != '$' && r != '`' && r != '\\'
	case text:
		if r == '\n' || r == '\t' {
			return true
		}
	}
	if r == utf8.RuneError && n == 1 || r == '\\' {
		return false
	}
	// IsPrint admits letters, marks, numbers, punctuation, symbols and the
	// ASCII space. It never admits a control (Cc) or format/bidi (Cf)
	// rune. Nor a separator other than ' ' (Zs, Zl, Zp), a private-use or
	// an unassigned rune.
	return unicode.IsPrint(r)
}

func writeU(out *strings.Builder, r rune) {
	if r > 0xffff {
		out.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			out.WriteByte(hexDigits[r>>shift&15])
		}
		return
	}
	out.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		out.WriteByte(hexDigits[r>>shift&15])
	}
}

// writeJSONRune writes r as JSON escapes. Invalid UTF-8 arrives as
// utf8.RuneError and so reads as U+FFFD.
func writeJSONRune(out *strings.Builder, r rune) {
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		writeU(out, r1)
		writeU(out, r2)
		return
	}
	writeU(out, r)
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
