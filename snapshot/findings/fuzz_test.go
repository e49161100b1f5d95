package findings

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzUnicodeKinds: no input crashes the scan, none passes a hidden
// character through unescaped, and each listed kind stays bounded.
func FuzzUnicodeKinds(f *testing.F) {
	f.Add([]byte("plain\n"))
	f.Add([]byte("a" + tags("hi") + "b\u200b\u202e\n"))
	f.Add([]byte("\xf3\xa0\x81"))
	f.Add([]byte("<!--\u2066-->\uFEFF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := Scan(File{Path: []byte("SKILL.md"), Data: data})
		counts := map[string]int{}
		for _, x := range fs {
			counts[x.Kind]++
			for _, s := range []string{x.Text, x.Decoded, x.File} {
				for _, r := range s {
					if isBidi(r) || isZeroWidth(r) || r >= tagFirst && r <= tagLast || r < 0x20 || r == utf8.RuneError {
						t.Fatalf("%s holds %U raw: %q", x.Kind, r, s)
					}
				}
			}
		}
		for k, n := range counts {
			if n > MaxPerKind+1 {
				t.Fatalf("%d findings of %s", n, k)
			}
		}
		hasTag := false
		for _, r := range string(data) {
			if r >= tagFirst && r <= tagLast {
				hasTag = true
			}
		}
		if hasTag && counts[InvisibleUnicode] == 0 && !strings.Contains(string(data), "\uFFFD") {
			t.Fatalf("a tag character went untold in %q", data)
		}
	})
}
