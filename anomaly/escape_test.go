package anomaly

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscapeShowsPrintableUTF8AndEscapesTheRest(t *testing.T) {
	for _, tc := range []struct{ name, in, line, text string }{
		{"plain ASCII passes", "SKILL.md: run it", "SKILL.md: run it", "SKILL.md: run it"},
		{"printable UTF-8 passes", "café 日本", "café 日本", "café 日本"},
		{"shell syntax is text, not a control", "$(rm -rf ~) `id`", "$(rm -rf ~) `id`", "$(rm -rf ~) `id`"},
		{"escape sequence", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"newline and tab only in text", "a\nb\tc", `a\x0ab\x09c`, "a\nb\tc"},
		{"carriage return never", "a\rb", `a\x0db`, `a\x0db`},
		{"NUL and DEL", "\x00\x7f", `\x00\x7f`, `\x00\x7f`},
		{"invalid UTF-8 byte by byte", "a\xff\xc3", `a\xff\xc3`, `a\xff\xc3`},
		{"C1 control", "\u0085\u009b", `\u0085\u009b`, `\u0085\u009b`},
		{"right-to-left override", "txt.\u202eexe", `txt.\u202eexe`, `txt.\u202eexe`},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, `\u2066a\u2067b\u2068c\u2069`},
		{"zero-width and marks", "\u200b\u200c\u200d\u200e\u200f", `\u200b\u200c\u200d\u200e\u200f`, `\u200b\u200c\u200d\u200e\u200f`},
		{"byte order mark", "\ufeffx", `\ufeffx`, `\ufeffx`},
		{"line and paragraph separators", "a\u2028b\u2029", `a\u2028b\u2029`, `a\u2028b\u2029`},
		{"tag characters above the BMP", "\U000E0041", `\U000e0041`, `\U000e0041`},
		{"backslash is doubled, so escapes cannot be forged", `\x1b`, `\\x1b`, `\\x1b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Escape([]byte(tc.in)); got != tc.line {
				t.Errorf("Escape(%q) = %s, want %s", tc.in, got, tc.line)
			}
			if got := EscapeText([]byte(tc.in)); got != tc.text {
				t.Errorf("EscapeText(%q) = %s, want %s", tc.in, got, tc.text)
			}
		})
	}
}

func TestQuoteBytesLeavesNoShellOrControlByte(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/.claude/skills": "/home/u/.claude/skills",
		"/p/$(rm -rf ~)":         `"/p/\x24\x28rm\x20-rf\x20~\x29"`,
		"a\nb":                   `"a\x0ab"`,
		"\x1b[2J":                `"\x1b\x5b2J"`,
		"caf\xc3\xa9":            `"caf\xc3\xa9"`,
		"`id`":                   `"\x60id\x60"`,
		`a\b`:                    `"a\x5cb"`,
		"\xff":                   `"\xff"`,
	} {
		if got := QuoteBytes([]byte(in)); got != want {
			t.Errorf("QuoteBytes(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestEscapeJSONKeepsTheValueInPrintableASCII(t *testing.T) {
	for in, want := range map[string]string{
		`"note": "plain"`:                  `"note": "plain"`,
		"\"note\": \"\u202e\u009b\xff x\"": `"note": "\u202e\u009b\ufffd x"`,
		"\"\U0001F600 caf\u00e9\x7f\"":     `"\ud83d\ude00 caf\u00e9\u007f"`,
		`"a\\b \" \u0041"`:                 `"a\\b \" \u0041"`,
	} {
		if got := EscapeJSON([]byte(in)); got != want {
			t.Errorf("EscapeJSON(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDefangReplacesWhatATerminalOrShellActsOn(t *testing.T) {
	for in, want := range map[string]string{
		"plain message: 42":        "plain message: 42",
		"$\x1b[2J(`rm`)\ns":        "??[2J(?rm?) s",
		"a\tb\\c":                  "a b?c",
		"caf\xc3\xa9 \xff \u202e.": "caf?? ? ???.",
	} {
		if got := Defang(in); got != want {
			t.Errorf("Defang(%q) = %q, want %q", in, got, want)
		}
	}
}

// unescape reverses Escape and EscapeText, proving them injective.
func unescape(t *testing.T, s string) []byte {
	var out []byte
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		var width int
		switch s[i+1] {
		case '\\':
			out = append(out, '\\')
			i += 2
			continue
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		default:
			t.Fatalf("unknown escape in %q", s)
		}
		v := 0
		for _, c := range s[i+2 : i+2+width] {
			v = v<<4 | strings.IndexRune(hexDigits, c)
		}
		if width == 2 {
			out = append(out, byte(v))
		} else {
			out = utf8.AppendRune(out, rune(v))
		}
		i += 2 + width
	}
	return out
}

func jsonValue(b []byte) (v any, err error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	err = d.Decode(&v)
	return v, err
}

// FuzzEscape proves, for every style, that no control byte, bidi or
// format rune, separator or invalid UTF-8 gets out. It also proves that
// Escape and EscapeText lose nothing.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"ok", "$(x)\n", "\x1b[31m", "a\u202eb", "\xff\xfe", `\x41`, "\U000E0041\ufeff", "\u0085"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, out := range map[string]string{"Escape": Escape(b), "EscapeText": EscapeText(b), "QuoteBytes": QuoteBytes(b), "Defang": Defang(string(b)), "EscapeJSON": EscapeJSON(b)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, b, out)
			}
			for _, r := range out {
				if (r == '\n' || r == '\t') && name == "EscapeText" {
					continue
				}
				if r != ' ' && !unicode.IsPrint(r) {
					t.Fatalf("%s(%q) = %q leaks %U", name, b, out, r)
				}
				if name == "EscapeJSON" && r >= utf8.RuneSelf {
					t.Fatalf("%s(%q) = %q leaks %U", name, b, out, r)
				}
				if (name == "QuoteBytes" || name == "Defang") && (r >= utf8.RuneSelf || r == '$' || r == '`') {
					t.Fatalf("%s(%q) = %q leaks %q", name, b, out, r)
				}
				if name == "QuoteBytes" && (r == ' ' || r == ';' || r == '\'') {
					t.Fatalf("%s(%q) = %q leaks %q", name, b, out, r)
				}
			}
		}
		if json.Valid(b) && !bytes.ContainsAny(b, "\t\r\n") {
			v1, err1 := jsonValue(b)
			v2, err2 := jsonValue([]byte(EscapeJSON(b)))
			if err1 != nil || err2 != nil || !reflect.DeepEqual(v1, v2) {
				t.Fatalf("EscapeJSON(%q) = %q changes the value: %v, %v", b, EscapeJSON(b), err1, err2)
			}
		}
		if got := unescape(t, Escape(b)); string(got) != string(b) {
			t.Fatalf("Escape(%q) reads back as %q", b, got)
		}
		if got := unescape(t, EscapeText(b)); string(got) != string(b) {
			t.Fatalf("EscapeText(%q) reads back as %q", b, got)
		}
	})
}
