package monitor

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// The integrity check: every file-level change since a candidate's last
// delivered observation is reconciled with the audit log, so a change a
// tool announced is told apart from one nobody did (possible tampering or
// data poisoning).

// AuditScope is what relative paths in a log are relative to, and the
// roots the log speaks for.
type AuditScope struct {
	// Base: a relative filePath is Base + "/" + filePath, joined as text.
	Base string
	// Roots are root paths; an entry naming anything else never matches.
	Roots []string
}

// AuditSource is one audit log as read, with the scopes it speaks for
// (two when one log, $SKILLWIRE_AUDIT_LOG, serves the global and the
// project roots).
type AuditSource struct {
	Entries []auditlog.Entry
	Scopes  []AuditScope
}

// ReconcileCandidate is one stored candidate: what was last delivered, and
// what is there now.
type ReconcileCandidate struct {
	ID   string
	Root string // the root's path, as the store has it
	Name []byte
	// Since is when Stored was delivered: only an entry after it can
	// explain a change.
	Since time.Time
	// Stored and Current are nil for a candidate that is absent. A partial
	// manifest is never diffed: the candidate is reported incomplete.
	Stored, Current *snapshot.Manifest
}

// ReconcileInput is everything Reconcile looks at.
type ReconcileInput struct {
	Candidates []ReconcileCandidate
	Sources    []AuditSource
	// Now bounds timestamps from above (with auditlog.ClockSkew).
	Now time.Time
	// Limits bound the SHA-256 of the files whose entries carry one;
	// zero means walker.DefaultLimits.
	Limits walker.Limits
}

// Mismatch says why a change is unexpected.
type Mismatch string

const (
	MismatchNoEntry   Mismatch = "no-entry"  // no entry names the file
	MismatchStale     Mismatch = "stale"     // every entry naming it is from before the observation, or from the future
	MismatchOperation Mismatch = "operation" // no entry's operation fits the change
	MismatchSHA256    Mismatch = "sha256"    // the last entry's sha256 is not the file's content now
	MismatchState     Mismatch = "state"     // the last entry says deleted and the file is there, or the reverse
)

// ReconciledChange is one change and its verdict.
type ReconciledChange struct {
	Candidate string // id
	Change    snapshot.Change
	Expected  bool
	Why       Mismatch // "" when expected
	// Implied: expected without an entry of its own: inside a directory
	// whose deletion was announced, or a directory added or removed with
	// everything below it announced.
	Implied bool
	// Entry is the entry that explains the change or, for an unexpected
	// one, the last entry naming the file; nil when none.
	Entry *auditlog.Entry
}

// Reconciliation is the result of Reconcile.
type Reconciliation struct {
	Changes    []ReconciledChange
	Unexpected int
	// Suspicious counts entries whose path has a ".", ".." or empty
	// component, or lies outside the roots their log speaks for: they
	// never match anything.
	Suspicious int
	// Incomplete lists candidates whose stored or current manifest is
	// partial: they could not be compared.
	Incomplete []string
}

// Reconcile diffs every candidate and reconciles each change with the
// audit log. A change is expected only when:
//
//   - an entry names the same file: its filePath, taken relative to the
//     scope's Base when relative, equals the file's path byte for byte
//     (nothing is cleaned; "." and ".." never match);
//   - its timestamp lies after the candidate's observation and not beyond
//     Now plus auditlog.ClockSkew;
//   - one such entry's operation fits the change: create for added;
//     update, refine, migrate or rollback for modified or mode; delete for
//     removed;
//   - and the last such entry (in log order) agrees with the disk: a
//     delete only for a file that is gone (its sha256, if any, describes
//     no content and is not compared), any other operation only for a
//     file that is there and, when the entry has sha256, whose SHA-256 now
//     equals it (computed by the walker, for just these files; a file it
//     cannot hash matches no hash).
//
// Two kinds of change are implied rather than announced, when no entry in
// the window names them at all: anything under a directory (or candidate)
// whose removal is expected through a delete; and a directory (or
// candidate) added or removed with at least one change of that type below
// it, every one of them expected. Everything else is unexpected.
func Reconcile(in ReconcileInput) Reconciliation {
	if in.Limits.MaxDepth == 0 {
		in.Limits = walker.DefaultLimits
	}
	r := reconciler{in: in, index: map[string][]indexed{}}
	var out Reconciliation
	out.Suspicious = r.buildIndex()
	for i := range in.Candidates {
		c := &in.Candidates[i]
		if c.Stored != nil && c.Stored.Partial || c.Current != nil && c.Current.Partial {
			out.Incomplete = append(out.Incomplete, c.ID)
			continue
		}
		for _, rc := range r.candidate(c) {
			if !rc.Expected {
				out.Unexpected++
			}
			out.Changes = append(out.Changes, rc)
		}
	}
	return out
}

