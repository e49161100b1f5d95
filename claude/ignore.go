package claude

import "github.com/skillwire/skillwire/claude/gitignore"

// ignorer tells which folders git ignores in the work tree at top, as
// Claude Code asks `git check-ignore` (a tracked file is never ignored).
// It runs no process: every hook reaches it, a Bash call included, and a
// git start costs more than the hook (issue 34). A repository it cannot
// read whole ignores nothing: the client then loads them all, and so
// skillwire watches them all.
type ignorer struct{ repo *gitignore.Repo }

func newIgnorer(top string) *ignorer {
	return &ignorer{repo: gitignore.Open(gitignore.Config{Top: top})}
}

// ask is the set of dirs git ignores.
func (g *ignorer) ask(dirs []string) map[string]bool {
	if g == nil || len(dirs) == 0 {
		return map[string]bool{}
	}
	return g.repo.Ignored(dirs)
}
