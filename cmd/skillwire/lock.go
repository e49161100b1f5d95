package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/lockfile"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type lockOutJSON struct {
	Written         bool                   `json:"written"`
	Lock            string                 `json:"lock"`
	Roots           []string               `json:"roots"`
	Candidates      int                    `json:"candidates"`
	Problems        []lockfile.ProblemJSON `json:"problems"`
	DroppedVerdicts []lockfile.RefJSON     `json:"dropped_verdicts"`
}

func newLockCmd(s *streams) *cobra.Command {
	var out, repo string
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "lock [DIR...]",
		Short: "Write skillwire.lock, the reviewed state of what Claude Code loads from a repository",
		Long: `lock observes what the local watch covers for a project at the
repository's top: its .claude/skills, agents, commands, rules,
output-styles and workflows, nested .claude/skills and rules (git-ignored
folders left out, as Claude Code leaves them), .claude/settings.json and
settings.local.json, .mcp.json, and CLAUDE.md, CLAUDE.local.md and
AGENTS.md wherever Claude Code reads them, with their @imports and the
scripts their hooks run; and any further roots given as DIR. It writes
their state to skillwire.lock (or -o FILE) for 'skillwire verify' to check
in CI. A settings or MCP file is locked with its canonical form (noise
such as theme left out), which verify tells changes against.

The repository is the working directory, or -C DIR. Every DIR is a root
relative to the repository, spelled with [A-Za-z0-9._-] components and no
. or .., whose last component is skills, agents, commands, rules,
output-styles or workflows: that name
says which candidates it holds (in a skills root, directories only). Any
other root is refused rather than guessed.

The lock is sorted JSON with no timestamps and no absolute paths: the same
tree gives the same bytes on every machine. It is written atomically, and
never over a path that is not a regular file. A verdict recorded in the
existing lock is kept for a candidate whose digest is unchanged.

A root or candidate that cannot be observed as plain content (partial,
a nested link, a FIFO, an unreadable file, a name that fails the display
gate...) is never locked: lock then writes nothing, lists them and exits 3.

Exit 0 written, 2 refused, 3 not written because of anomalies, 4 the
existing lock cannot be read.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			if err := checkRepoFlags(cmd, repo, "output", out); err != nil {
				return err
			}
			roots, err := lockfile.Discover(repo)
			if err != nil {
				return fail(exitInternal, "%s", defang(err.Error()))
			}
			for _, a := range args {
				r, err := lockfile.ParseRoot(strings.TrimRight(a, "/"))
				if err != nil {
					// ParseRoot shows the argument through QuoteBytes already.
					return fail(exitUsage, "%v", err)
				}
				roots = append(roots, r)
			}
			stop := showProgress(s, &cfg)
			lock, problems := lockfile.Scan(cmd.Context(), repo, roots, cfg)
			stop()

			res := lockOutJSON{Lock: anomaly.QuoteBytes([]byte(out)), Candidates: len(lock.Candidates),
				Problems: lockfile.ProblemsJSON(problems), DroppedVerdicts: []lockfile.RefJSON{}}
			for _, r := range lock.Roots {
				res.Roots = append(res.Roots, r.Path)
			}
			var dropped []lockfile.Ref
			if len(problems) == 0 {
				if dropped, err = writeLock(lock, lockfile.Under(repo, out), out); err != nil {
					return err
				}
				res.Written = true
				res.DroppedVerdicts = lockfile.RefsJSON(dropped)
			}
			if asJSON {
				if err := writeJSON(s.out, res); err != nil {
					return err
				}
			} else {
				printLock(s.out, &res, problems, dropped)
			}
			if len(problems) > 0 {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", lockfile.DefaultName, "the lock file to write, relative to the repository")
	cmd.Flags().StringVarP(&repo, "repo", "C", "", "the repository (default: the working directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	bf.add(cmd)
	return cmd
}

// checkRepoFlags refuses an empty -C or file flag: an empty path names
// nothing, never the working directory.
func checkRepoFlags(cmd *cobra.Command, repo, fileFlag, file string) error {
	if cmd.Flags().Changed("repo") && repo == "" {
		return fail(exitUsage, "-C needs a directory")
	}
	if file == "" || strings.HasSuffix(file, "/") {
		return fail(exitUsage, "--%s needs a file name", fileFlag)
	}
	return nil
}

// showProgress counts the scan's entries through cfg and shows them on
// the error stream while it runs; the returned func stops the display.
func showProgress(s *streams, cfg *walker.Config) func() {
	var progress atomic.Int64
	cfg.Progress = &progress
	return startProgress(s.err, &progress)
}

// writeLock replaces the lock at target, keeping the verdicts that still
// hold, and maps the library's refusals to exit codes.
func writeLock(lock *lockfile.Lock, target, name string) ([]lockfile.Ref, error) {
	dropped, err := lockfile.Relock(target, lock)
	switch {
	case err == nil:
		return dropped, nil
	case errors.Is(err, lockfile.ErrNotRegular):
		return nil, fail(exitUsage, "refusing to replace %s: %s", anomaly.QuoteBytes([]byte(name)), defang(err.Error()))
	case errors.Is(err, lockfile.ErrPrevious):
		return nil, fail(exitNoAudit, "%s: %s; move it away and lock again", anomaly.QuoteBytes([]byte(name)), defang(err.Error()))
	}
	return nil, fail(exitInternal, "writing %s: %s", anomaly.QuoteBytes([]byte(name)), defang(err.Error()))
}

func printLock(w io.Writer, res *lockOutJSON, problems []lockfile.Problem, dropped []lockfile.Ref) {
	name := res.Lock // already quoted
	if !res.Written {
		fmt.Fprintf(w, "%s not written: these cannot be observed as plain content, and such a root or candidate is never locked:\n", name)
		for _, p := range problems {
			fmt.Fprintf(w, "  %s  %s\n", lockfile.ProblemLabel(p), lockfile.ReasonList(p.Reasons))
		}
		fmt.Fprintln(w, "Remove or fix them (a budget cut is fixed with --max-entries or --max-bytes), then lock again.")
		return
	}
	fmt.Fprintf(w, "wrote %s: %s in %s\n", name, lockfile.Count(res.Candidates, "candidate"), lockfile.Count(len(res.Roots), "root"))
	for _, d := range dropped {
		fmt.Fprintf(w, "verdict %s dropped for %s: it changed or is gone since it was judged; review it again\n", d.Verdict, d.Label())
	}
}
