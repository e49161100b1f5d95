package baseline

import (
	"errors"
	"fmt"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
)

// Refusals of a verdict. SAFE-TO-PROPOSE vouches for exact bytes. So it is
// refused wherever those bytes cannot be pinned or shown. SUSPECT and BLOCK
// are recordable on any tree, but never against a stale expectation.
var (
	ErrBadVerdict     = errors.New("the verdict must be SAFE-TO-PROPOSE, SUSPECT or BLOCK")
	ErrNoExpectDigest = errors.New("SAFE-TO-PROPOSE needs the digest that was reviewed")
	ErrUnobserved     = errors.New("the candidate was not observed, so the reviewed digest cannot be checked")
	ErrPartial        = errors.New("the candidate could not be fully observed (partial)")
	ErrDigestMismatch = errors.New("the candidate is no longer the reviewed content")
	ErrAnomalous      = errors.New("SAFE-TO-PROPOSE cannot be recorded on an anomalous candidate")
	// ErrBadName is anomalous too. A hidden name cannot be shown to the
	// person the verdict speaks to.
	ErrBadName = fmt.Errorf("%w: its name fails the display gate", ErrAnomalous)
)

// CheckRequest refuses what is wrong before anything is observed. That is an
// unknown verdict, or SAFE-TO-PROPOSE without the digest reviewed.
func CheckRequest(v string, expect *snapshot.Hash) error {
	switch {
	case !verdict.Valid(v):
		return ErrBadVerdict
	case v == verdict.Safe && expect == nil:
		return ErrNoExpectDigest
	}
	return nil
}

// CheckVerdict is every refusal of recording v on tg, in the order a reviewer
// needs them. First the request. Then whether tg.Observed is still what
// tg.Expect says was reviewed. Then whether it is safe to vouch for.
func CheckVerdict(tg Target, v Verdict) error {
	if err := CheckRequest(v.Verdict, tg.Expect); err != nil {
		return err
	}
	o := tg.Observed
	if tg.Expect != nil {
		switch {
		case o == nil:
			return ErrUnobserved
		case o.Partial():
			return ErrPartial
		case o.Digest != *tg.Expect:
			return fmt.Errorf("%w: its digest is now %s", ErrDigestMismatch, o.Digest)
		}
	}
	if v.Verdict != verdict.Safe {
		return nil
	}
	if found := o.Anomalies(); len(found) > 0 {
		if slices.ContainsFunc(found, func(f snapshot.Found) bool { return f.Reason == anomaly.Badname }) {
			return ErrBadName
		}
		return ErrAnomalous
	}
	if !sameDigest(v.Digest, tg.Expect) {
		// The verdict must bind the bytes that were checked, not others.
		return fmt.Errorf("%w: the verdict names %v", ErrDigestMismatch, v.Digest)
	}
	return nil
}
