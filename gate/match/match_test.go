package match

import (
	"testing"

	"github.com/skillwire/skillwire/claude"
)

// A match is read once by id when blockedByFolder read its record
// already: the same root and name is the same record. Another name, or
// the same name in another root, is another record and is read again.
func TestAMatchIsCoveredOnlyByTheSameRootAndName(t *testing.T) {
	loc := func(root, name string) Located {
		return Located{Root: claude.Root{Path: root}, Name: []byte(name)}
	}
	read := []Located{loc("/u/skills", "pdf"), loc("/p/skills", "pdf")}
	for _, tc := range []struct {
		matched []Located
		want    bool
	}{
		{nil, true},
		{[]Located{loc("/u/skills", "pdf")}, true},
		{[]Located{loc("/p/skills", "pdf"), loc("/u/skills", "pdf")}, true},
		{[]Located{loc("/u/skills", "pdf"), loc("/u/skills", "pdf2")}, false},
		{[]Located{loc("/x/skills", "pdf")}, false},
		{[]Located{loc("/u/skills/", "pdf")}, false},
	} {
		if got := AllIn(tc.matched, read); got != tc.want {
			t.Errorf("AllIn(%v) = %v, want %v", tc.matched, got, tc.want)
		}
	}
	if AllIn([]Located{loc("/u/skills", "pdf")}, nil) {
		t.Error("nothing read covers a match")
	}
}
