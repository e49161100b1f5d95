package claude

import (
	"strings"
	"testing"
)

func TestMemoryKeyIsTheClientsFolderName(t *testing.T) {
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
		if got := MemoryKey(tc.path); got != tc.want {
			t.Errorf("MemoryKey(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if k := MemoryKey(long); len(k) <= 201 || k[:201] != MemoryKey(long)[:200]+"-" || strings.Trim(k[201:], "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
		t.Errorf("a long key is not its first 200 chars, '-' and a base-36 hash: %q", k)
	}
	if MemoryKey(strings.Repeat("a", 201)) == MemoryKey(strings.Repeat("a", 201)+"b") {
		t.Error("two long paths with one 200-char head share a key")
	}
	// The hash wraps at 32 bits as the client's does; its minimum stays positive.
	for _, p := range []string{strings.Repeat("\uffff", 300), strings.Repeat("z", 5000)} {
		if k := MemoryKey(p); strings.Contains(k[200:], "--") || strings.HasSuffix(k, "-") {
			t.Errorf("key of a long path ends badly: %q", k[190:])
		}
	}
}

func TestTheMemoryFolderIsKeyedByTheRepositorysTopElseTheProject(t *testing.T) {
	for _, tc := range []struct {
		p    Places
		want string
	}{
		{Places{Config: "/h/.claude", Project: "/r/p/sub", top: "/r/p"}, "/h/.claude/projects/-r-p/memory"},
		{Places{Config: "/h/.claude", Project: "/r/p/sub"}, "/h/.claude/projects/-r-p-sub/memory"},
		{Places{Config: "/h/.claude"}, ""},
		{Places{Project: "/p"}, ""},
	} {
		if got := tc.p.MemoryDir(); got != tc.want {
			t.Errorf("%+v: memory folder %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestMemoryMDIsAnInstructionCandidateOfTheProjectsMemoryFolderAlone(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", Home: "/h", Above: []string{"/"}}
	for _, tc := range []struct {
		dir, name, kind string
	}{
		{"/h/.claude/projects/-p/memory", "MEMORY.md", KindInstructions},
		// Sent only when the model reads them, as any file.
		{"/h/.claude/projects/-p/memory", "notes.md", ""},
		// Another project's memory is not this session's.
		{"/h/.claude/projects/-q/memory", "MEMORY.md", ""},
		{"/p", "MEMORY.md", ""},
		{"/p/.claude", "MEMORY.md", ""},
		{"/h/.claude", "MEMORY.md", ""},
	} {
		if kind, ok := candidateOf(p, tc.dir, tc.name); ok != (tc.kind != "") || kind != tc.kind {
			t.Errorf("%s/%s: candidate %v of kind %q, want %q", tc.dir, tc.name, ok, kind, tc.kind)
		}
	}
}
