package baseline

import (
	"bytes"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
)

// A new version folder of an installed plugin is held against the version it
// replaces (issue #22). A person's SAFE review of the old version keeps the
// new one pending, never a one-time notice. An adverse verdict on the old one
// holds the new one too.

// ReviewedSafe reports whether r carries a person's SAFE review and no
// adverse verdict in force. The review is kept across changes. A new version
// of r is held pending against it.
func ReviewedSafe(r *Record) bool {
	return r != nil && r.Review != nil && r.Review.Verdict == verdict.Safe && r.Review.Digest != nil &&
		(r.Verdict == nil || !verdict.Adverse(r.Verdict.Verdict))
}

// CarryVersion carries the SAFE review of the replaced version rn.From over
// to the new version rn.To. It runs once a session was told of the new one.
// The new version is then pending until a person records a verdict.
// (StatusOf: its review does not cover its digest.) Its changes, facts and
// diff are measured against the reviewed version. Unlike a rename, the old
// folder may still be in the cache: the client marks it orphaned. It does
// nothing when either record is no longer as paired.
func (rs Reviews) CarryVersion(rn Rename, now time.Time) error {
	t := rs.t
	from, err := t.Record(rn.From)
	if err != nil {
		return err
	}
	to, err := t.Record(rn.To)
	if err != nil {
		return err
	}
	if !ReviewedSafe(from) || to == nil || to.Review != nil || to.Verdict != nil || to.Removed ||
		!bytes.Equal(to.Root, from.Root) || !claude.SamePlugin(from.Name, to.Name) {
		return nil
	}
	rv := *from.Review
	rv.From = from.ID
	to.Review, to.Updated = &rv, now
	if err := t.carryReference(from.ID, to.ID); err != nil {
		return err
	}
	if c := t.ReviewedExtract(from.ID); c != nil {
		if err := t.setExtract(bucketReviewedExtracts, to.ID, c); err != nil {
			return err
		}
	}
	// The same bytes as reviewed are vetted, as a change back to them is.
	if err := t.settleVerdict(to); err != nil {
		return err
	}
	return t.put(to)
}

// carryReference makes from's reviewed version, when it has one, the
// reference for to's changes. That is what the person reviewed.
func (t *Tx) carryReference(from, to string) error {
	ref, err := t.Reviews().Reference(from)
	if err != nil || ref == nil || ref.How != RefReview {
		return err
	}
	return t.putReference(to, ref.Manifest, ref.At, RefReview)
}
