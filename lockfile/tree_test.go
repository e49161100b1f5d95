package lockfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/walker"
)

// repoTree is a repository with every kind of root. It holds a file whose
// name a shell, a terminal and a JSON line reader would each act on.
var repoTree = []string{
	".claude/skills/pdf/",
	".claude/skills/pdf/SKILL.md=---\nname: pdf\n---\nRead PDFs.\n",
	".claude/skills/pdf/scripts/",
	".claude/skills/pdf/scripts/run.sh*=#!/bin/sh\necho run\n",
	".claude/skills/pdf/scripts/$(touch pwned)\n\xff=payload",
	".claude/skills/pdf/empty/",
	".claude/skills/web/",
	".claude/skills/web/SKILL.md=web\n",
	".claude/skills/LOOSE.md=not a candidate in a skills root\n",
	".claude/agents/",
	".claude/agents/reviewer.md=You review.\n",
	".claude/commands/",
	".claude/commands/ship.md=Ship it.\n",
	"README.md=outside every root\n",
}

// configTree is what the local watch covers beyond the .claude roots. It has
// settings whose hook runs a project script, an MCP server, and instructions
// importing a file. It has a nested folder's skills and instructions.
var configTree = []string{
	".claude/settings.json={\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"$CLAUDE_PROJECT_DIR/.claude/hooks/done.sh\"}]}]},\"theme\":\"dark\"}\n",
	".claude/hooks/",
	".claude/hooks/done.sh*=#!/bin/sh\n",
	".mcp.json={\"mcpServers\":{\"db\":{\"command\":\"npx\",\"args\":[\"-y\",\"db-server\"]}}}\n",
	"CLAUDE.md=Be brief.\n@docs/style.md\n",
	"docs/",
	"docs/style.md=Use tabs.\n",
	"src/",
	"src/CLAUDE.md=Tests first.\n",
	"src/.claude/",
	"src/.claude/skills/",
	"src/.claude/skills/nest/",
	"src/.claude/skills/nest/SKILL.md=nested\n",
}

// lockRepo locks the repository at repo ("" for the working directory) as the
// lock command does. It locks the default roots and any extra ones.
func lockRepo(t *testing.T, repo string, cfg walker.Config, extra ...Root) (*Lock, []Problem) {
	t.Helper()
	found, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	return Scan(context.Background(), repo, MergeRoots(found, extra), cfg)
}

// verifyRepo verifies the repository at repo against lock.
func verifyRepo(t *testing.T, repo string, lock *Lock, cfg walker.Config) *Report {
	t.Helper()
	r, err := Verify(context.Background(), repo, lock, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustMarshal(t testing.TB, l *Lock) []byte {
	t.Helper()
	b, err := l.Marshal()
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

// copyTree copies a regular-file-and-directory tree, giving everything
// the modes a checkout under umask 002 would have.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(to, strings.TrimPrefix(p, from))
		switch {
		case d.IsDir():
			if err := os.MkdirAll(dst, 0o775); err != nil {
				return err
			}
			return os.Chmod(dst, 0o775)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := os.FileMode(0o664)
			if info.Mode()&0o100 != 0 {
				mode = 0o775
			}
			if err := os.WriteFile(dst, data, mode); err != nil {
				return err
			}
			return os.Chmod(dst, mode)
		}
		t.Fatalf("copyTree: unexpected %s", p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
