package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/lockfile"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/spf13/cobra"
)

func newVerifyCmd(s *streams) *cobra.Command {
	var lockPath, repo, format string
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check what Claude Code loads from the repository against skillwire.lock",
		Long: `verify observes every root skillwire.lock lists, and always what the
local watch covers for a project there: the repository's .claude/skills,
agents, commands, rules, output-styles and workflows, its nested
.claude/skills, .claude/settings.json and settings.local.json, .mcp.json,
CLAUDE.md, CLAUDE.local.md and AGENTS.md with their @imports and the
scripts their hooks run (so a lock edited to drop a root hides nothing), and
compares each candidate with the lock: added, removed, changed (with the
files that changed), anomalous. An added or changed settings or MCP file
is told by its facts too ("new SessionStart hook runs ..."), against the
form the lock holds.

A root or candidate that cannot be observed as plain content (partial, a
nested link, a FIFO, an unreadable file, a name that fails the display
gate...) never matches, whatever the lock says. A candidate that matches
a lock whose verdict for it is BLOCK or SUSPECT is a finding too.

The repository is the working directory, or -C DIR; --lock is relative
to it. --format json prints one object {"ok", "added", "removed",
"changed", "anomalous", "adverse", "matched"}; github prints workflow
annotations (::error file=...::...); sarif prints a SARIF 2.1.0 log. Names
that fail the display gate appear only as hex.

The added and changed files are read for content findings (facts for a
reviewer, never a verdict: hidden Unicode, bidi, Markdown comments, remote
instructions, pipe to shell, encoded blobs): one "finding" line each in
text, "findings" in JSON, and SARIF results under rules named by kind.

Exit 0 the tree matches, 3 it does not, 4 the lock is missing, malformed,
of an unknown version, or not a regular file (never a pass).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				if cmd.Flags().Changed("format") && format != "json" {
					return fail(exitUsage, "--json and --format %s disagree", defang(format))
				}
				format = "json"
			}
			switch format {
			case "text", "json", "github", "sarif":
			default:
				return fail(exitUsage, "--format must be text, json, github or sarif")
			}
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			if err := checkRepoFlags(cmd, repo, "lock", lockPath); err != nil {
				return err
			}
			lock, err := lockfile.ReadFile(lockfile.Under(repo, lockPath))
			if err != nil {
				return cannotVerify(s.out, format, lockPath, err)
			}
			stop := showProgress(s, &cfg)
			report, err := lockfile.Verify(cmd.Context(), repo, lock, cfg)
			stop()
			if err != nil {
				return fail(exitInternal, "%s", defang(err.Error()))
			}
			found := review.VerifyFindings(cmp.Or(repo, "."), report)
			switch format {
			case "text":
				if err = report.WriteText(s.out, lockPath); err == nil {
					for _, f := range found {
						fmt.Fprintf(s.out, "  finding\t%s %s:%d %s\n", f.Kind, anomaly.QuoteBytes([]byte(f.URI)), f.Line, f.Text)
					}
				}
			case "json":
				err = writeJSON(s.out, struct {
					lockfile.ReportJSON
					Findings []findings.Located `json:"findings,omitempty"`
				}{report.JSON(), found})
			case "github":
				err = report.WriteGitHub(s.out, lockPath)
			case "sarif":
				var log any
				if log, err = findings.AddSARIF(report.SARIF(lockPath, version), found); err == nil {
					err = writeJSON(s.out, log)
				}
			}
			if err != nil {
				return fail(exitInternal, "writing output: %v", err)
			}
			if !report.OK() {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lockPath, "lock", lockfile.DefaultName, "the lock file, relative to the repository")
	cmd.Flags().StringVarP(&repo, "repo", "C", "", "the repository (default: the working directory)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, github or sarif")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (--format json)")
	bf.add(cmd)
	return cmd
}

// cannotVerify reports a lock that cannot be used, in the requested
// format too: a CI log shows why the job failed. It exits 4. A missing or
// broken lock is never a pass.
func cannotVerify(w io.Writer, format, lockPath string, err error) error {
	name := anomaly.QuoteBytes([]byte(lockPath))
	var msg string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = fmt.Sprintf("cannot verify: %s does not exist; run 'skillwire lock', review it and commit it", name)
	case errors.Is(err, lockfile.ErrVersion), errors.Is(err, lockfile.ErrMalformed),
		errors.Is(err, lockfile.ErrNotRegular), errors.Is(err, lockfile.ErrTooLarge):
		msg = fmt.Sprintf("cannot verify: %s is not a usable lock: %s", name, defang(err.Error()))
	default:
		msg = fmt.Sprintf("cannot verify: reading %s: %s", name, defang(err.Error()))
	}
	var werr error
	switch format {
	case "json":
		werr = writeJSON(w, lockfile.FailureJSON(msg))
	case "github":
		_, werr = io.WriteString(w, lockfile.GitHubError(lockPath, msg))
	case "sarif":
		werr = writeJSON(w, lockfile.SARIFFailure(msg, version))
	}
	if werr != nil {
		return werr
	}
	return fail(exitCode(err, exitNoAudit), "%s", msg)
}
