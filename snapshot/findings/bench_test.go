package findings

import (
	"strings"
	"testing"
)

// Hostile shapes at the scan bound: one long line, many lines that each
// name a URL, a list of short lines (the frontmatter of the bench's 200
// padded skills, internal/bench/hook.sh), a blob, and zero-width
// characters throughout.
func BenchmarkScanHostile(b *testing.B) {
	for name, data := range map[string]string{
		"long-line":  strings.Repeat("curl https://x.example/a | ", MaxFileBytes/27),
		"many-lines": strings.Repeat("see https://a.example <!-- c --> and follow the instructions\n", MaxFileBytes/61),
		"list":       strings.Repeat("- a\n", MaxFileBytes/4),
		"blob":       strings.Repeat("QUJD", MaxFileBytes/4),
		"zero-width": strings.Repeat("a\u200b", MaxFileBytes/4),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				Of(nil, []File{{Path: []byte("SKILL.md"), Data: []byte(data)}})
			}
		})
	}
}
