package main

import (
	"fmt"

	"text/tabwriter"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/spf13/cobra"
)

// checkChangeJSON is one change as `check --json` prints it (DESIGN.md §7).
type checkChangeJSON struct {
	// Path is inside the candidate, as anomaly.Names.Show shows it:
	// "<root>" for the candidate itself, a file it binds by where it lies
	// ("~/.claude/hooks/x.sh"), each component that fails the display
	// rules as #<hash>.
	Path      string              `json:"path"`
	Candidate string              `json:"candidate"`
	Name      *string             `json:"name"`
	Type      snapshot.ChangeType `json:"type"`
	// Change, Class and Source are the one vocabulary of a changed file in
	// check, status and diff ({path, change, class, source}); Type and
	// Expected stay, since no field of the contract is removed.
	Change   snapshot.ChangeType `json:"change"`
	Class    reconcile.Class     `json:"class"`
	Source   *string             `json:"source"`
	Expected bool                `json:"expected"`
	Why      *reconcile.Mismatch `json:"why"`
	Implied  bool                `json:"implied"`
	// Audit is the entry as the log holds it, unknown fields included.
	Audit     *auditlog.Entry `json:"audit"`
	AuditLine *int            `json:"audit_line"`
}

type checkJSON struct {
	Changes           []checkChangeJSON `json:"changes"`
	Unexpected        int               `json:"unexpected"`
	AuditSkippedLines int               `json:"audit_skipped_lines"`
	AuditSuspicious   int               `json:"audit_suspicious"`
	Incomplete        []string          `json:"incomplete"`
}