type reconciler struct {
	in ReconcileInput
	// index maps root + "\x00" + resolved path to the entries naming it,
	// in log order.
	index map[string][]indexed
}

type indexed struct {
	e          *auditlog.Entry
	src, order int
}

// buildIndex files every entry under the path it names within each scope,
// and counts the suspicious ones.
func (r *reconciler) buildIndex() (suspicious int) {
	for s := range r.in.Sources {
		src := &r.in.Sources[s]
		for i := range src.Entries {
			e := &src.Entries[i]
			named := false
			for _, sc := range src.Scopes {
				if root, rel, ok := sc.Locate(e.FilePath); ok {
					k := root + "\x00" + rel
					r.index[k] = append(r.index[k], indexed{e: e, src: s, order: i})
					named = true
				}
			}
			if !named {
				suspicious++
			}
		}
	}
	for _, l := range r.index {
		slices.SortStableFunc(l, func(a, b indexed) int {
			if a.src != b.src {
				return a.src - b.src
			}
			return a.order - b.order
		})
	}
	return suspicious
}

// AuditPathDotted reports a filePath spelled with a ".", ".." or empty
// component: such a spelling names a file only through a resolution
// skillwire never makes, so it never matches anything.
func AuditPathDotted(p string) bool {
	for i, c := range strings.Split(p, "/") {
		if c == "." || c == ".." || c == "" && (i > 0 || len(p) == 1) {
			return true
		}
	}
	return false
}

// Locate finds the file an entry's filePath names in this scope: the root
// it lies strictly inside, and its path below that root (the candidate's
// name first). A relative filePath is joined to Base as text; nothing is
// cleaned. ok is false for a dotted spelling and for a file outside the
// roots.
func (sc AuditScope) Locate(filePath string) (root, rel string, ok bool) {
	if filePath == "" || AuditPathDotted(filePath) {
		return "", "", false
	}
	p := filePath
	if !strings.HasPrefix(p, "/") {
		p = strings.TrimRight(sc.Base, "/") + "/" + p
	}
	for _, r := range sc.Roots {
		if rest, found := strings.CutPrefix(p, strings.TrimRight(r, "/")+"/"); found && rest != "" {
			return r, rest, true
		}
	}
	return "", "", false
}

// candidate reconciles the changes of one candidate.
func (r *reconciler) candidate(c *ReconcileCandidate) []ReconciledChange {
	changes := snapshot.Diff(c.Stored, c.Current)
	out := make([]ReconciledChange, len(changes))
	windowed := make([]bool, len(changes))
	// Top-down: parents precede children in manifest order, so a removed
	// directory's verdict is known before its contents are judged.
	deleted := map[string]bool{}
	for i, ch := range changes {
		rc := &out[i]
		*rc = ReconciledChange{Candidate: c.ID, Change: ch}
		all, win := r.entries(c, ch.Path)
		windowed[i] = len(win) > 0
		r.judge(c, rc, all, win)
		if !rc.Expected && !windowed[i] && ch.Type == snapshot.Removed && len(ch.Path) > 0 && deleted[string(parentPath(ch.Path))] {
			rc.Expected, rc.Implied, rc.Why, rc.Entry = true, true, "", nil
		}
		if rc.Expected && ch.Type == snapshot.Removed && (rc.Implied || rc.Entry != nil && rc.Entry.Operation == auditlog.Delete) {
			deleted[string(ch.Path)] = true
		}
	}
	// Bottom-up: a directory added or removed with everything below it.
	for i := len(changes) - 1; i >= 0; i-- {
		ch := &changes[i]
		rc := &out[i]
		if rc.Expected || windowed[i] || !isDir(ch) || ch.Type != snapshot.Added && ch.Type != snapshot.Removed {
			continue
		}
		n, all := 0, true
		for j := i + 1; j < len(changes) && isBelow(changes[j].Path, ch.Path); j++ {
			if changes[j].Type == ch.Type {
				n++
				all = all && out[j].Expected
			}
		}
		if n > 0 && all {
			rc.Expected, rc.Implied, rc.Why, rc.Entry = true, true, "", nil
		}
	}
	return out
}

