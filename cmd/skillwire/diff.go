package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/review"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

type diffJSON struct {
	ID    string         `json:"id"`
	From  diffSideJSON   `json:"from"`
	To    diffSideJSON   `json:"to"`
	Files []fileDiffJSON `json:"files"`
	// AuditProblem says why the audit logs could not be read (every
	// file's class is then "unknown"); null when they were.
	AuditProblem *string `json:"audit_problem"`
	// Findings are the content findings of the added and modified files,
	// against the FROM side: facts for a reviewer, never a verdict.
	Findings []findings.Finding `json:"findings"`
}

type diffSideJSON struct {
	// Digest is null for a FROM of nothing: a candidate never reviewed.
	Digest *string `json:"digest"`
	Kept   *bool   `json:"kept,omitempty"`
	OnDisk bool    `json:"on_disk,omitempty"`
}

type fileDiffJSON struct {
	// Path, Change, Class and Source are the one vocabulary of a changed
	// file in check, status and diff: Class is the TO side's bytes
	// reconciled with the audit logs (reconcile.Run), as check does it.
	Path    string          `json:"path"`
	Change  string          `json:"change"`
	Class   reconcile.Class `json:"class"`
	Source  *string         `json:"source"`
	OldHash *string         `json:"old_hash"`
	NewHash *string         `json:"new_hash"`
	OldMode *string         `json:"old_mode"`
	NewMode *string         `json:"new_mode"`
	OldSize *int64          `json:"old_size,omitempty"`
	NewSize *int64          `json:"new_size,omitempty"`
	Binary  bool            `json:"binary"`
	Unkept  bool            `json:"unkept,omitempty"`
	Diff    string          `json:"diff"`
}

