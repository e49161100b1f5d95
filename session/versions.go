package session

import (
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot/history"
)

// Replaced is the version a plugin version folder replaces
// (history.Replaced), as a session tells it.
type Replaced struct {
	Record *baseline.Record
	// Ref is what the new version's changes are measured against: the
	// replaced version's SAFE review when it has one, else its first-use
	// or last delivered version (nil: none kept).
	Ref *baseline.Reference
	// Canonical is the replaced version's form its facts are told
	// against: the reviewed one when reviewed SAFE, else the last delivered.
	Canonical []byte
	// Pending: the replaced version was reviewed SAFE, so the new one is
	// pending that review, told in every session until a person decides;
	// its review is carried over once a session was told
	// (baseline.Reviews.CarryVersion).
	Pending bool
}

// DetectVersions finds, for each plugin version new in this comparison
// and each one whose review was carried from the version it replaced, the
// version replaced.
func DetectVersions(tx *baseline.Tx, sts []baseline.Standing) (map[string]*Replaced, error) {
	out := map[string]*Replaced{}
	for i := range sts {
		st := &sts[i]
		if st.Root.Kind != claude.Plugins || st.ID == "" || st.Observed == nil || st.State == baseline.Removed {
			continue
		}
		var rec *baseline.Record
		var err error
		switch p := st.Prior; {
		case st.State == baseline.New && (p == nil || p.Removed):
			rec, err = history.Replaced(tx, st.Root, st.Name)
		case p != nil && p.Review != nil && p.Renamed == nil && anomaly.IsID(p.Review.From) && p.Review.From != st.ID:
			rec, err = tx.Record(p.Review.From) // carried: told as the version it replaced
		}
		if err != nil {
			return nil, err
		}
		if rec == nil || !claude.SamePlugin(rec.Name, st.Name) {
			continue
		}
		r := &Replaced{Record: rec, Pending: baseline.ReviewedSafe(rec) && !underAdverse(st)}
		if r.Ref, err = tx.Reviews().Reference(rec.ID); err != nil {
			return nil, err
		}
		r.Canonical = tx.Extract(rec.ID)
		if r.Pending {
			if c := tx.ReviewedExtract(rec.ID); c != nil {
				r.Canonical = c
			}
		}
		out[st.ID] = r
	}
	return out, nil
}

// carries reports whether telling st carries the review of the version it
// replaces over to it.
func (r *Replaced) carries(st *baseline.Standing) bool {
	return r != nil && r.Pending && st.State == baseline.New
}

// versionText is the version line of a plugin version: the version it
// replaces, by gated name and id, and that version's review or verdict.
func (r *Replaced) versionText() string {
	rec := r.Record
	what := "another version"
	if name, ok := claude.Display(claude.Plugins, rec.Name); ok {
		what = fmt.Sprintf("version %q", name)
	}
	what += " id " + rec.ID
	switch {
	case rec.Verdict != nil && verdict.Adverse(rec.Verdict.Verdict):
		what += ", verdict " + rec.Verdict.Verdict
	case r.Pending:
		what += ", reviewed SAFE-TO-PROPOSE: its review holds this version pending"
	}
	if rec.Removed {
		what += " (its folder is gone; compared with the kept version)"
	}
	return "a new version replacing " + what
}
