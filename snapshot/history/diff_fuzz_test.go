package history

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
)

// FuzzDiffTextIsEscaped: whatever two files hold, their diff is valid
// UTF-8. It holds no control byte but newline and tab, no bidi or format
// rune. No line is longer than the cut allows.
func FuzzDiffTextIsEscaped(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("a\n\x1b[2J\u202eb\n"))
	f.Add([]byte(""), []byte("\xff\xfe\r\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		text, _, _ := unified(anomaly.Escape([]byte("p\x1b")), a, b, false, false)
		if !utf8.ValidString(text) {
			t.Fatal("invalid UTF-8 got out")
		}
		for _, r := range text {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029') {
				t.Fatalf("%U got out raw", r)
			}
		}
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 4*(MaxLine+len(CutMarker))+8 {
				t.Fatalf("a line of %d bytes got out", len(line))
			}
		}
	})
}

// FuzzPrettyKeepsTheValue: whatever a canonical form holds, Pretty returns
// it unchanged or returns JSON of the same value.
func FuzzPrettyKeepsTheValue(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[true,null,"x\u001b"]}`))
	f.Add([]byte(`{"a":1}{"b":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := Pretty(b)
		if bytes.Equal(out, b) {
			return
		}
		decode := func(b []byte) (v any, err error) {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			err = d.Decode(&v)
			return v, err
		}
		x, errx := decode(b)
		y, erry := decode(out)
		if errx != nil || erry != nil || !reflect.DeepEqual(x, y) {
			t.Fatalf("Pretty(%q) = %q", b, out)
		}
	})
}