func newDiffCmd(s *streams) *cobra.Command {
	var asJSON, stat bool
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "diff ID [FROM [TO]]",
		Short: "Show how a candidate changed, file by file",
		Long: `diff shows how the candidate ID changed: per file added, removed, modified
or mode, a unified diff for text, size and hash for binary files.

FROM defaults to the version carrying the candidate's SAFE-TO-PROPOSE
verdict, else its first-use version; a new version of a plugin without a
review of its own starts from the version it replaces (the one Claude
Code's installed_plugins.json named), reviewed, else first-use, whether
that version's folder is still in the cache or gone. A candidate that has
none of these (new since the first run, never reviewed) is diffed from
nothing: every file is shown added, whole, since all of it is to be
reviewed ("from" is then {"digest": null, "kept": false} in JSON). TO defaults to what is on disk now,
observed afresh. FROM and TO take a kept version's digest or a unique
prefix of it (see 'skillwire history ID').

A settings or MCP candidate is kept as its canonical extract (the keys
Claude Code acts on), not its file: its diff compares the extracts of the
reviewed or delivered version and of what is on disk, pretty-printed with
sorted keys; a version whose extract is no longer kept shows "content not
kept".

Contents and paths are attacker text: every byte that is not printable
UTF-8, tab or newline is shown escaped (\x1b, \u202e), and lines over 4 KiB
are cut with a marker.

Then: 'skillwire record ID --verdict ... --expect-digest D' to accept what
is on disk, or 'skillwire restore ID' to put the reviewed version back.

Exit 0 no difference, 3 differences, 2 usage error, 4 store or content
store unusable (a corrupt object is never shown).`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			// The canonical forms the store keeps: the one last delivered, and
			// the one reviewed SAFE (nil when none). Also the reference check
			// measures changes against, for the time they are measured since.
			var forms [][]byte
			var start *baseline.Version // FROM when none is named (history.From)
			var reference *baseline.Reference
			ref, vs, from, err := w.version(args[0], func(tx *baseline.Tx, ref candidateRef) error {
				forms = [][]byte{tx.Extract(ref.id), tx.ReviewedExtract(ref.id)}
				var err error
				if reference, err = tx.Reviews().Reference(ref.id); err != nil {
					return err
				}
				if len(args) == 1 {
					start, err = history.From(tx, ref.root, ref.name, ref.id)
				}
				return err
			}, args[1:min(2, len(args))]...)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				from = start
			}
			stage := history.Attach(&cfg)
			out := diffJSON{ID: ref.id, From: diffSideJSON{Kept: new(false)}}
			var fromM *snapshot.Manifest // nil: from nothing, every file added
			if from != nil {
				fromM, out.From = &from.Manifest, diffSideJSON{Digest: new(from.Digest.String()), Kept: &from.Restorable}
			}
			var to *snapshot.Manifest
			if len(args) > 2 {
				v, err := pickVersion(vs, args[2])
				if err != nil {
					return err
				}
				to, out.To = &v.Manifest, diffSideJSON{Digest: new(v.Digest.String())}
			} else {
				c := walker.ObserveIn(cmd.Context(), ref.root.Spec(), ref.name, cfg)
				d := baseline.DigestOf(&c)
				if d == nil {
					return fail(exitFinding, "%s could not be fully observed (partial); nothing to compare", ref.id)
				}
				to, out.To = &c.Manifest, diffSideJSON{Digest: new(d.String()), OnDisk: true}
				forms = append(forms, c.Canonical)
			}
			cs, err := w.contentStore()
			if err != nil {
				return err
			}
			if cs != nil {
				defer cs.Close()
			}
			names := ref.root.BoundNames(ref.name, forms...)
			roots := review.ConfigRoots(ref.root, ref.name, fromM, to)
			oldC, newC := history.Canonical(kept(cs, nil), roots, forms...), history.Canonical(kept(cs, stage), roots, forms...)
			ds, err := history.Diff(fromM, to, oldC, newC, names)
			if err != nil {
				return failure(err, exitNoAudit)
			}
			out.Findings = nonNil(review.DiffFindings(fromM, to, oldC, newC, ref.name, ds))
			rec := reconcile.Candidate{ID: ref.id, Root: ref.root.Path, Name: ref.name, Stored: fromM, Current: to, Names: names}
			if from != nil {
				rec.Since = diffSince(from, reference)
			}
			classes, problem := w.diffClasses(s, rec, cfg.Limits, kept(cs, stage))
			if problem != "" {
				out.AuditProblem = &problem
			}
			out.Files = []fileDiffJSON{}
			for _, d := range ds {
				j := fileJSON(&d, stat)
				j.Class = reconcile.ClassUnknown
				if rc, ok := classes[string(d.RawPath)]; ok && problem == "" {
					j.Class = rc.Worth()
					if src, ok := rc.Source(); ok {
						j.Source = &src
					}
				}
				out.Files = append(out.Files, j)
			}
			if asJSON {
				err = writeJSON(s.out, out)
			} else {
				printDiff(s.out, &out, ds, stat)
			}
			if err == nil && len(ds) > 0 {
				err = errFinding
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&stat, "stat", false, "list the files and their line counts only")
	bf.add(cmd)
	return cmd
}

// diffSince is when the changes from version from are measured since.
// When from is check's reference (reviewed, or first used), its time. Else
// when from was last kept. Only an audit entry after it explains one.
func diffSince(from *baseline.Version, ref *baseline.Reference) time.Time {
	if ref != nil && ref.Digest == from.Digest {
		return ref.At
	}
	return from.At
}

// diffClasses reconciles c's changes with the audit logs as check does
// (reconcile.Run). The TO side's bytes come from content, each change by
// its raw path. problem says why the logs could not be read, "" when they
// were. Then no class is known.
func (w *world) diffClasses(s *streams, c reconcile.Candidate, lim walker.Limits, content history.Content) (map[string]reconcile.Change, string) {
	src, problem := w.readAudit(s)
	if problem != "" {
		return nil, problem
	}
	sizes := map[snapshot.Hash]int64{}
	for _, e := range c.Current.Entries {
		if e.Kind == snapshot.File {
			sizes[e.Hash] = e.Size
		}
	}
	res := reconcile.Run(reconcile.Input{Candidates: []reconcile.Candidate{c}, Sources: src, Now: time.Now(), Limits: lim,
		Content: func(h snapshot.Hash) ([]byte, bool) {
			b, ok, err := content(h, sizes[h])
			return b, ok && err == nil
		}})
	out := make(map[string]reconcile.Change, len(res.Changes))
	for _, rc := range res.Changes {
		out[string(rc.Change.Path)] = rc
	}
	return out, ""
}

