package session

import (
	"errors"
	"fmt"
	"github.com/skillwire/skillwire/auditlog"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/reconcile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Reconciliation is one candidate's file changes since the version a
// person reviewed (else its first-use version), each reconciled with the
// audit logs.
type Reconciliation struct {
	Changes []reconcile.Change
	// Incomplete: a manifest was partial, so the changes are unknown.
	Incomplete bool
	// Against says what the changes are measured against: baseline.RefReview,
	// RefFirstUse, RefDelivered, or "" for a candidate never seen before.
	Against string
	// Reference is the manifest they are measured against, nil for none.
	Reference *snapshot.Manifest
}

// Subjects is what reconciliation compares: per candidate, its reference
// and what is there now.
type Subjects struct {
	Candidates []reconcile.Candidate
	Against    map[string]string
	// Content returns kept bytes by BLAKE3 (nil: none kept): an audit
	// entry's sha256 is checked against the observed content's.
	Content func(snapshot.Hash) ([]byte, bool)
}

// Wanted reports whether st's changes are reconciled: what a session is
// told as changed or new, and what is pending.
func Wanted(st *baseline.Standing) bool {
	if st.ID == "" || st.Observed == nil {
		return false
	}
	_, delta := deltaOf(st)
	return delta && st.State != baseline.Removed || isPending(st)
}

// ReadSubjects reads, for every wanted standing, the reference its
// changes are measured against. Nothing is read for the others: the
// session start without changes stays as fast as before.
func ReadSubjects(tx *baseline.Tx, sts []baseline.Standing) (Subjects, error) {
	return readSubjects(tx, sts, false)
}

// ReadDifferingSubjects is ReadSubjects for every standing that differs
// from its reference, delivered already or not: what scan shows as each
// candidate's changes (DESIGN.md §7). A candidate never reviewed and not
// accepted on first use differs from nothing: all of it is added.
func ReadDifferingSubjects(tx *baseline.Tx, sts []baseline.Standing) (Subjects, error) {
	return readSubjects(tx, sts, true)
}

func readSubjects(tx *baseline.Tx, sts []baseline.Standing, differing bool) (Subjects, error) {
	sub := Subjects{Against: map[string]string{}}
	for i := range sts {
		st := &sts[i]
		wanted := Wanted(st)
		if !wanted && (!differing || st.ID == "" || st.Observed == nil || st.State == baseline.Removed || st.Digest() == nil) {
			continue
		}
		c := reconcile.Candidate{ID: st.ID, Root: st.Root.Path, Name: st.Name, Current: &st.Observed.Manifest}
		ref, err := tx.Reference(st.ID)
		if err != nil {
			return sub, err
		}
		if st.Prior != nil && st.Prior.Removed {
			ref = nil // back after its removal: measured against nothing
		}
		if d := st.Digest(); ref != nil && d != nil && *d == ref.Digest {
			continue // back to its reference: nothing to reconcile
		}
		sub.add(c, ref)
	}
	return sub, nil
}

// add lists c as a subject measured against ref (nil: against nothing).
func (s *Subjects) add(c reconcile.Candidate, ref *baseline.Reference) {
	if ref != nil {
		c.Stored, c.Since = ref.Manifest, ref.At
		s.Against[c.ID] = ref.How
	}
	s.Candidates = append(s.Candidates, c)
}

// Reconcile reconciles every subject with the audit logs.
func (s Subjects) Reconcile(src []reconcile.Source, now time.Time, lim walker.Limits) map[string]*Reconciliation {
	out := make(map[string]*Reconciliation, len(s.Candidates))
	if len(s.Candidates) == 0 {
		return out
	}
	res := reconcile.Run(reconcile.Input{Candidates: s.Candidates, Sources: src, Now: now, Limits: lim, Content: s.Content})
	for _, c := range s.Candidates {
		out[c.ID] = &Reconciliation{Against: s.Against[c.ID], Reference: c.Stored}
	}
	for _, id := range res.Incomplete {
		out[id].Incomplete = true
	}
	for _, ch := range res.Changes {
		out[ch.Candidate].Changes = append(out[ch.Candidate].Changes, ch)
	}
	return out
}

// Files is the reconciliation in the JSON contract's shape (DESIGN.md §7):
// paths through the display gate, sources only when they pass it.
func (r *Reconciliation) Files() []baseline.FileChange {
	out := make([]baseline.FileChange, 0, len(r.Changes))
	for i := range r.Changes {
		ch := &r.Changes[i]
		fc := baseline.FileChange{Path: DisplayPath(ch.Change.Path), Change: ch.Change.Type.String(), Class: string(classOf(ch))}
		if s, ok := sourceOf(ch); ok {
			fc.Source = &s
		}
		out = append(out, fc)
	}
	return out
}

func classOf(ch *reconcile.Change) reconcile.Class {
	if !ch.Expected {
		return reconcile.ClassUnexpected
	}
	return ch.Class
}

// sourceOf is the audit entry's source when the change is explained and
// the source passes the display gate (a project's log is written by
// whoever wrote the repository).
func sourceOf(ch *reconcile.Change) (string, bool) {
	if !ch.Expected || ch.Entry == nil || !anomaly.Gate([]byte(ch.Entry.Source)) {
		return "", false
	}
	return ch.Entry.Source, true
}

// maxPathShown bounds one path in a session's text; a longer one is shown
// by its label.
const maxPathShown = 160

// DisplayPath shows a path inside a candidate only when every component
// passes the display gate; otherwise by its label, never its bytes.
func DisplayPath(p []byte) string {
	if len(p) == 0 || len(p) > maxPathShown || !anomaly.GatePath(p) {
		return anomaly.PathLabel(p)
	}
	return string(p)
}

// maxFilesNamed is how many changed files one advisory line names.
const maxFilesNamed = 5

var typeOrder = []snapshot.ChangeType{snapshot.Modified, snapshot.Added, snapshot.Removed, snapshot.ModeChanged}

var typeWords = map[snapshot.ChangeType]string{snapshot.Modified: "modified", snapshot.Added: "added",
	snapshot.Removed: "removed", snapshot.ModeChanged: "changed in mode"}

// Summary sums a reconciliation up in one line of fixed templates:
// "2 files modified, not announced in any audit log: a, b; see skillwire
// diff ID".
func (r *Reconciliation) Summary(id string) string {
	if r.Incomplete {
		return "its file changes are unknown: it could not be fully observed"
	}
	files := r.files()
	if len(files) == 0 {
		return ""
	}
	var counts []string
	for _, t := range typeOrder {
		n := 0
		for i := range files {
			if files[i].Change.Type == t {
				n++
			}
		}
		switch {
		case n == 0:
		case len(counts) == 0 && n == 1:
			counts = append(counts, "1 file "+typeWords[t])
		case len(counts) == 0:
			counts = append(counts, fmt.Sprintf("%d files %s", n, typeWords[t]))
		default:
			counts = append(counts, fmt.Sprintf("%d %s", n, typeWords[t]))
		}
	}
	var paths []string
	for i := range files[:min(len(files), maxFilesNamed)] {
		paths = append(paths, DisplayPath(files[i].Change.Path))
	}
	list := strings.Join(paths, ", ")
	if n := len(files) - len(paths); n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	since := ""
	if r.Against == baseline.RefReview {
		since = " since the review"
	}
	return strings.Join(counts, ", ") + since + ", " + classes(files) + ": " + list + "; see skillwire diff " + id
}

// files are the changes a person counts: those of files, links and other
// entries; directories only when nothing else changed.
func (r *Reconciliation) files() []reconcile.Change {
	var out []reconcile.Change
	for _, ch := range r.Changes {
		if e := ch.Change.New; e == nil || e.Kind != snapshot.Dir {
			if e := ch.Change.Old; e == nil || e.Kind != snapshot.Dir {
				out = append(out, ch)
			}
		}
	}
	if len(out) == 0 {
		return r.Changes
	}
	return out
}

// classes says who announced the changes: by class, naming at most three
// gated sources of the expected ones.
func classes(changes []reconcile.Change) string {
	var n [3]int
	var sources []string
	for i := range changes {
		ch := &changes[i]
		switch classOf(ch) {
		case reconcile.ClassExpected:
			n[0]++
			if s, ok := sourceOf(ch); ok && !slices.Contains(sources, s) {
				sources = append(sources, s)
			}
		case reconcile.ClassAnnouncedByProject:
			n[1]++
		default:
			n[2]++
		}
	}
	by := "a source whose name is hidden"
	if len(sources) > 0 {
		by = strings.Join(sources[:min(len(sources), 3)], ", ")
		if len(sources) > 3 {
			by += fmt.Sprintf(" and %d more", len(sources)-3)
		}
	}
	words := [3]string{"announced by " + by, "announced only in the project's own audit log (which proves nothing)", "not announced in any audit log"}
	total := len(changes)
	var parts []string
	for i, k := range n {
		switch {
		case k == total:
			return words[i]
		case k > 0:
			parts = append(parts, fmt.Sprintf("%d %s", k, words[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// ReadAudit reads the audit logs of scopes for reconciliation. When they
// cannot be read, it returns no source and says why in fixed words: every
// change then reads as not announced, which is the safe side.
func ReadAudit(scopes []auditlog.Scope) ([]reconcile.Source, string) {
	src, _, err := reconcile.ReadSources(scopes, auditlog.Options{})
	switch {
	case err == nil:
		return src, ""
	case errors.Is(err, auditlog.ErrUntrusted):
		return nil, "a log is not trusted"
	case errors.Is(err, auditlog.ErrBusy):
		return nil, "a log is busy"
	case errors.Is(err, auditlog.ErrTooLarge):
		return nil, "a log is too large"
	}
	return nil, "a log could not be read"
}

// StoredSubjects is ReadSubjects for what the store holds: each record's
// last delivered version against its reference, when they differ (for
// `status`, which observes no tree). A record never reviewed and not
// accepted on first use differs from nothing: all of it is added.
func StoredSubjects(tx *baseline.Tx, recs []*baseline.Record) (Subjects, error) {
	sub := Subjects{Against: map[string]string{}}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Removed || r.Digest == nil || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		ref, err := tx.Reference(r.ID)
		if err != nil {
			return sub, err
		}
		m, err := tx.Manifest(r.ID)
		if err != nil {
			return sub, err
		}
		if m == nil || ref != nil && ref.Digest == *r.Digest {
			continue
		}
		sub.add(reconcile.Candidate{ID: r.ID, Root: string(r.Root), Name: r.Name, Current: m}, ref)
	}
	return sub, nil
}

// maxEventChanges bounds the file changes one stored event carries (the
// store keeps up to baseline.MaxEvents events); sessions reconcile anew.
const maxEventChanges = 100

// ReconcileEvents attaches to each change event of a present candidate its
// file changes since the candidate's reference (the daemon's events carry
// them, as sessions do). It reads the store read-only and the logs outside
// any write lock; current finds the candidate as just observed. Events it
// cannot reconcile keep no changes: they are told all the same.
func ReconcileEvents(opts baseline.Options, scopes []auditlog.Scope, events []baseline.Event,
	current func(root string, name []byte) *walker.Candidate, lim walker.Limits, now time.Time) error {
	if len(events) == 0 {
		return nil
	}
	opts.Create = false
	sub := Subjects{Against: map[string]string{}}
	ids := make([]string, len(events))
	err := baseline.View(opts, func(tx *baseline.Tx) error {
		for i := range events {
			ev := &events[i]
			c := current(string(ev.Root), ev.Name)
			if ev.After == nil || c == nil || c.Partial() {
				continue
			}
			ids[i] = tx.ID(string(ev.Root), ev.Name)
			ref, err := tx.Reference(ids[i])
			if err != nil {
				return err
			}
			sub.add(reconcile.Candidate{ID: ids[i], Root: string(ev.Root), Name: ev.Name, Current: &c.Manifest}, ref)
		}
		return nil
	})
	if err != nil {
		return err
	}
	src, _ := ReadAudit(scopes)
	rec := sub.Reconcile(src, now, lim)
	for i := range events {
		if r := rec[ids[i]]; ids[i] != "" && r != nil {
			fs := r.Files()
			events[i].Changes = fs[:min(len(fs), maxEventChanges)]
		}
	}
	return nil
}