func newCheckCmd(s *streams) *cobra.Command {
	var asJSON bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Reconcile every file change since the reviewed (else first-use) version with the audit log",
		Long: `check observes every candidate and compares it with the version a person
reviewed SAFE-TO-PROPOSE, else its first-use version. A candidate with
neither (new since the first run: not in the store yet, or delivered to a
session but never reviewed) is compared with nothing: every file of it is
listed as added until a person reviews it. check lists each file added,
removed, modified or changed in mode since, and reconciles it with the audit log ('skillwire audit --help'). A change is
expected only when an entry names that file (absolute, or relative to the
directory holding .claude; never with . or ..), is dated after the
observation and not in the future, has an operation that fits (create:
added; update, refine, migrate, rollback: modified or mode; delete:
removed), and the file's last entry agrees with the disk (its sha256, when
present, is the file's content now). A directory is expected with the
announced files below it; files, with their directory's announced delete.
Everything else is unexpected: possible tampering.

check changes nothing.

Exit 0 every change expected, 3 any unexpected (or a candidate that could
not be fully observed), 4 no usable store or an untrusted audit log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			scopes, err := w.auditScopes(s)
			if err != nil {
				return err
			}
			// The trees are observed before the logs are read: an edit
			// observed here was announced by then, if it ever is.
			obs := w.scan(cmd.Context(), s, cfg)
			cands, incomplete, err := w.checkSubjects(obs)
			if err != nil {
				return err
			}
			sources, skipped, err := reconcile.ReadSources(scopes, auditlog.Options{})
			if err != nil {
				return failure(err, exitInternal)
			}
			rec := reconcile.Run(reconcile.Input{Candidates: cands, Sources: sources, Now: time.Now(), Limits: cfg.Limits})
			out := renderCheck(w.roots, cands, &rec, skipped, append(incomplete, rec.Incomplete...))
			if asJSON {
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
			} else {
				printCheck(s, &out)
			}
			if out.Unexpected > 0 || len(out.Incomplete) > 0 {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	bf.add(cmd)
	return cmd
}

// checkSubjects reads, in one short read transaction, what check
// compares (session.CheckSubjects).
func (w *world) checkSubjects(obs []baseline.Observation) (cands []reconcile.Candidate, incomplete []string, err error) {
	st, err := w.open(false, true)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	err = st.View(func(tx *baseline.Tx) error {
		cands, incomplete, err = session.CheckSubjects(tx, w.roots, obs)
		return err
	})
	if err != nil {
		return nil, nil, storeErr(err)
	}
	return cands, incomplete, nil
}

// checkName is how c is shown: as the root holding it shows it (a
// ".hidden-tools" skill as the client spells it, a plugin as its plugin),
// else by the display gate.
func checkName(roots []claude.Root, c reconcile.Candidate) (string, bool) {
	for _, r := range roots {
		if r.Path == c.Root && r.Holds(c.Name) {
			return r.Display(c.Name)
		}
	}
	return string(c.Name), anomaly.Gate(c.Name)
}

func renderCheck(roots []claude.Root, cands []reconcile.Candidate, rec *reconcile.Result, skipped int, incomplete []string) checkJSON {
	out := checkJSON{Changes: []checkChangeJSON{}, Unexpected: rec.Unexpected, AuditSkippedLines: skipped,
		AuditSuspicious: rec.Suspicious, Incomplete: nonNil(incomplete)}
	names := map[string]*string{}
	paths := map[string]anomaly.Names{}
	for _, c := range cands {
		paths[c.ID] = c.Names
		if n, ok := checkName(roots, c); ok {
			names[c.ID] = &n
		}
	}
	for _, rc := range rec.Changes {
		cj := checkChangeJSON{Path: paths[rc.Candidate].Show(rc.Change.Path), Candidate: rc.Candidate, Name: names[rc.Candidate],
			Type: rc.Change.Type, Change: rc.Change.Type, Class: rc.Worth(), Expected: rc.Expected, Implied: rc.Implied, Audit: rc.Entry}
		if src, ok := rc.Source(); ok {
			cj.Source = &src
		}
		if rc.Why != "" {
			why := rc.Why
			cj.Why = &why
		}
		if rc.Entry != nil {
			line := rc.Entry.Line
			cj.AuditLine = &line
		}
		out.Changes = append(out.Changes, cj)
	}
	return out
}

var mismatchText = map[reconcile.Mismatch]string{
	reconcile.MismatchNoEntry:    "no audit entry names it",
	reconcile.MismatchStale:      "its audit entries are from before the last observation (or from the future)",
	reconcile.MismatchOperation:  "no audit entry's operation fits the change",
	reconcile.MismatchSHA256:     "the last audit entry's sha256 is not its content",
	reconcile.MismatchState:      "the last audit entry contradicts it (deleted, yet there; or the reverse)",
	reconcile.MismatchUnverified: "announced, unverified: the last audit entry carries no sha256 to compare with its content",
}

func printCheck(s *streams, out *checkJSON) {
	if len(out.Changes) == 0 {
		fmt.Fprintln(s.out, "No file has changed since the reviewed (else first-use) versions.")
	} else {
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tCHANGE\tPATH\tVERDICT")
		for _, c := range out.Changes {
			verdict := "expected"
			switch {
			case !c.Expected:
				verdict = "UNEXPECTED: " + mismatchText[*c.Why]
			case c.Implied:
				verdict = "expected (implied)"
			}
			if c.Audit != nil {
				verdict += fmt.Sprintf(" [line %d: %s by %s]", c.Audit.Line, c.Audit.Operation, anomaly.QuoteBytes([]byte(c.Audit.Source)))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Candidate, displayName(c.Name), c.Type, c.Path, verdict)
		}
		tw.Flush()
		fmt.Fprintf(s.out, "%d changes, %d unexpected.\n", len(out.Changes), out.Unexpected)
	}
	if out.AuditSkippedLines > 0 || out.AuditSuspicious > 0 {
		fmt.Fprintf(s.out, "Audit log: %d lines skipped as invalid, %d entries that never match (. or .. in the path, or outside the roots); see 'skillwire audit show'.\n",
			out.AuditSkippedLines, out.AuditSuspicious)
	}
	for _, id := range out.Incomplete {
		fmt.Fprintf(s.out, "%s: could not be fully observed; its changes are unknown.\n", id)
	}
}
