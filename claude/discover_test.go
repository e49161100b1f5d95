package claude

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
)

// rel lists dirs relative to root ("." for root itself).
func rel(root string, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		r, err := filepath.Rel(root, d)
		if err != nil || strings.HasPrefix(r, "..") {
			continue
		}
		out = append(out, r)
	}
	return out
}

func TestAncestorsStopAtTheRepositoryTopOrBeforeHome(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tree      []string
		project   string
		home      string
		ancestors []string
	}{
		{"git top two levels up", []string{"repo/.git/", "repo/a/b/", "repo/a/.claude/", "repo/.claude/", ".claude/"}, "repo/a/b", "", []string{"repo/a", "repo"}},
		{"a folder without .claude is none", []string{"repo/.git/", "repo/a/b/", "repo/.claude/"}, "repo/a/b", "", []string{"repo"}},
		{"a .git file (worktree) is a top", []string{"repo/.git=gitdir: x", "repo/a/", "repo/.claude/"}, "repo/a", "", []string{"repo"}},
		{"the project is the top", []string{"repo/.git/", ".claude/"}, "repo", "", nil},
		{"no git: up to, not including, home", []string{"h/w/a/", "h/w/.claude/", "h/.claude/", ".claude/"}, "h/w/a", "h", []string{"h/w"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Make(t, root, tc.tree...)
			p := Places{Project: filepath.Join(root, tc.project)}
			if tc.home != "" {
				p.Home = filepath.Join(root, tc.home)
			}
			p = p.Discover(DefaultLimits)
			if got := rel(root, p.Ancestors); !slices.Equal(got, tc.ancestors) {
				t.Errorf("ancestors %q, want %q", got, tc.ancestors)
			}
			testtree.Make(t, root, "CLAUDE.md")
			if p = p.Discover(DefaultLimits); !slices.Contains(p.Above, root) {
				t.Errorf("a CLAUDE.md above the top is not read: %q", p.Above)
			}
		})
	}
}

func TestAncestorsAreBoundedAndNeverGuessedFromAnUncleanPath(t *testing.T) {
	for _, project := range []string{"/a/../b", "/a//b", "/a/./b", "a/b", "/a/b/"} {
		if p := (Places{Project: project}).Discover(DefaultLimits); p.Above != nil || p.Ancestors != nil || p.Nested != nil {
			t.Errorf("%q: discovered %q %q %q", project, p.Above, p.Ancestors, p.Nested)
		}
	}
	root := t.TempDir()
	deep := root + strings.Repeat("/d", 20)
	testtree.Make(t, root, strings.Repeat("d/", 20), strings.Repeat("d/", 12)+"CLAUDE.md", "d/CLAUDE.md")
	if p := (Places{Project: deep}).Discover(Limits{MaxAncestors: 10}); len(p.Above) != 1 {
		t.Errorf("folders above read past MaxAncestors: %q", p.Above)
	}
}

func TestNestedSkillsAreFoundWithinDepthAndCountNeverThroughALink(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root,
		"src/.claude/skills/nest/SKILL.md",
		"src/deep/er/.claude/skills/x/",
		"a/b/c/d/e/.claude/skills/toodeep/",
		"bad\nname/.claude/skills/s/",
		"out/.claude/skills/s/",
		"linked -> out",
		".git/.claude/skills/s/",
		".claude/skills/top/",
		"docs/CLAUDE.md",
		"docs/more/AGENTS.md",
	)
	p := Places{Project: root}
	lim := Limits{MaxAncestors: 0, MaxDepth: 4, MaxDirs: 100, MaxNested: 10}
	p = p.Discover(lim)
	got := rel(root, p.Nested)
	slices.Sort(got)
	want := []string{"bad\nname", "out", "src", "src/deep/er"}
	if !slices.Equal(got, want) {
		t.Errorf("nested %q, want %q", got, want)
	}
	if gotI := rel(root, p.NestedInstructions); !slices.Equal(gotI, []string{"docs", "docs/more"}) {
		t.Errorf("nested instructions %q", gotI)
	}
	if !p.NestedPartial {
		t.Error("a folder past MaxDepth left the search whole")
	}
	if p = (Places{Project: root}).Discover(Limits{MaxDepth: 8, MaxDirs: 3, MaxNested: 10}); !p.NestedPartial || len(p.Nested) > 2 {
		t.Errorf("MaxDirs 3: %q partial %v", rel(root, p.Nested), p.NestedPartial)
	}
	if p = (Places{Project: root}).Discover(Limits{MaxDepth: 8, MaxDirs: 100, MaxNested: 1}); !p.NestedPartial || len(p.Nested) != 1 {
		t.Errorf("MaxNested 1: %q partial %v", rel(root, p.Nested), p.NestedPartial)
	}
}

func TestGitIgnoredNestedFoldersAreLeftOutAsTheClientLeavesThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: Claude Code asks it what is ignored")
	}
	root := t.TempDir()
	testtree.Make(t, root,
		".gitignore=node_modules/\nbuild\n",
		"node_modules/x/.claude/skills/ign/",
		"build/.claude/skills/ign/",
		"build/CLAUDE.md",
		"src/.claude/skills/nest/",
	)
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	p := (Places{Project: root}).Discover(DefaultLimits)
	if got := rel(root, p.Nested); !slices.Equal(got, []string{"src"}) {
		t.Errorf("nested %q, want only src", got)
	}
	if len(p.NestedInstructions) > 0 {
		t.Errorf("an ignored CLAUDE.md is watched: %q", p.NestedInstructions)
	}
}
