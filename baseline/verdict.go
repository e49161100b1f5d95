package baseline

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Target names the candidate a verdict is recorded on, as just observed.
type Target struct {
	ID   string
	Root claude.Root
	Name []byte
	// Observed, when set and complete, is what the reviewer saw. Recording
	// the verdict delivers it, so the record's digest becomes its digest.
	Observed *walker.Candidate
	// Expect is the digest the reviewer reviewed; Observed must still be it.
	Expect *snapshot.Hash
}

// RecordVerdict binds v to the candidate and returns the verdict it replaced,
// if any (kept as history). It refuses what CheckVerdict refuses, so every
// entry point gets the same refusals. A safe verdict clears the adverse mark
// on exactly its content. An adverse one marks its content wherever it
// appears.
func (t *Tx) RecordVerdict(tg Target, v Verdict) (*Verdict, error) {
	if err := CheckVerdict(tg, v); err != nil {
		return nil, fmt.Errorf("baseline: refusing %s on %s: %w", v.Verdict, tg.ID, err)
	}
	rec, err := t.Record(tg.ID)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rec = &Record{ID: tg.ID, Root: []byte(tg.Root.Path), Scope: tg.Root.Scope, Kind: tg.Root.Kind,
			Name: tg.Name, Status: StatusSeen, FirstSeen: v.At}
	}
	o := tg.Observed
	if d := DigestOf(o); d != nil {
		rec.Digest, rec.Removed, rec.Observed = d, false, v.At
		rec.Anomalies = walker.Reasons(o.Anomalies())
		if err := t.putManifest(rec.ID, &o.Manifest); err != nil {
			return nil, err
		}
		if o.Canonical != nil {
			if err := t.putExtract(rec.ID, o.Canonical); err != nil {
				return nil, err
			}
		}
	}
	replaced := rec.Verdict
	if replaced != nil {
		rec.History = append(rec.History, *replaced)
	}
	vv := v
	rec.Verdict = &vv
	// Any recorded verdict is the person's decision: it ends a halt and the
	// pending tells. A SAFE one becomes the review later changes are measured
	// against.
	rec.Halt, rec.Told, rec.ToldSince, rec.Auto, rec.Renamed = nil, 0, time.Time{}, nil, nil
	if v.Verdict == verdict.Safe && v.Digest != nil {
		rv := v
		rec.Review = &rv
		if d := DigestOf(o); d != nil && *d == *v.Digest {
			if err := t.putReference(rec.ID, &o.Manifest, v.At, RefReview); err != nil {
				return nil, err
			}
			if err := t.setExtract(bucketReviewedExtracts, rec.ID, o.Canonical); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case rec.Digest != nil && sameDigest(v.Digest, rec.Digest):
		rec.Status = StatusVetted
	case rec.Status == StatusVetted:
		rec.Status = StatusSeen
	}
	rec.Updated = v.At
	if err := t.put(rec); err != nil {
		return nil, err
	}
	if v.Digest == nil {
		return replaced, nil
	}
	key := []byte(v.Digest.String())
	if v.Verdict == verdict.Safe {
		return replaced, t.tx.Bucket(bucketAdverse).Delete(key)
	}
	mark := v
	mark.From = tg.ID
	b, err := json.Marshal(mark)
	if err != nil {
		return nil, err
	}
	return replaced, t.tx.Bucket(bucketAdverse).Put(key, b)
}

// Forget removes the records of ids (and their manifests). Verdicts that
// follow content stay: forgetting a name does not clear a BLOCK on its
// bytes.
func (t *Tx) Forget(ids []string) error {
	for _, id := range ids {
		if err := t.tx.Bucket(bucketCandidates).Delete([]byte(id)); err != nil {
			return err
		}
		if err := t.tx.Bucket(bucketManifests).Delete([]byte(id)); err != nil {
			return err
		}
		if err := t.putExtract(id, nil); err != nil {
			return err
		}
		if err := t.setExtract(bucketReviewedExtracts, id, nil); err != nil {
			return err
		}
		if err := t.dropReference(id); err != nil {
			return err
		}
	}
	return nil
}

// Report is what `status` prints: every record in one of four lists.
type Report struct {
	// Pending: a SAFE review no longer covers the delivered content (pending
	// or halted). Listed first, it is a finding until a person acts.
	Pending  []*Record
	Unvetted []*Record
	Adverse  []*Record // an adverse verdict in force, own or following its content
	Safe     []*Record // a safe verdict bound to exactly its delivered digest
}

// Report sorts the records by severity. It reads the store only: it says what
// the baseline holds, not what is installed now. A record's adverse verdict
// outranks everything. So the more damning the verdict, the more visible the
// record. A removed record stays listed while one is in force.
func (t *Tx) Report() (Report, error) {
	var rep Report
	recs, err := t.Records()
	if err != nil {
		return rep, err
	}
	for _, r := range recs {
		v, err := t.verdictInForce(r, r.Digest)
		if err != nil {
			return rep, err
		}
		switch {
		case v != nil && verdict.Adverse(v.Verdict):
			r.Verdict = v
			rep.Adverse = append(rep.Adverse, r)
		case r.Removed:
		case StatusOf(r, r.Digest, v) != r.Status:
			rep.Pending = append(rep.Pending, r)
		case v != nil && v.Verdict == verdict.Safe && r.Status == StatusVetted:
			rep.Safe = append(rep.Safe, r)
		default:
			rep.Unvetted = append(rep.Unvetted, r)
		}
	}
	return rep, nil
}