func isDir(ch *snapshot.Change) bool {
	e := ch.New
	if e == nil {
		e = ch.Old
	}
	return e.Kind == snapshot.Dir
}

func parentPath(p []byte) []byte {
	if i := bytes.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return nil
}

// isBelow reports whether q is inside directory p of the same candidate
// ("" is the candidate itself).
func isBelow(q, p []byte) bool {
	if len(p) == 0 {
		return len(q) > 0
	}
	return len(q) > len(p) && q[len(p)] == '/' && bytes.HasPrefix(q, p)
}

// entries returns the entries naming the file at path of c, all of them
// and those inside the window, in log order.
func (r *reconciler) entries(c *ReconcileCandidate, path []byte) (all, win []*auditlog.Entry) {
	k := c.Root + "\x00" + string(c.Name)
	if len(path) > 0 {
		k += "/" + string(path)
	}
	limit := r.in.Now.Add(auditlog.ClockSkew)
	for _, ix := range r.index[k] {
		all = append(all, ix.e)
		if ix.e.Timestamp.After(c.Since) && !ix.e.Timestamp.After(limit) {
			win = append(win, ix.e)
		}
	}
	return all, win
}

// judge applies the direct rule.
func (r *reconciler) judge(c *ReconcileCandidate, rc *ReconciledChange, all, win []*auditlog.Entry) {
	switch {
	case len(all) == 0:
		rc.Why = MismatchNoEntry
		return
	case len(win) == 0:
		rc.Why, rc.Entry = MismatchStale, all[len(all)-1]
		return
	}
	last := win[len(win)-1]
	rc.Entry = last
	var fit *auditlog.Entry
	for _, e := range win {
		if fits(e.Operation, rc.Change.Type) {
			fit = e
		}
	}
	if fit == nil {
		rc.Why = MismatchOperation
		return
	}
	gone := rc.Change.Type == snapshot.Removed
	switch {
	case (last.Operation == auditlog.Delete) != gone:
		rc.Why = MismatchState
		return
	case !gone && last.SHA256 != "" && !r.contentIs(c, &rc.Change, last.SHA256):
		rc.Why = MismatchSHA256
		return
	}
	rc.Expected = true
	if !fits(last.Operation, rc.Change.Type) {
		rc.Entry = fit
	}
}

func fits(op auditlog.Operation, t snapshot.ChangeType) bool {
	switch op {
	case auditlog.Create:
		return t == snapshot.Added
	case auditlog.Update, auditlog.Refine, auditlog.Migrate, auditlog.Rollback:
		return t == snapshot.Modified || t == snapshot.ModeChanged
	case auditlog.Delete:
		return t == snapshot.Removed
	}
	return false
}

// contentIs reports whether the changed file's content now has SHA-256
// want. Only a regular file has content; anything the walker cannot hash
// does not match.
func (r *reconciler) contentIs(c *ReconcileCandidate, ch *snapshot.Change, want string) bool {
	if ch.New == nil || ch.New.Kind != snapshot.File {
		return false
	}
	sum, reason, err := walker.SHA256(c.Root, c.Name, ch.Path, r.in.Limits)
	return err == nil && reason == 0 && hex.EncodeToString(sum[:]) == want
}
