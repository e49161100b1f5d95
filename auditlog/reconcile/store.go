package reconcile

import (
	"errors"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Reconciliation is one candidate's file changes, each reconciled with the
// audit logs. They run since the version a person reviewed, else its
// first-use version.
type Reconciliation struct {
	Changes []Change
	// Incomplete: a manifest was partial, so the changes are unknown.
	Incomplete bool
	// Against says what the changes are measured against. It is
	// baseline.RefReview, RefFirstUse or RefDelivered. It is "" for a
	// candidate never seen before.
	Against string
	// Reference is the manifest they are measured against, nil for none.
	Reference *snapshot.Manifest
	// Names show its paths (Candidate.Names); Bound says where the files
	// it binds lie (Candidate.Bound).
	Names anomaly.Names
	Bound map[string]string
}

// Subjects is what reconciliation compares. Per candidate, it is its
// reference in the store and what is there now.
type Subjects struct {
	Candidates []Candidate
	Against    map[string]string
	// Content returns kept bytes by BLAKE3 (nil: none kept). An audit
	// entry's sha256 is checked against the observed content's.
	Content func(snapshot.Hash) ([]byte, bool)
}

// ReadSubjects reads, for every standing which selects, the reference its
// changes are measured against. Nothing is read for the others. A candidate
// back to its reference has nothing to reconcile.
func ReadSubjects(tx *baseline.Tx, sts []baseline.Standing, which func(*baseline.Standing) bool) (Subjects, error) {
	sub := Subjects{Against: map[string]string{}}
	for i := range sts {
		st := &sts[i]
		if !which(st) {
			continue
		}
		c := Candidate{ID: st.ID, Root: st.Root.Path, Name: st.Name, Current: &st.Observed.Manifest}
		c.Binds(st.Root, st.Observed.Canonical, st.PriorCanonical, st.ReviewedCanonical)
		ref, err := tx.Reviews().Reference(st.ID)
		if err != nil {
			return sub, err
		}
		if st.Prior != nil && st.Prior.Removed {
			ref = nil // back after its removal: measured against nothing
		}
		if d := st.Digest(); ref != nil && d != nil && *d == ref.Digest {
			continue // back to its reference: nothing to reconcile
		}
		sub.Add(c, ref)
	}
	return sub, nil
}

// StoredSubjects are the subjects of what the store holds, for `status`,
// which observes no tree. Each record's last delivered version is measured
// against its reference, when they differ. A record never reviewed and not
// accepted on first use differs from nothing. All of it is added. roots
// name the files a record binds (claude.Root.BoundNames). They come from
// the forms the store keeps. A record of no root among them shows them by
// hash.
func StoredSubjects(tx *baseline.Tx, recs []*baseline.Record, roots []claude.Root) (Subjects, error) {
	sub := Subjects{Against: map[string]string{}}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Removed || r.Digest == nil || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		ref, err := tx.Reviews().Reference(r.ID)
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
		c := Candidate{ID: r.ID, Root: string(r.Root), Name: r.Name, Current: m}
		c.RecordBinds(roots, r, tx.Extract(r.ID), tx.ReviewedExtract(r.ID))
		sub.Add(c, ref)
	}
	return sub, nil
}

// Binds names the files c binds in canons, its canonical forms at hand. c
// is a candidate of root. Names shows the files; Bound says where they lie.
func (c *Candidate) Binds(root claude.Root, canons ...[]byte) {
	c.Names, c.Bound = root.BoundNames(c.Name, canons...), root.BoundPaths(c.Name, canons...)
}

// RecordBinds is Binds for the candidate of record r, by its root among
// roots. It is nothing when r is of none. Then each file it binds is shown
// by its hash, and no audit entry names one.
func (c *Candidate) RecordBinds(roots []claude.Root, r *baseline.Record, canons ...[]byte) {
	of := claude.Root{Path: string(r.Root), Scope: r.Scope, Kind: r.Kind}
	for _, root := range roots {
		if root.Same(of) {
			c.Binds(root, canons...)
			return
		}
	}
}

