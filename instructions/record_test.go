package instructions

import (
	"testing"

	"github.com/skillwire/skillwire/claude"
)

func TestALoadedPathResolvesToTheDeepestWatchedCandidate(t *testing.T) {
	roots := []claude.Root{
		{Path: "/p", Kind: claude.Config, Names: []string{"CLAUDE.md"}},
		{Path: "/p/.claude/rules", Kind: claude.Rules},
		{Path: "/c/plugins/cache", Kind: claude.Plugins},
	}
	for p, want := range map[string]string{
		"/p/CLAUDE.md":                     "/p CLAUDE.md",
		"/p/.claude/rules/a.md":            "/p/.claude/rules a.md",
		"/p/.claude/rules/sub/deep/r.md":   "/p/.claude/rules sub",
		"/c/plugins/cache/m/x/1.0/r.md":    "/c/plugins/cache m/x/1.0",
		"/p/sub/CLAUDE.md":                 "",
		"/p/.claude/rules/./a.md":          "",
		"/p/.claude/rules//a.md":           "",
		"/p/.claude/rules/../../CLAUDE.md": "",
		"/c/plugins/cache/m/x":             "",
	} {
		r, name, ok := watchedCandidate(roots, p)
		got := ""
		if ok {
			got = r.Path + " " + name
		}
		if got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}
