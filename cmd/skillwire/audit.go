package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// auditScopes names each scope's audit log (auditlog.Scopes), global
// first. A relative $SKILLWIRE_AUDIT_LOG is refused input.
func (w *world) auditScopes(s *streams) ([]auditlog.Scope, error) {
	env, _ := s.getenv("SKILLWIRE_AUDIT_LOG")
	scopes, err := auditlog.Scopes(env, w.roots)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	return scopes, nil
}

func newAuditCmd(s *streams) *cobra.Command {
	audit := &cobra.Command{
		Use:   "audit",
		Short: "The audit log in which tools announce the edits they make",
		Long: `Tools that legitimately edit skills, agents and commands (skill creators,
refiners, installers) record what they did in an append-only JSONL audit
log; 'skillwire check' tells the changes they announced apart from those
nobody did.

The log is $SKILLWIRE_AUDIT_LOG when set, else <config>/.audit-log.jsonl
for the global roots and <project>/.claude/.audit-log.jsonl for the
project's. A relative filePath is relative to the directory holding
.claude (the configuration directory's parent, for the global log).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	audit.AddCommand(newAuditAppendCmd(s), newAuditShowCmd(s), newAuditVerifyCmd(s))
	return audit
}

func newAuditAppendCmd(s *streams) *cobra.Command {
	var op, path, source, details string
	var global bool
	cmd := &cobra.Command{
		Use:   "append --op OP --path PATH --source SOURCE [--details JSON]",
		Short: "Announce one edit in the audit log",
		Long: `append adds one line to the audit log: the operation (create, update,
delete, migrate, refine, rollback), the file as given (absolute, or
relative to the directory holding .claude), the source (the tool's name)
and optional details (a JSON object). For a file inside a watched root
that exists, it adds the SHA-256 of its current content; and it adds prev,
the SHA-256 of the log's previous line, so 'audit verify' can check the
history skillwire wrote. Appends by concurrent processes are serialised.

The log is the project's, unless --global, or an absolute PATH inside a
global root, or $SKILLWIRE_AUDIT_LOG says otherwise.

Exit 0 appended, 2 refused input, 4 an untrusted or busy log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e := auditlog.Entry{Operation: auditlog.Operation(op), FilePath: path, Source: source}
			switch {
			case !e.Operation.Valid():
				return fail(exitUsage, "--op must be one of create, update, delete, migrate, refine, rollback")
			case path == "":
				return fail(exitUsage, "--path is required")
			case source == "":
				return fail(exitUsage, "--source is required")
			case !utf8.ValidString(path) || !utf8.ValidString(source):
				return fail(exitUsage, "the audit log holds UTF-8 text: a path or source with other bytes cannot be recorded")
			case auditlog.Dotted(path):
				return fail(exitUsage, "a path with ., .. or empty components is never matched by 'skillwire check'; spell it without them")
			}
			if cmd.Flags().Changed("details") {
				raw := json.RawMessage(details)
				if !json.Valid(raw) || !strings.HasPrefix(strings.TrimSpace(details), "{") {
					return fail(exitUsage, "--details must be a JSON object")
				}
				e.Details = raw
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			scopes, err := w.auditScopes(s)
			if err != nil {
				return err
			}
			sc := auditlog.PickFor(scopes, global, path)
			if e.Operation != auditlog.Delete {
				e.SHA256 = auditSHA256(s, sc, path)
			}
			if _, err := auditlog.Append(sc.Log, e, auditlog.Options{}); err != nil {
				return failure(err, exitInternal)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&op, "op", "", "the operation: create, update, delete, migrate, refine or rollback")
	cmd.Flags().StringVar(&path, "path", "", "the file, absolute or relative to the directory holding .claude")
	cmd.Flags().StringVar(&source, "source", "", "who made the edit (a tool's name)")
	cmd.Flags().StringVar(&details, "details", "", "a JSON object with anything else worth keeping")
	cmd.Flags().BoolVar(&global, "global", false, "use the global roots' log")
	return cmd
}

// auditSHA256 hashes, through the walker, the file an entry names. The
// file must be regular, inside a watched root or at an absolute path. A
// script a settings file runs is named where it lies. Otherwise it says on
// stderr why the entry goes without a hash.
func auditSHA256(s *streams, sc auditlog.Scope, path string) string {
	root, rel, ok := sc.Locate(path)
	if i := strings.LastIndexByte(path, '/'); !ok && strings.HasPrefix(path, "/") {
		root, rel, ok = path[:i+1], path[i+1:], true
	}
	if !ok {
		fmt.Fprintln(s.err, "skillwire: the path is not inside a watched root: recorded without sha256, and 'skillwire check' will not match it")
		return ""
	}
	name, sub, _ := strings.Cut(rel, "/")
	sum, reason, err := walker.SHA256(root, []byte(name), []byte(sub), walker.DefaultLimits)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, walker.ErrNotFile):
		return ""
	case err != nil:
		fmt.Fprintf(s.err, "skillwire: recorded without sha256: %s\n", defang(err.Error()))
		return ""
	case reason != 0:
		fmt.Fprintf(s.err, "skillwire: recorded without sha256: the file is not observable as content (%s)\n", reason)
		return ""
	}
	return fmt.Sprintf("%x", sum)
}

type auditSkipJSON struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type auditShowJSON struct {
	Log            string           `json:"log"`
	Exists         bool             `json:"exists"`
	Entries        []auditlog.Entry `json:"entries"`
	Skipped        int              `json:"skipped"`
	SkippedLines   []int            `json:"skipped_lines"`
	SkippedReasons []auditSkipJSON  `json:"skipped_reasons"`
}

func auditSkips(l []auditlog.Skipped) ([]int, []auditSkipJSON) {
	lines, reasons := []int{}, []auditSkipJSON{}
	for _, sk := range l {
		lines = append(lines, sk.Line)
		reasons = append(reasons, auditSkipJSON{Line: sk.Line, Reason: sk.Err.Error()})
	}
	return lines, reasons
}

// auditLogFor loads the world and names the log a show or verify works on.
func auditLogFor(s *streams, global bool) (string, error) {
	w, err := loadWorld(s)
	if err != nil {
		return "", err
	}
	scopes, err := w.auditScopes(s)
	if err != nil {
		return "", err
	}
	return auditlog.Pick(scopes, global).Log, nil
}

func newAuditShowCmd(s *streams) *cobra.Command {
	var asJSON, global bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the audit log's valid entries and the lines skipped",
		Long: `show reads the audit log and validates every line. A line that is not
one JSON object with timestamp (RFC 3339), operation, filePath and source,
or that is over 1 MiB, holds a NUL byte or invalid UTF-8, or is dated in
the future, is skipped and listed by line number. With --json each entry
is printed as it was written, unknown fields included.

Exit 0, 4 when the log is untrusted (a symbolic link, not a regular file,
not yours, or writable by others) or busy.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := auditLogFor(s, global)
			if err != nil {
				return err
			}
			out := auditShowJSON{Log: anomaly.QuoteBytes([]byte(path)), Entries: []auditlog.Entry{}}
			l, err := auditlog.Read(path, auditlog.Options{})
			switch {
			case errors.Is(err, fs.ErrNotExist):
				l = &auditlog.Log{}
			case err != nil:
				return failure(err, exitInternal)
			default:
				out.Exists = true
			}
			out.Entries = append(out.Entries, l.Entries...)
			out.Skipped = l.SkippedLines()
			out.SkippedLines, out.SkippedReasons = auditSkips(l.Skipped)
			if asJSON {
				return writeJSON(s.out, out)
			}
			printAuditShow(s, &out, l)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&global, "global", false, "use the global roots' log")
	return cmd
}

func printAuditShow(s *streams, out *auditShowJSON, l *auditlog.Log) {
	if !out.Exists {
		fmt.Fprintf(s.out, "No audit log at %s.\n", out.Log)
		return
	}
	fmt.Fprintf(s.out, "%s: %d entries, %d lines skipped\n", out.Log, len(l.Entries), out.Skipped)
	if len(l.Entries) > 0 {
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LINE\tTIMESTAMP\tOPERATION\tSOURCE\tPATH")
		for _, e := range l.Entries {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", e.Line, e.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00"),
				e.Operation, anomaly.QuoteBytes([]byte(e.Source)), anomaly.QuoteBytes([]byte(e.FilePath)))
		}
		tw.Flush()
	}
	for _, sk := range out.SkippedReasons {
		fmt.Fprintf(s.out, "skipped line %d: %s\n", sk.Line, sk.Reason)
	}
	if more := out.Skipped - len(out.SkippedReasons); more > 0 {
		fmt.Fprintf(s.out, "and %d more skipped lines, not listed\n", more)
	}
}

type auditVerifyJSON struct {
	Log          string `json:"log"`
	Exists       bool   `json:"exists"`
	OK           bool   `json:"ok"`
	Lines        int    `json:"lines"`
	Chained      int    `json:"chained"`
	Unchained    int    `json:"unchained"`
	Skipped      int    `json:"skipped"`
	SkippedLines []int  `json:"skipped_lines"`
	BrokenLine   *int   `json:"broken_line"`
	Truncated    bool   `json:"truncated"`
}

func newAuditVerifyCmd(s *streams) *cobra.Command {
	var asJSON, global bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the chain of lines skillwire appended to the audit log",
		Long: `verify checks that every line carrying prev (the lines skillwire appended)
follows exactly the line whose SHA-256 it names, and that the last line is
complete. It reports the first broken link: the line before it was
changed, removed, or another inserted; or a first line with prev (lines
before it are gone). Lines without prev, written by other tools, are
counted as unchained, not as breaks. The chain shows damage and naive
edits; it cannot stop a writer who rewrites the whole file.

Exit 0 intact (or no log yet), 3 broken or truncated, 4 untrusted or busy.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := auditLogFor(s, global)
			if err != nil {
				return err
			}
			out := auditVerifyJSON{Log: anomaly.QuoteBytes([]byte(path)), OK: true, SkippedLines: []int{}}
			v, err := auditlog.Verify(path, auditlog.Options{})
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return failure(err, exitInternal)
			default:
				out.Exists, out.OK, out.Truncated = true, v.OK(), v.Truncated
				out.Lines, out.Chained, out.Unchained, out.Skipped = v.Lines, v.Chained, v.Unchained, v.SkippedLines()
				out.SkippedLines, _ = auditSkips(v.Skipped)
				if v.Broken > 0 {
					b := v.Broken
					out.BrokenLine = &b
				}
			}
			if asJSON {
				if err := writeJSON(s.out, out); err != nil {
					return err
				}
			} else {
				printAuditVerify(s, &out)
			}
			if !out.OK {
				return errFinding
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&global, "global", false, "use the global roots' log")
	return cmd
}

func printAuditVerify(s *streams, out *auditVerifyJSON) {
	if !out.Exists {
		fmt.Fprintf(s.out, "No audit log at %s: nothing to verify.\n", out.Log)
		return
	}
	fmt.Fprintf(s.out, "%s: %d lines, %d chained, %d unchained, %d skipped\n", out.Log, out.Lines, out.Chained, out.Unchained, out.Skipped)
	if out.BrokenLine != nil {
		fmt.Fprintf(s.out, "chain broken at line %d: the line before it was changed, removed or inserted\n", *out.BrokenLine)
	}
	if out.Truncated {
		fmt.Fprintf(s.out, "truncated: line %d has no newline (a write was cut short)\n", out.Lines)
	}
	if out.OK {
		fmt.Fprintln(s.out, "chain intact")
	}
}