// Add lists c as a subject measured against ref (nil: against nothing).
func (s *Subjects) Add(c Candidate, ref *baseline.Reference) {
	if ref != nil {
		c.Stored, c.Since = ref.Manifest, ref.At
		s.Against[c.ID] = ref.How
	}
	s.Candidates = append(s.Candidates, c)
}

// Reconcile reconciles every subject with the audit logs.
func (s Subjects) Reconcile(src []Source, now time.Time, lim walker.Limits) map[string]*Reconciliation {
	out := make(map[string]*Reconciliation, len(s.Candidates))
	if len(s.Candidates) == 0 {
		return out
	}
	res := Run(Input{Candidates: s.Candidates, Sources: src, Now: now, Limits: lim, Content: s.Content})
	for _, c := range s.Candidates {
		out[c.ID] = &Reconciliation{Against: s.Against[c.ID], Reference: c.Stored, Names: c.Names, Bound: c.Bound}
	}
	for _, id := range res.Incomplete {
		out[id].Incomplete = true
	}
	for _, ch := range res.Changes {
		out[ch.Candidate].Changes = append(out[ch.Candidate].Changes, ch)
	}
	return out
}

// Files is the reconciliation in the JSON contract's shape (DESIGN.md §7).
// Paths pass the display gate; sources appear only when they pass it.
func (r *Reconciliation) Files() []cache.FileChange {
	out := make([]cache.FileChange, 0, len(r.Changes))
	for i := range r.Changes {
		ch := &r.Changes[i]
		fc := cache.FileChange{Path: r.Names.Show(ch.Change.Path), Change: ch.Change.Type.String(), Class: string(ch.Worth())}
		if s, ok := ch.Source(); ok {
			fc.Source = &s
		}
		out = append(out, fc)
	}
	return out
}

// Worth is the change's class as a person counts it. It is unexpected
// unless some log explains it. It is unknown when the content a log's
// sha256 names could not be read.
func (c *Change) Worth() Class {
	switch {
	case c.Unread:
		return ClassUnknown
	case !c.Expected:
		return ClassUnexpected
	}
	return c.Class
}

// Source is the audit entry's source, when the change is explained and the
// source passes the display gate. Whoever wrote the repository writes a
// project's log.
func (c *Change) Source() (string, bool) {
	if !c.Expected || c.Entry == nil || !anomaly.Gate([]byte(c.Entry.Source)) {
		return "", false
	}
	return c.Entry.Source, true
}

// ReadAudit reads the audit logs of scopes for reconciliation. When they
// cannot be read, it returns no source and says why in fixed words. Every
// change then reads as not announced: the safe side.
func ReadAudit(scopes []auditlog.Scope) ([]Source, string) {
	src, _, err := ReadSources(scopes, auditlog.Options{})
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

// maxEventChanges bounds the file changes one stored event carries. The
// store keeps up to cache.MaxEvents events; sessions reconcile anew.
const maxEventChanges = 100

// Events attaches to each change event of a present candidate its file
// changes. They run since the candidate's reference. The daemon's events
// carry them, as sessions do. It reads the store read-only, and the logs
// outside any write lock. current finds the candidate as just observed.
// rootAt finds the root at a path (nil: none). Its bound files are shown by
// where they lie (Candidate.Binds). Events it cannot reconcile keep no
// changes: they are told all the same.
func Events(opts baseline.Options, scopes []auditlog.Scope, events []cache.Event,
	current func(root string, name []byte) *walker.Candidate, rootAt func(path string) *claude.Root, lim walker.Limits, now time.Time) error {
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
			ref, err := tx.Reviews().Reference(ids[i])
			if err != nil {
				return err
			}
			cand := Candidate{ID: ids[i], Root: string(ev.Root), Name: ev.Name, Current: &c.Manifest}
			if root := rootAt(string(ev.Root)); root != nil {
				cand.Binds(*root, c.Canonical, tx.Extract(ids[i]), tx.ReviewedExtract(ids[i]))
			}
			sub.Add(cand, ref)
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
