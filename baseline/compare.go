package baseline

import (
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// State is a candidate's standing relative to the last delivered
// observation.
type State string

const (
	New       State = "new"
	Unchanged State = "unchanged"
	Changed   State = "changed"
	Removed   State = "removed"
	// Partial: the budget cut the observation short, so it cannot be
	// compared. A partial digest is never judged "changed" or "unchanged".
	Partial State = "partial"
)

// Observation pairs a root with what the walker saw there.
type Observation struct {
	Root claude.Root
	Walk *walker.Root
}

// Standing is one candidate compared with the store.
type Standing struct {
	ID       string
	Root     claude.Root
	Name     []byte
	State    State
	Observed *walker.Candidate // nil when Removed
	// Prior is the record as it was when compared (nil: none). Advance
	// applies the standing only if the record still matches it.
	Prior *Record
	// PriorCanonical is the canonical form delivered last (nil: none kept).
	// It is set for a candidate that has one now or is removed.
	PriorCanonical []byte
	// ReviewedCanonical is the canonical form of the SAFE review, when one
	// was kept. A pending change's facts are told against it.
	ReviewedCanonical []byte
	// Verdict is the verdict in force. It is the record's when it applies to
	// this content. Else it is an adverse one recorded for the same content
	// on any candidate.
	Verdict *Verdict
}

// Status is the candidate's status as observed now, "" when there is no
// record yet. Pending and halted are derived from its review.
func (s *Standing) Status() Status {
	if s.Prior == nil || s.Prior.Removed {
		return ""
	}
	d := s.Digest()
	if d == nil {
		d = s.Prior.Digest
	}
	return StatusOf(s.Prior, d, s.Verdict)
}

// StatusOf derives the status of r for content d given the verdict in force.
// It is the one rule of every report: status, sessions, the gate. An adverse
// verdict outranks everything. A halt holds whatever was delivered or is
// observed, until a person records a verdict. A SAFE review that no longer
// covers d is pending. A review carried over by a rename is pending whatever
// the content.
func StatusOf(r *Record, d *snapshot.Hash, inForce *Verdict) Status {
	switch {
	case inForce != nil && verdict.Adverse(inForce.Verdict):
		return r.Status
	case r.Halt != nil:
		return StatusHalted
	case r.Review == nil || sameDigest(r.Review.Digest, d) && r.Renamed == nil:
		return r.Status
	}
	return StatusPending
}

// Digest is the observation's complete digest, or nil.
func (s *Standing) Digest() *snapshot.Hash { return DigestOf(s.Observed) }

// Compare reads the store and judges every observed candidate. It lists the
// recorded candidates of the observed roots that are gone. It writes nothing.
func (t *Tx) Compare(obs []Observation) ([]Standing, error) {
	recs, err := t.Records() // decoded once, not once per root and candidate
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	var out []Standing
	for _, o := range obs {
		seen := map[string]bool{}
		for i := range o.Walk.Candidates {
			c := &o.Walk.Candidates[i]
			id := t.s.ID(o.Root.Path, c.Name)
			seen[id] = true
			st, err := t.standing(o, c, id, byID[id])
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
		// A root that could not be listed says nothing about what is gone.
		if len(o.Walk.Anomalies) > 0 {
			continue
		}
		for _, r := range recs {
			if r.Removed || seen[r.ID] || !sameRoot(r, o.Root.Path) || r.Kind != o.Root.Kind || !o.Root.Holds(r.Name) {
				continue
			}
			v, err := t.verdictInForce(r, nil)
			if err != nil {
				return nil, err
			}
			// A removed plugin version's form is what its successor's
			// facts are told against.
			out = append(out, Standing{ID: r.ID, Root: o.Root, Name: r.Name, State: Removed, Prior: r, Verdict: v, PriorCanonical: t.Extract(r.ID)})
		}
	}
	return out, nil
}

// CompareObserved judges every observed candidate as Compare does, and
// lists nothing gone. It reads the records of those candidates alone, so
// its cost is theirs, not the store's (the gate, issue 34).
func (t *Tx) CompareObserved(obs []Observation) ([]Standing, error) {
	var out []Standing
	for _, o := range obs {
		for i := range o.Walk.Candidates {
			c := &o.Walk.Candidates[i]
			id := t.s.ID(o.Root.Path, c.Name)
			rec, err := t.Record(id)
			if err != nil {
				return nil, err
			}
			st, err := t.standing(o, c, id, rec)
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// standing is the observed candidate c of o, of id, against its record.
func (t *Tx) standing(o Observation, c *walker.Candidate, id string, rec *Record) (Standing, error) {
	st := Standing{ID: id, Root: o.Root, Name: c.Name, Observed: c, Prior: rec}
	if c.Canonical != nil && rec != nil && !rec.Removed {
		st.PriorCanonical = t.Extract(id)
		if rec.Review != nil {
			st.ReviewedCanonical = t.ReviewedExtract(id)
		}
	}
	st.State = judge(rec, c)
	var err error
	st.Verdict, err = t.verdictInForce(rec, st.Digest())
	return st, err
}

func judge(rec *Record, c *walker.Candidate) State {
	switch {
	case rec == nil || rec.Removed || rec.Digest == nil:
		return New
	case c.Partial():
		return Partial
	case *rec.Digest == c.Digest:
		return Unchanged
	}
	return Changed
}

// verdictInForce: an adverse verdict on the record always stays in force; a
// later change never hides it. A safe one stays only for its exact digest.
// Otherwise it is an adverse verdict recorded anywhere for this content.
func (t *Tx) verdictInForce(rec *Record, d *snapshot.Hash) (*Verdict, error) {
	if rec != nil && rec.Verdict != nil {
		if verdict.Adverse(rec.Verdict.Verdict) || d != nil && sameDigest(rec.Verdict.Digest, d) {
			return rec.Verdict, nil
		}
	}
	if d == nil {
		return nil, nil
	}
	return t.adverseFor(*d)
}

// Advance records the standings as delivered. New and changed candidates get
// their observed digest and manifest. Removed ones are marked removed. Each
// standing is applied only if its record is still as it was compared. Another
// process may have delivered and advanced it since. Partial observations are
// never stored. bootstrap marks new records as accepted on first use. It
// returns how many records it wrote.
func (t *Tx) Advance(sts []Standing, bootstrap bool, now time.Time) (int, error) {
	written := 0
	for i := range sts {
		s := &sts[i]
		if s.State == Unchanged || s.State == Partial || s.State == New && s.Digest() == nil {
			continue
		}
		rec, err := t.Record(s.ID)
		if err != nil {
			return written, err
		}
		if !stillAsCompared(rec, s.Prior) {
			continue
		}
		switch s.State {
		case Removed:
			rec.Removed = true
		case New, Changed:
			if rec == nil {
				rec = &Record{ID: s.ID, Root: []byte(s.Root.Path), Scope: s.Root.Scope, Kind: s.Root.Kind,
					Name: s.Name, FirstSeen: now, Status: StatusSeen}
				if bootstrap {
					rec.Status = StatusBaseline
				}
			} else if rec.Removed || rec.Status == StatusBaseline {
				rec.Status = StatusSeen
			}
			rec.Removed = false
			d := *s.Digest()
			rec.Digest, rec.Observed = &d, now
			rec.Anomalies = walker.Reasons(s.Observed.Anomalies())
			if err := t.settleVerdict(rec); err != nil {
				return written, err
			}
			if err := t.putManifest(rec.ID, &s.Observed.Manifest); err != nil {
				return written, err
			}
			// An observation without a form keeps the last one. The daemon's
			// cache keeps none, and a file may no longer parse.
			if c := s.Observed.Canonical; c != nil {
				if err := t.putExtract(rec.ID, c); err != nil {
					return written, err
				}
			}
			// Only the first run accepts what it finds. A candidate that
			// appears later has nothing vouched for until a person reviews
			// it.
			switch {
			case s.Prior == nil && bootstrap:
				if err := t.putReference(rec.ID, &s.Observed.Manifest, now, RefFirstUse); err != nil {
					return written, err
				}
			case s.Prior == nil:
				if err := t.putNoReference(rec.ID); err != nil {
					return written, err
				}
			}
		}
		rec.Updated = now
		if err := t.put(rec); err != nil {
			return written, err
		}
		written++
	}
	return written, nil
}

func stillAsCompared(now, then *Record) bool {
	if now == nil || then == nil {
		return now == nil && then == nil
	}
	return now.Removed == then.Removed && sameDigest(now.Digest, then.Digest)
}

// settleVerdict fits the record's verdict to its new digest. A safe verdict
// for other content stops applying and is kept as history. An adverse one
// stays. With no verdict, an adverse verdict for this content is inherited.
func (t *Tx) settleVerdict(rec *Record) error {
	if rec.Review != nil && sameDigest(rec.Review.Digest, rec.Digest) && rec.Verdict == nil && rec.Renamed == nil {
		// Content came back to what was reviewed: the review covers it again.
		// A halt stays, as only a recorded verdict clears it.
		rv := *rec.Review
		rec.Verdict = &rv
		if rec.Halt == nil {
			rec.Told, rec.ToldSince = 0, time.Time{}
		}
	}
	v := rec.Verdict
	switch {
	case v != nil && sameDigest(v.Digest, rec.Digest):
		rec.Status = StatusVetted
		return nil
	case v != nil && v.Verdict == verdict.Safe:
		rec.History = append(rec.History, *v)
		rec.Verdict = nil
	case v != nil:
		if rec.Status == StatusVetted {
			rec.Status = StatusSeen
		}
		return nil
	}
	if rec.Status == StatusVetted {
		rec.Status = StatusSeen
	}
	inherited, err := t.adverseFor(*rec.Digest)
	if err != nil || inherited == nil {
		return err
	}
	rec.Verdict = inherited
	rec.Status = StatusVetted
	return nil
}

// Fresh judges observations when there is no store yet. Every candidate is
// new and has no id: ids are minted with the store's secret.
func Fresh(obs []Observation) []Standing {
	var out []Standing
	for _, o := range obs {
		for i := range o.Walk.Candidates {
			c := &o.Walk.Candidates[i]
			out = append(out, Standing{Root: o.Root, Name: c.Name, State: New, Observed: c})
		}
	}
	return out
}
