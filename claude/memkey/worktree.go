package memkey

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/skillwire/skillwire/walker"
)

// maxGitFile bounds a .git or commondir file, as the client's 64 KiB.
const maxGitFile = 64 << 10

// Bases are the folders memory is keyed by for the repository at top.
// A linked worktree's .git file names its git dir; that holds commondir,
// the main repository's git dir. Claude Code 2.1.332 keys the worktree's
// memory by the main repository (e2e
// TestAWorktreesMemoryMDIsTheMainRepositorysAndWatched). Both are given:
// watching more is safe. A file not read whole, or of another shape,
// gives top alone.
func Bases(top string) []string {
	if m := mainOf(top); m != "" && m != top {
		return []string{top, m}
	}
	return []string{top}
}

// mainOf is the main repository's folder of the worktree at top, or "".
// Relative paths resolve as git's do: gitdir against top, commondir
// against gitdir. A common dir named .git stands for its parent folder.
func mainOf(top string) string {
	gitdir, ok := readGitLine(top, ".git")
	if !ok || !strings.HasPrefix(gitdir, "gitdir:") {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir[len("gitdir:"):])
	if gitdir == "" {
		return ""
	}
	gitdir = resolve(top, gitdir)
	common, ok := readGitLine(gitdir, "commondir")
	if !ok || common == "" {
		return ""
	}
	// As the client checks: the git dir lies in the common dir's worktrees.
	if common = resolve(gitdir, common); filepath.Dir(gitdir) != filepath.Join(common, "worktrees") {
		return ""
	}
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common)
	}
	return common // a bare repository: the client keys by the git dir
}

// readGitLine is the file name of dir, trimmed, when read whole: a
// regular file, never through a link, of at most maxGitFile bytes.
func readGitLine(dir, name string) (string, bool) {
	if !filepath.IsAbs(dir) {
		return "", false
	}
	reads, err := walker.ReadFiles(dir, ".", []string{name}, maxGitFile)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 || bytes.IndexByte(reads[0].Data, 0) >= 0 {
		return "", false
	}
	return strings.TrimSpace(string(reads[0].Data)), true
}

// resolve is p against base, as Node's path.resolve: a relative p joined
// to base, an absolute one cleaned.
func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
