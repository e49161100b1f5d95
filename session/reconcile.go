package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
)

// wanted reports whether st's changes are reconciled. Those of what a
// session is told as changed or new, and of what is pending, are.
func wanted(st *baseline.Standing) bool {
	if st.ID == "" || st.Observed == nil {
		return false
	}
	_, delta := deltaOf(st)
	return delta && st.State != baseline.Removed || isPending(st)
}

// readSubjects reads, for every wanted standing, the reference its
// changes are measured against. A plugin version new since the last
// session is measured against the version it replaces (rep). So the files
// that differ from it are named, not every file as added. Nothing is read
// for the others. A session start without changes stays as fast as
// before.
func readSubjects(tx *baseline.Tx, sts []baseline.Standing, rep map[string]*Replaced) (reconcile.Subjects, error) {
	versus := func(st *baseline.Standing) *Replaced {
		if r := rep[st.ID]; r != nil && st.State == baseline.New {
			return r
		}
		return nil
	}
	sub, err := reconcile.ReadSubjects(tx, sts, func(st *baseline.Standing) bool { return wanted(st) && versus(st) == nil })
	for i := range sts {
		st := &sts[i]
		if r := versus(st); r != nil && wanted(st) && (r.Ref == nil || st.Digest() == nil || *st.Digest() != r.Ref.Digest) {
			sub.Add(reconcile.Candidate{ID: st.ID, Root: st.Root.Path, Name: st.Name, Current: &st.Observed.Manifest}, r.Ref)
		}
	}
	return sub, err
}

// ReadDifferingSubjects is readSubjects for every standing that differs
// from its reference, delivered already or not. Scan shows these as each
// candidate's changes (DESIGN.md §7). A candidate never reviewed and not
// accepted on first use differs from nothing: all of it is added.
func ReadDifferingSubjects(tx *baseline.Tx, sts []baseline.Standing) (reconcile.Subjects, error) {
	return reconcile.ReadSubjects(tx, sts, func(st *baseline.Standing) bool {
		return wanted(st) || st.ID != "" && st.Observed != nil && st.State != baseline.Removed && st.Digest() != nil
	})
}

// maxFilesNamed is how many changed files one advisory line names.
const maxFilesNamed = 5

var typeOrder = []snapshot.ChangeType{snapshot.Modified, snapshot.Added, snapshot.Removed, snapshot.ModeChanged}

var typeWords = map[snapshot.ChangeType]string{snapshot.Modified: "modified", snapshot.Added: "added",
	snapshot.Removed: "removed", snapshot.ModeChanged: "changed in mode"}

// Summary sums a reconciliation up in one line of fixed templates. Say,
// "2 files modified, not announced in any audit log: a, b; see skillwire
// diff ID".
func Summary(r *reconcile.Reconciliation, id string) string {
	if r.Incomplete {
		return "its file changes are unknown: it could not be fully observed"
	}
	files := countedFiles(r)
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
		paths = append(paths, r.Names.Show(files[i].Change.Path))
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

// countedFiles are the changes a person counts: those of files, links and other
// entries; directories only when nothing else changed.
func countedFiles(r *reconcile.Reconciliation) []reconcile.Change {
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
	var n [4]int
	var sources []string
	for i := range changes {
		ch := &changes[i]
		switch ch.Worth() {
		case reconcile.ClassExpected:
			n[0]++
			if s, ok := ch.Source(); ok && !slices.Contains(sources, s) {
				sources = append(sources, s)
			}
		case reconcile.ClassAnnouncedByProject:
			n[1]++
		case reconcile.ClassUnknown:
			n[3]++
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
	words := [4]string{"announced by " + by, "announced only in the project's own audit log (which proves nothing)", "not announced in any audit log",
		"not checked against its audit entry (the content it names could not be read)"}
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
