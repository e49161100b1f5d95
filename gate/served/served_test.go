package served

import (
	"slices"
	"testing"
)

// The client reads the nested folders from the touched file's folder up to
// its working directory, that one left out. A relative path is read against
// it, and cleaned as path.resolve cleans.
func TestTheFoldersATouchReadsAreThoseBetweenTheFileAndTheWorkingDirectory(t *testing.T) {
	nested := SkillsFolders([]string{"/p/a", "/p/a/b", "/p"})
	for _, c := range []struct {
		cwd, file string
		want      []string
	}{
		{"/p", "/p/a/b/x", []string{"/p/a/b/.claude/skills", "/p/a/.claude/skills"}},
		{"/p", "a/x", []string{"/p/a/.claude/skills"}},
		{"/p", "/p/c/../a/x", []string{"/p/a/.claude/skills"}},
		{"/p", "/p/x", nil},
		{"/p/a", "/p/a/b/x", []string{"/p/a/b/.claude/skills"}},
		{"/p/a", "/p/x", nil},
		{"/p", "/q/a/x", nil},
		{"rel", "/p/a/x", nil},
		{"/p", "", nil},
	} {
		if got := Touched(nested, c.cwd, c.file); !slices.Equal(got, c.want) {
			t.Errorf("cwd %q file %q: %q, want %q", c.cwd, c.file, got, c.want)
		}
	}
}
