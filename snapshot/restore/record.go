package restore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// recordRestored writes a finished restore into the store. The target is
// kept as restored, the newest version. The candidate's record advances to
// the target's digest, so its verdict for that digest applies again. The
// caller keeps the displaced tree, whose content it staged.
func recordRestored(tx *baseline.Tx, r *Request) error {
	target := *r.Target
	// A microsecond after the displaced version, kept at r.Now. So history
	// lists the restored one first.
	target.How, target.At = baseline.HowRestored, r.Now.Add(time.Microsecond)
	target.Verdict, target.Reviewer = "", ""
	if err := tx.Versions().Keep(r.ID, target); err != nil {
		return err
	}
	d := r.Target.Digest
	if err := tx.Notes().Add(baseline.Note{ID: r.ID, Kind: baseline.NoteRestore, At: r.Now, Digest: &d,
		Text: "restored " + d.String() + " in place of " + r.Current.Digest.String()}); err != nil {
		return err
	}
	rec, err := tx.Record(r.ID)
	if err != nil {
		return err
	}
	restored := walker.Candidate{Name: r.Name, Kind: r.Current.Kind, Manifest: r.Target.Manifest, Digest: r.Target.Digest, Canonical: r.canon}
	if _, err = tx.Advance([]baseline.Standing{{ID: r.ID, Root: r.Root, Name: r.Name, State: baseline.Changed,
		Observed: &restored, Prior: rec}}, false, r.Now); err != nil || r.Target.Verdict != verdict.Safe {
		return err
	}
	// The person's review of exactly these bytes applies again. Advance
	// brings back the last review. An older one kept on the version is
	// recorded again, and so is one under a halt. A restore is a person's act:
	// like a verdict, it clears the halt.
	if rec, err = tx.Record(r.ID); err != nil || rec != nil && rec.Halt == nil && rec.Verdict != nil && rec.Verdict.Digest != nil && *rec.Verdict.Digest == d {
		return err
	}
	_, err = tx.RecordVerdict(baseline.Target{ID: r.ID, Root: r.Root, Name: r.Name, Observed: &restored, Expect: &d},
		baseline.Verdict{Verdict: verdict.Safe, Digest: &d, Reviewer: r.Target.Reviewer, At: r.Now, From: "restore"})
	return err
}

// recordUnverified notes, in the candidate's journal, an exchange whose
// result was not the target. Nothing is recorded as restored. The next
// observation tells what is in place as a change.
func recordUnverified(tx *baseline.Tx, r *Request, res *Result) error {
	d := res.InPlace
	return tx.Notes().Add(baseline.Note{ID: r.ID, Kind: baseline.NoteRestore, At: r.Now, Digest: &d,
		Text: "exchanged for a restore of " + r.Target.Digest.String() + " in place of " + r.Current.Digest.String() +
			", but the tree in place is " + d.String() + ": it changed during the restore; not restored"})
}

// LogFor is the audit log a restore's rollback entries go to: the log of
// pick, the scope auditlog.PickFor chose. A project's own log is written
// only when it is there already. A restore never makes a file in the
// person's repository (issue 32); the entries then go to global's log,
// in the configuration directory, when that is there. "" when neither
// may take them: the store's record of the restore stands.
func LogFor(pick, global auditlog.Scope) string {
	if !pick.ProjectLog {
		return pick.Log
	}
	if _, err := os.Lstat(pick.Log); err == nil {
		return pick.Log
	}
	if d, err := os.Lstat(filepath.Dir(global.Log)); global.ProjectLog || err != nil || !d.IsDir() {
		return "" // no configuration directory to make it in
	}
	return global.Log
}

// audit appends one rollback entry per file the restore changed to the log
// at path. The entry holds the file's path, and the SHA-256 of its
// restored content. A file the restore took away has none. A path the log
// cannot hold (not UTF-8) is counted in skipped, never written altered.
func audit(path string, r *Request, res *Result) (written, skipped int, err error) {
	if path == "" {
		return 0, 0, nil // LogFor: no log may take them; the store holds the restore
	}
	details, _ := json.Marshal(map[string]string{"restored": r.Target.Digest.String(), "displaced": r.Current.Digest.String()})
	base := r.Root.Path + "/" + string(r.Name)
	if res.written != nil {
		// A configuration file: one entry, the bytes written.
		if !utf8.ValidString(base) {
			return 0, 1, nil
		}
		_, err := auditlog.Append(path, auditlog.Entry{Operation: auditlog.Rollback, FilePath: base, SHA256: SHA256(res.written), Source: "skillwire", Details: details}, auditlog.Options{})
		if err != nil {
			return 0, 0, err
		}
		return 1, 0, nil
	}
	for _, c := range res.Changes {
		if c.New != nil && c.New.Kind != snapshot.File && (c.Old == nil || c.Old.Kind != snapshot.File) {
			continue // a directory: its files have their own entries
		}
		if c.New == nil && c.Old.Kind != snapshot.File {
			continue
		}
		p := base
		if len(c.Path) > 0 {
			p += "/" + string(c.Path)
		}
		if !utf8.ValidString(p) {
			skipped++
			continue
		}
		e := auditlog.Entry{Operation: auditlog.Rollback, FilePath: p, Source: "skillwire", Details: details}
		if c.New != nil && c.New.Kind == snapshot.File {
			e.SHA256 = SHA256(r.data[c.New.Hash])
		}
		if _, err := auditlog.Append(path, e, auditlog.Options{}); err != nil {
			return written, skipped, err
		}
		written++
	}
	return written, skipped, nil
}
