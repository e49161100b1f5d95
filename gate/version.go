package gate

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// A new version folder of an installed plugin is judged as the version it
// replaces (history.Replaced). Under that version's SAFE review, it is
// pending from its first use: balanced asks, strict denies. That holds
// before any session was told of it. A version of the plugin under an
// adverse verdict holds it as that verdict (adverse.Resembled).

// newFinding judges a candidate new since the last session. It is held
// like an adverse one it resembles. Else it is pending the review of the
// plugin version it replaces. Else it is new.
func newFinding(tx *baseline.Tx, s *baseline.Standing, f Finding) (Finding, error) {
	f, err := held(tx, s, f)
	if err != nil || f.Like != "" || s.Root.Kind != claude.Plugins {
		return f, err
	}
	rep, err := history.Replaced(tx, s.Root, s.Name)
	if err != nil || !baseline.ReviewedSafe(rep) {
		return f, err
	}
	return versionPending(tx, s, f, rep, rep.ID)
}

// carriedFinding is for a pending plugin version whose review was carried
// from the version it replaced. It names that version and counts the
// change from its reviewed bytes. Other pending candidates are left as f.
func carriedFinding(tx *baseline.Tx, s *baseline.Standing, f Finding) (Finding, bool, error) {
	r := s.Prior
	if s.Root.Kind != claude.Plugins || r == nil || r.Review == nil || r.Renamed != nil || !anomaly.IsID(r.Review.From) {
		return f, false, nil
	}
	rep, err := tx.Record(r.Review.From)
	if err != nil || rep == nil || !claude.SamePlugin(rep.Name, s.Name) {
		return f, false, err
	}
	f, err = versionPending(tx, s, f, rep, s.ID)
	return f, true, err
}

// versionPending is f pending the review of rep, the version it replaces.
// Its change is counted from the reviewed version, kept as refID's
// reference.
func versionPending(tx *baseline.Tx, s *baseline.Standing, f Finding, rep *baseline.Record, refID string) (Finding, error) {
	f.State, f.Reviewed = Pending, rep.Review.At
	other := resolve.CandidateOf(claude.Root{Kind: claude.Plugins}, rep.Name, walker.KindDir)
	other.ID = rep.ID
	f.Replaces = other.Subject()
	ref, err := tx.Reviews().Reference(refID)
	if err != nil || ref == nil || ref.How != baseline.RefReview {
		return f, err
	}
	f.Change = Change{Unreconciled: true, Since: SinceSafe, On: rep.Review.At}
	f.Change.count(ref.Manifest, &s.Observed.Manifest)
	return f, nil
}
