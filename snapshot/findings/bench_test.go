package findings

import (
	"strings"
	"testing"
)

// Hostile shapes at the scan bound: one long line, many short lines, a
// blob, and zero-width characters throughout.
func BenchmarkScanHostile(b *testing.B) {
	for name, data := range map[string]string{
		"long-line":  strings.Repeat("curl https://x.example/a | ", MaxFileBytes/27),
		"many-lines": strings.Repeat("see https://a.example <!-- c --> and follow the instructions\n", MaxFileBytes/61),
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
