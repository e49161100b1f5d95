package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/snapshot/restore"
	"github.com/spf13/cobra"
)

type restoreJSON struct {
	Restored   string `json:"restored"`
	Digest     string `json:"digest"`
	Verified   bool   `json:"verified"`
	InPlace    string `json:"in_place"`
	Quarantine string `json:"quarantine,omitempty"`
	Beside     bool   `json:"quarantine_beside_root,omitempty"`
	// Stranded: the displaced tree could not be quarantined and is here.
	Stranded      string `json:"stranded,omitempty"`
	QuarantineErr string `json:"quarantine_error,omitempty"`
	// Backup: a settings or MCP file's copy as it was before the restore.
	Backup string `json:"backup,omitempty"`
}

func newRestoreCmd(s *streams) *cobra.Command {
	var asJSON bool
	var to, expect string
	var cf confirmFlags
	var bf budgetFlags
	cmd := &cobra.Command{
		Use:   "restore ID [--to DIGEST] [--expect-digest D] [--dry-run] [--yes]",
		Short: "Put a candidate back to its reviewed version",
		Long: `restore puts the candidate ID back to the version carrying its
SAFE-TO-PROPOSE verdict, else its first-use version, or to --to DIGEST (a
kept version's digest or unique prefix). It shows what it will change (as
'diff --stat') and asks, unless --yes; --dry-run only shows.

The restored tree is built beside the candidate, synced, and swapped in
with one atomic exchange; the displaced tree is moved into
<state>/quarantine/ (never deleted) and kept as a version. One rollback
entry per changed file goes to the audit log. Afterwards the candidate's
digest is the target's, and the verdict on it applies again.

Refused (exit 3), writing nothing in the watched tree: the candidate is no
longer --expect-digest, it is not fully observable (any anomaly), the
target is not restorable or its content is incomplete, a component of the
path is a symbolic link, or the staged tree
was replaced before the exchange (it is moved into quarantine).

After the exchange the candidate is walked again: when it is not the
target (a writer changed the staged tree), that is said, the store notes
it and does not record a restore (exit 3). When the displaced tree could
not be quarantined, the restore is recorded and where the displaced tree
is said (exit 1). Exit 4 when the store or the content store is untrusted
or an object is corrupt; 2 usage.

A settings or MCP candidate (settings.json, settings.local.json, managed
settings, .mcp.json, .claude.json) is one file: restore puts back the
keys its digest covers (every settings key but the noise ones, theme,
model, ...; .mcp.json's mcpServers; .claude.json's servers of the user and
of every project) and keeps every other key as it is now, through the
editor 'hook install' uses: it shows the change as a diff, asks, backs
the file up as <file>.skillwire-backup (or .N), writes it atomically
(never through a link), and observes it again: only the target's digest
is a restore. It writes no script: when a hook or helper script the
reviewed version runs differs now, restore refuses and names it (put it
back by hand; see 'skillwire diff ID'). Also refused (exit 3): the file is
now not one JSON object, repeats a key, is a link or oversize; managed
settings without root; a plugin registry.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := bf.config(cmd, s)
			if err != nil {
				return err
			}
			want, bad := expectDigest(expect)
			if bad != nil {
				return bad
			}
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			var pick []string
			if to != "" {
				pick = []string{to}
			}
			// The forms the store keeps beside the versions (delivered,
			// reviewed): a version kept before its form was is restored
			// from them.
			var forms [][]byte
			ref, _, target, err := w.version(args[0], func(tx *baseline.Tx, ref candidateRef) error {
				forms = [][]byte{tx.Extract(ref.id), tx.ReviewedExtract(ref.id)}
				return nil
			}, pick...)
			if err != nil {
				return err
			}
			if target == nil {
				return fail(exitUsage, "%s has no kept reviewed or first-use version; name one with --to (see 'skillwire history %s')", ref.id, ref.id)
			}
			cs, err := w.contentStore()
			if err != nil {
				return err
			}
			if cs != nil {
				defer cs.Close()
			}
			scopes, err := w.auditScopes(s)
			if err != nil {
				return err
			}
			r := &restore.Request{ID: ref.id, Root: ref.root, Name: ref.name, Expect: want, Target: target, Content: history.Forms(kept(cs, nil), forms...), Forms: forms,
				StateDir: w.stateDir, LockTimeout: w.timeout, Walk: cfg, Now: time.Now().UTC(),
				AuditLog: restore.LogFor(auditlog.PickFor(scopes, ref.root.Scope == claude.Global, ref.root.Path+"/"+string(ref.name)), auditlog.Pick(scopes, true))}
			o, err := restore.Do(cmd.Context(), r, func(p restore.Preview) (bool, error) {
				preview := s.out
				if asJSON {
					preview = s.err
				}
				if c := p.Config; c != nil {
					printConfigChange(preview, c)
				} else {
					printDiff(preview, &diffJSON{ID: ref.id, From: diffSideJSON{Digest: new(p.Current.Digest.String()), OnDisk: true},
						To: diffSideJSON{Digest: new(target.Digest.String())}, Files: filesJSON(p.Files)}, p.Files, true)
				}
				return cf.proceed(s, fmt.Sprintf("Restore %s to %s?", ref.id, target.Digest), "nothing was restored")
			})
			var refused *exitError
			switch {
			case errors.As(err, &refused):
				return err // the person's answer
			case err != nil:
				return failure(err, exitFinding)
			case o.Already:
				fmt.Fprintf(s.out, "%s is already %s; nothing to restore\n", ref.id, target.Digest)
				return nil
			case o.Result == nil:
				return nil // a dry run
			}
			return reportRestore(s, r, &o, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&to, "to", "", "the kept version to restore (digest or unique prefix)")
	cmd.Flags().StringVar(&expect, "expect-digest", "", "refuse unless the candidate is still this digest (the one previewed)")
	cf.register(cmd, "restore without asking", "show what would change, change nothing")
	bf.add(cmd)
	return cmd
}

// reportRestore says what a restore that made the exchange did, in its
// exit code too.
func reportRestore(s *streams, r *restore.Request, o *restore.Outcome, asJSON bool) error {
	res := o.Result
	if o.StoreErr != nil {
		return fail(exitNoAudit, "the candidate was exchanged (it is %s), but the store was not updated: %s", res.InPlace, defang(o.StoreErr.Error()))
	}
	if o.AuditErr != nil {
		return fail(exitCode(o.AuditErr, exitNoAudit), "restored, but the audit log was not written: %s", defang(o.AuditErr.Error()))
	}
	if o.Skipped > 0 {
		fmt.Fprintf(s.err, "skillwire: %d rollback entr(ies) not logged: their paths are not UTF-8\n", o.Skipped)
	}
	if o.EventErr != nil {
		fmt.Fprintf(s.err, "skillwire: the fleet event of the restore was not written: %s\n", defang(o.EventErr.Error()))
	}
	out := restoreJSON{Restored: r.ID, Digest: r.Target.Digest.String(), Verified: res.Verified, InPlace: res.InPlace.String(),
		Quarantine: res.Quarantine, Beside: res.Beside, Stranded: res.Stranded, Backup: res.Backup}
	if res.QuarantineErr != nil {
		out.QuarantineErr = res.QuarantineErr.Error()
	}
	if asJSON {
		if err := writeJSON(s.out, out); err != nil {
			return err
		}
	} else {
		printRestore(s, &out)
	}
	switch {
	case !res.Verified && res.Backup != "":
		return fail(exitFinding, "the file was written, but the candidate is now %s, not %s: it changed during the restore; not recorded as restored (what was there before is in %s)",
			res.InPlace, r.Target.Digest, anomaly.QuoteBytes([]byte(res.Backup)))
	case !res.Verified:
		return fail(exitFinding, "the tree in place is %s, not %s: it changed during the restore; not recorded as restored", res.InPlace, r.Target.Digest)
	case res.Stranded != "":
		return fail(exitInternal, "restored; the displaced tree could not be quarantined: %s, it is at %s",
			defang(res.QuarantineErr.Error()), anomaly.QuoteBytes([]byte(res.Stranded)))
	case res.QuarantineErr != nil:
		return fail(exitInternal, "restored; the quarantine of the displaced tree was not synced: %s", defang(res.QuarantineErr.Error()))
	}
	return nil
}

// printRestore says what was done, and where the displaced tree is.
func printRestore(s *streams, out *restoreJSON) {
	if out.Backup != "" {
		if out.Verified {
			fmt.Fprintf(s.out, "restored %s to %s\n", out.Restored, out.Digest)
		} else {
			fmt.Fprintf(s.out, "wrote %s for %s, but it is now %s\n", out.Restored, out.Digest, out.InPlace)
		}
		fmt.Fprintf(s.out, "backup of the previous file: %s\n", anomaly.QuoteBytes([]byte(out.Backup)))
		return
	}
	if out.Verified {
		fmt.Fprintf(s.out, "restored %s to %s\n", out.Restored, out.Digest)
	} else {
		fmt.Fprintf(s.out, "exchanged %s for %s, but the tree in place is %s\n", out.Restored, out.Digest, out.InPlace)
	}
	switch {
	case out.Stranded != "":
		fmt.Fprintf(s.out, "the displaced tree could not be quarantined; it is at %s\n", anomaly.QuoteBytes([]byte(out.Stranded)))
	case out.Beside:
		fmt.Fprintf(s.out, "the displaced tree is in %s\n(beside the root: the state directory is on another filesystem)\n", anomaly.QuoteBytes([]byte(out.Quarantine)))
	default:
		fmt.Fprintf(s.out, "the displaced tree is in %s\n", anomaly.QuoteBytes([]byte(out.Quarantine)))
	}
}

func filesJSON(ds []history.FileDiff) []fileDiffJSON {
	out := make([]fileDiffJSON, len(ds))
	for i := range ds {
		out[i] = fileJSON(&ds[i], true)
	}
	return out
}

// printConfigChange shows the edit a settings or MCP restore writes, as
// hook install shows its own.
func printConfigChange(w io.Writer, c *restore.ConfigChange) {
	fmt.Fprintf(w, "restore rewrites %s: its reviewed keys back, every other key as it is now\n", anomaly.QuoteBytes([]byte(c.Path)))
	if c.Reformatted {
		fmt.Fprintln(w, "note: the file is rewritten with two-space indentation; elsewhere only its whitespace changes")
	}
	if c.Mode != nil {
		fmt.Fprintf(w, "its mode becomes %04o, the reviewed file's\n", uint32(*c.Mode))
	}
	writeDiff(w, c.Before, c.After)
}
