package memkey

import (
	"strings"
	"testing"
)

func TestTheKeyIsTheClientsFolderName(t *testing.T) {
	long := "/p/" + strings.Repeat("a-very-long-folder-name/", 9) + "end"
	for _, tc := range []struct{ path, want string }{
		{"/home/u/proj", "-home-u-proj"},
		{"/tmp/a_b.c d", "-tmp-a-b-c-d"},
		{"", ""},
		{"relative/x", "relative-x"},
		// One '-' for each UTF-16 unit: é is one, an emoji two.
		{"/é", "--"},
		{"/\U0001F600", "---"},
		{"/a\x00b\nc\x1b", "-a-b-c-"},
		// A byte that is no UTF-8 is one U+FFFD.
		{"/\xff\xfe", "---"},
		{"../..//x", "-------x"},
		// Over 200: cut, and the hash of the whole path added. The hash is
		// the client's own for the long path e2e/memory_test.go starts in.
		{"/tmp/TestExploreMemorylong_nogit197518546/001/proj/" + strings.Repeat("a-very-long-folder-name/", 9) + "end",
			"-tmp-TestExploreMemorylong-nogit197518546-001-proj-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-very-long-folder-name-a-ver-pscbm6"},
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
	} {
		if got := Of(tc.path); got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if k := Of(long); len(k) <= 201 || k[:201] != Of(long)[:200]+"-" || strings.Trim(k[201:], "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
		t.Errorf("a long key is not its first 200 chars, '-' and a base-36 hash: %q", k)
	}
	if Of(strings.Repeat("a", 201)) == Of(strings.Repeat("a", 201)+"b") {
		t.Error("two long paths with one 200-char head share a key")
	}
	// The hash wraps at 32 bits as the client's does; its minimum stays positive.
	for _, p := range []string{strings.Repeat("\uffff", 300), strings.Repeat("z", 5000)} {
		if k := Of(p); strings.Contains(k[200:], "--") || strings.HasSuffix(k, "-") {
			t.Errorf("key of a long path ends badly: %q", k[190:])
		}
	}
}
