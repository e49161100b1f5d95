package baseline

import (
	"errors"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
)

// MarkTold counts one more session told of each pending candidate in ids. The
// next session repeats "told N times since DATE". Records no longer pending
// are left alone.
func (rs Reviews) MarkTold(ids []string, now time.Time) error {
	for _, id := range ids {
		r, err := rs.t.Record(id)
		if err != nil {
			return err
		}
		if r == nil || r.Removed {
			continue
		}
		v, err := rs.t.verdictInForce(r, r.Digest)
		if err != nil {
			return err
		}
		if StatusOf(r, r.Digest, v) == r.Status {
			continue
		}
		if r.Told == 0 || r.ToldSince.IsZero() {
			r.ToldSince = now.UTC()
		}
		r.Told++
		if err := rs.t.put(r); err != nil {
			return err
		}
	}
	return nil
}

// ErrNotPending: auto-accept or a halt was asked for a candidate not pending
// as compared. Another process acted first.
var ErrNotPending = errors.New("baseline: the candidate is no longer pending as compared")

// AutoAccepted is what auto-accept measured when it accepted a change.
type AutoAccepted struct {
	Source            string
	HumanWords, Drift int
	Text              string // the note's text
	// Replaces is the content identity of the version the review leaves.
	Replaces snapshot.Hash
}

// AutoAccept moves the review of a pending candidate to its observed content
// and delivers it. The reviewer is "auto:SOURCE". It is the bounded learning
// of DESIGN.md §11. The replaced review is kept as history; the decision is
// journaled. It refuses a candidate halted or changed since compared.
func (rs Reviews) AutoAccept(st *Standing, a AutoAccepted, now time.Time) error {
	rec, err := rs.t.pendingAsCompared(st)
	if err != nil {
		return err
	}
	old := *rec.Review.Digest
	auto := rec.Auto
	if auto == nil {
		auto = &Auto{HumanWords: a.HumanWords}
	}
	auto.Drift += a.Drift
	auto.Replaced = append(auto.Replaced, old)
	if len(auto.Replaced) > maxReplaced {
		auto.Replaced = auto.Replaced[len(auto.Replaced)-maxReplaced:]
	}
	auto.ReplacedContent = append(auto.ReplacedContent, a.Replaces)
	if len(auto.ReplacedContent) > maxReplaced {
		auto.ReplacedContent = auto.ReplacedContent[len(auto.ReplacedContent)-maxReplaced:]
	}
	auto.Untold = printable(a.Text, maxNoteText)
	d := *st.Digest()
	v := Verdict{Verdict: verdict.Safe, Digest: &d, Reviewer: "auto:" + a.Source, At: now}
	if _, err := rs.t.RecordVerdict(Target{ID: st.ID, Root: st.Root, Name: st.Name, Observed: st.Observed, Expect: &d}, v); err != nil {
		return err
	}
	rec, err = rs.t.Record(st.ID)
	if err != nil {
		return err
	}
	rec.Auto = auto
	if err := rs.t.put(rec); err != nil {
		return err
	}
	return rs.t.Notes().Add(Note{ID: st.ID, Kind: NoteAutoAccept, At: now, Text: a.Text, Digest: &d})
}

// AutoTell is an auto-accept a delivered advisory named. It holds the
// candidate's id and the text it was told.
type AutoTell struct{ ID, Text string }

// MarkAutoTold consumes the untold auto-accepts that were delivered. Each
// goes only if its text is still the one told. A later auto-accept meanwhile
// stays untold.
func (rs Reviews) MarkAutoTold(told []AutoTell) error {
	for _, a := range told {
		r, err := rs.t.Record(a.ID)
		if err != nil {
			return err
		}
		if r == nil || r.Auto == nil || r.Auto.Untold == "" || r.Auto.Untold != a.Text {
			continue
		}
		r.Auto.Untold = ""
		if err := rs.t.put(r); err != nil {
			return err
		}
	}
	return nil
}

// Halt halts a pending candidate. It stays pending, told with reason, until a
// person records a verdict. The decision is journaled.
func (rs Reviews) Halt(st *Standing, reason string, now time.Time) error {
	rec, err := rs.t.pendingAsCompared(st)
	if err != nil {
		return err
	}
	rec.Halt = &Halt{Reason: printable(reason, maxNoteText), At: now}
	if err := rs.t.put(rec); err != nil {
		return err
	}
	return rs.t.Notes().Add(Note{ID: st.ID, Kind: NoteHalt, At: now, Text: rec.Halt.Reason, Digest: st.Digest()})
}

func (t *Tx) pendingAsCompared(st *Standing) (*Record, error) {
	rec, err := t.Record(st.ID)
	if err != nil {
		return nil, err
	}
	if rec == nil || st.Digest() == nil || !stillAsCompared(rec, st.Prior) || rec.Halt != nil ||
		rec.Review == nil || sameDigest(rec.Review.Digest, st.Digest()) {
		return nil, ErrNotPending
	}
	return rec, nil
}
