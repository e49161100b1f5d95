package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
)

// No process answers a discovery's questions (issue 34): a git on PATH
// that would log its start never runs. Ignored folders found below the
// project's own are dropped too; a negated pattern is not ignored; a name
// with a newline is one path.
func TestNoGitProcessAnswersAnIgnoreQuestion(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed to make the repository")
	}
	root := t.TempDir()
	testtree.Make(t, root,
		".gitignore=node_modules/\n",
		"node_modules/x/.claude/skills/ign/",
		"src/.gitignore=gen/\n!keep/\n",
		"src/gen/.claude/skills/ign/",
		"src/keep/.claude/skills/kept/",
		"src/a\nb/.claude/skills/nl/",
		"src/.claude/skills/nest/",
	)
	if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho x >> "+calls+"\nexec "+git+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	p := (Places{Project: root}).Discover(DefaultLimits)
	got := rel(root, p.Nested)
	slices.Sort(got)
	if want := []string{"src", "src/a\nb", "src/keep"}; !slices.Equal(got, want) {
		t.Errorf("nested %q, want %q", got, want)
	}
	if _, err := os.Stat(calls); err == nil {
		t.Error("a discovery ran git")
	}
}
