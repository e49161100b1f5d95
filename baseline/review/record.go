package review

import (
	"cmp"
	"context"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// Request is one verdict to record.
type Request struct {
	// Store is where the verdict goes. Its Dir receives the fleet event.
	Store baseline.Options
	// Find names the candidate, with the store open for reading.
	Find func(*baseline.Store) (Candidate, error)
	// Verdict is SAFE-TO-PROPOSE, SUSPECT or BLOCK.
	Verdict string
	// Expect is the digest reviewed; nil when none was given.
	Expect *snapshot.Hash
	// Reviewer is who reviewed, stored sanitized.
	Reviewer string
	Walk     walker.Config
	// Keeper keeps the version the verdict names; nil keeps none.
	Keeper *history.Keeper
	// Via names the command in the fleet event: "record" when "".
	Via string
}

// Candidate is the one a verdict is recorded on.
type Candidate struct {
	ID   string
	Root claude.Root
	Name []byte
}

// Result is what Record did. Observed is set once the walk ran, even
// when the verdict was refused: a refusal names what was seen.
type Result struct {
	Candidate
	Observed *walker.Candidate
	Verdict  baseline.Verdict
	// Replaced is the verdict this one replaced, if any.
	Replaced *baseline.Verdict
	// EventErr is why the fleet event was not written. The verdict stands.
	EventErr error
}

// Record binds a verdict to the bytes on disk now, in this order. The
// request is judged before anything is read. The candidate is found with
// the store open, then the store is closed: it is never held during the
// walk. A refusal is decided before the store is opened again, so a
// refusal writes nothing. The verdict and its version kept are one
// transaction. The fleet event follows only a recorded verdict.
func Record(ctx context.Context, r Request) (Result, error) {
	var res Result
	if err := baseline.CheckRequest(r.Verdict, r.Expect); err != nil {
		return res, err
	}
	st, err := baseline.Open(r.Store)
	if err != nil {
		return res, err
	}
	res.Candidate, err = r.Find(st)
	st.Close()
	if err != nil {
		return res, err
	}

	cfg := r.Walk
	if r.Keeper != nil {
		r.Keeper.Attach(&cfg)
	}
	c := walker.ObserveIn(ctx, res.Root.Spec(), res.Name, cfg)
	res.Observed = &c
	res.Verdict = baseline.Verdict{Verdict: r.Verdict, Reviewer: baseline.SanitizeReviewer(r.Reviewer),
		At: time.Now().UTC().Truncate(time.Second), Digest: baseline.DigestOf(&c)}
	tg := baseline.Target{ID: res.ID, Root: res.Root, Name: res.Name, Observed: &c, Expect: r.Expect}
	if err := baseline.CheckVerdict(tg, res.Verdict); err != nil {
		return res, err
	}

	err = baseline.Update(r.Store, func(tx *baseline.Tx) error {
		var err error
		if res.Replaced, err = tx.RecordVerdict(tg, res.Verdict); err == nil && r.Keeper != nil {
			// A version not kept loses a diff later; it never fails the
			// verdict.
			r.Keeper.Keep(tx, history.OnVerdict(res.ID, &c, res.Verdict), time.Now().UTC())
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.EventErr = events.Append(ctx, r.Store.Dir, verdictEvent(&res, cmp.Or(r.Via, "record")))
	return res, nil
}

// verdictEvent is the fleet's event of a recorded verdict.
func verdictEvent(res *Result, via string) events.Event {
	v := &res.Verdict
	name, _ := res.Root.Display(res.Name)
	digest := "-"
	if v.Digest != nil {
		digest = v.Digest.String()
	}
	c := events.Candidate{ID: res.ID, Kind: claude.KindOf(res.Root.Kind, res.Name, &res.Observed.Manifest),
		Scope: string(res.Root.Scope), Name: name, Path: res.Root.Path + "/" + string(res.Name)}
	return events.Verdict(events.Origin{Time: v.At, Via: via}, c, v.Verdict, digest, v.Reviewer)
}
