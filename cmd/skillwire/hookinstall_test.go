package main

import (
	"strings"
	"testing"
)

// TestSettingsPreviewShowsEachChangeWithThreeLinesAround: the preview a
// confirmation is asked on shows every changed line, diffContext kept
// lines around it, "..." for what lies between, escaped for the terminal.
func TestSettingsPreviewShowsEachChangeWithThreeLinesAround(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	for _, c := range []struct{ name, before, after, want string }{
		{"unchanged", "a\nb\n", "a\nb\n", "   ...\n"},
		{"nothing", "", "", ""},
		{"created", "", "a\n", "  +a\n"},
		{"emptied", "a\n", "", "  -a\n"},
		{"inserted in the middle", "a\nc\n", "a\nb\nc\n", "   a\n  +b\n   c\n"},
		{"replaced", "a\nb\nc\n", "a\nx\nc\n", "   a\n  -b\n  +x\n   c\n"},
		{"hook added to settings", "{\n  \"model\": \"opus\"\n}\n", "{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n",
			"   {\n  -  \"model\": \"opus\"\n  +  \"model\": \"opus\",\n  +  \"hooks\": {}\n   }\n"},
		{"a missing final newline is no change", "a\nb", "a\nb\n", "   ...\n"},
		{"far apart changes", ten, strings.Replace(strings.Replace(ten, "1\n", "one\n", 1), "10\n", "ten\n", 1),
			"  -1\n  +one\n   2\n   3\n   4\n   ...\n   7\n   8\n   9\n  -10\n  +ten\n"},
		{"context ends before the file does", ten, strings.Replace(ten, "2\n", "two\n", 1),
			"   1\n  -2\n  +two\n   3\n   4\n   5\n   ...\n"},
		{"control bytes escaped", "a\n", "a\x1b[2J\n", "  -a\n  +a\\u001b[2J\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			writeDiff(&b, []byte(c.before), []byte(c.after))
			if got, want := b.String(), "change:\n"+c.want; got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