func fileJSON(d *history.FileDiff, stat bool) fileDiffJSON {
	j := fileDiffJSON{Path: d.Path, Change: d.Change.String(), Binary: d.Binary, Unkept: d.Unkept}
	if !stat {
		j.Diff = d.Diff
	}
	side := func(e *snapshot.Entry, hash, mode **string, size **int64) {
		if e == nil {
			return
		}
		if e.Kind == snapshot.File {
			h := e.Hash.String()
			*hash, *size = &h, &e.Size
		}
		if e.Kind == snapshot.File || e.Kind == snapshot.Dir {
			m := fmt.Sprintf("%04o", e.Mode)
			*mode = &m
		}
	}
	side(d.Old, &j.OldHash, &j.OldMode, &j.OldSize)
	side(d.New, &j.NewHash, &j.NewMode, &j.NewSize)
	return j
}

// printDiff renders a diff for a terminal. Everything in it is escaped
// already: history.Diff escapes paths and text.
func printDiff(w io.Writer, out *diffJSON, ds []history.FileDiff, stat bool) {
	from, to := "nothing (never reviewed)", *out.To.Digest
	if out.From.Digest != nil {
		from = *out.From.Digest
	}
	if out.To.OnDisk {
		to += " (on disk)"
	}
	fmt.Fprintf(w, "%s: from %s to %s\n", out.ID, from, to)
	for i, d := range ds {
		f := &out.Files[i]
		fmt.Fprintf(w, "%-8s %s%s\n", f.Change, d.Path, detail(f, &d))
		if !stat && d.Diff != "" {
			io.WriteString(w, d.Diff)
			if !strings.HasSuffix(d.Diff, "\n") {
				fmt.Fprintln(w)
			}
		}
	}
	added, removed, modified := history.Stat(ds)
	fmt.Fprintf(w, "%d file(s) changed: %d added, %d removed, %d modified\n", len(ds), added, removed, modified)
	switch {
	case len(out.Findings) == 0:
	case stat: // no text: the count of each kind
		var kinds []string
		for _, k := range findings.Kinds {
			if n := findings.Count(out.Findings, k); n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
			}
		}
		fmt.Fprintf(w, "findings: %s\n", strings.Join(kinds, ", "))
	default:
		fmt.Fprintf(w, "findings (%d), facts for a reviewer, never a verdict:\n", len(out.Findings))
		for _, f := range out.Findings {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
}

func detail(f *fileDiffJSON, d *history.FileDiff) string {
	var parts []string
	switch {
	case d.Binary:
		parts = append(parts, "binary")
		if f.OldSize != nil {
			parts = append(parts, fmt.Sprintf("%d bytes %s", *f.OldSize, *f.OldHash))
		}
		if f.NewSize != nil {
			parts = append(parts, fmt.Sprintf("-> %d bytes %s", *f.NewSize, *f.NewHash))
		}
	case d.Unkept:
		parts = append(parts, "content not kept")
	case d.Diff != "":
		parts = append(parts, fmt.Sprintf("+%d -%d", d.Added, d.Deleted))
	}
	if f.OldMode != nil && f.NewMode != nil && *f.OldMode != *f.NewMode {
		parts = append(parts, fmt.Sprintf("mode %s -> %s", *f.OldMode, *f.NewMode))
	}
	if d.Old != nil && d.New != nil && d.Old.Kind != d.New.Kind {
		parts = append(parts, fmt.Sprintf("%s -> %s", kindText(d.Old), kindText(d.New)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}

func kindText(e *snapshot.Entry) string {
	if e.Kind == snapshot.Anomaly {
		return "anomaly " + anomaly.Escape([]byte(e.Reason.String()))
	}
	return e.Kind.String()
}
