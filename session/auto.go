package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
)

// AutoOutcome is auto-accept's decision on one pending candidate.
type AutoOutcome struct {
	St       *baseline.Standing
	Decision reconcile.AutoDecision
}

// Text is the outcome in one line, for the journal, the hook log and the
// session. It holds fixed words, numbers and a gated source only.
func (o *AutoOutcome) Text() string {
	d := &o.Decision
	if !d.Accept {
		return "halted: " + d.Reason
	}
	return fmt.Sprintf("auto-accepted: announced by %s, drift %s, cumulative %s since the last review by a person",
		d.Source, pct(d.Drift, d.HumanWords), pct(d.Cumulative, d.HumanWords))
}

func pct(words, of int) string {
	if of == 0 {
		return "0 %"
	}
	return fmt.Sprintf("%d %%", (words*100+of/2)/of)
}

// DecideAuto runs auto-accept for every pending candidate not yet halted.
// It is off until a person trusts a source: then nothing is decided, and
// pending candidates stay pending. content returns kept bytes by BLAKE3.
// nil means none are kept. Every change then halts ("previous content not
// kept") rather than being accepted unmeasured.
func DecideAuto(sts []baseline.Standing, rec map[string]*reconcile.Reconciliation, trusted []string, content func(snapshot.Hash) ([]byte, bool)) []AutoOutcome {
	if len(trusted) == 0 {
		return nil
	}
	if content == nil {
		content = func(snapshot.Hash) ([]byte, bool) { return nil, false }
	}
	var out []AutoOutcome
	for i := range sts {
		st := &sts[i]
		// A review carried over by a rename waits for a person. Nobody
		// announced the rename.
		if !isPending(st) || st.Prior.Halt != nil || st.Prior.Renamed != nil || st.Digest() == nil {
			continue
		}
		r := rec[st.ID]
		if r == nil {
			continue // nothing reconciled for it this session: decided when it is
		}
		var d reconcile.AutoDecision
		switch {
		case r.Incomplete:
			d.Reason = "not fully observed"
		case r.Against != baseline.RefReview:
			d.Reason = "reviewed version not kept"
		default:
			in := reconcile.AutoInput{Changes: r.Changes, Trusted: trusted, Old: r.Reference, New: &st.Observed.Manifest, Content: content}
			if a := st.Prior.Auto; a != nil {
				in.HumanWords, in.Drifted, in.Replaced, in.ReplacedContent = a.HumanWords, a.Drift, a.Replaced, a.ReplacedContent
			}
			d = reconcile.AutoAccept(in)
		}
		out = append(out, AutoOutcome{St: st, Decision: d})
	}
	return out
}

// ApplyAuto records the outcomes: an accepted change moves the review to
// the new content (reviewer auto:SOURCE), a refused one halts the
// candidate; both are journaled. An outcome whose candidate another
// process acted on meanwhile is skipped. It returns the outcomes applied.
func ApplyAuto(tx *baseline.Tx, outs []AutoOutcome, now time.Time) ([]AutoOutcome, error) {
	var applied []AutoOutcome
	for i := range outs {
		o := &outs[i]
		var err error
		if o.Decision.Accept {
			err = tx.Reviews().AutoAccept(o.St, baseline.AutoAccepted{Source: o.Decision.Source, HumanWords: o.Decision.HumanWords,
				Drift: o.Decision.Drift, Text: o.Text(), Replaces: o.Decision.Replaces}, now)
		} else {
			err = tx.Reviews().Halt(o.St, o.Decision.Reason, now)
		}
		switch {
		case errors.Is(err, baseline.ErrNotPending):
		case err != nil:
			return applied, err
		default:
			applied = append(applied, *o)
		}
	}
	return applied, nil
}
