package restore

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// ErrPreview: the changes a restore would make could not be read for its
// preview, as a kept object could not be read. Nothing was written.
var ErrPreview = errors.New("the preview of the restore could not be made")

// Preview is what a restore would change, given to confirm before anything
// is written.
type Preview struct {
	Current *walker.Candidate  // the candidate on disk now
	Files   []history.FileDiff // from it to the target, file by file (a tree)
	Config  *ConfigChange      // the file's edit (a settings or MCP candidate)
}

// Outcome is what Do did. Result is nil when no exchange was made: the
// candidate already is the target (Already), or confirm said no. Once the
// exchange is made, what failed after it is said here, never as Do's
// error. The tree in place changed, whatever followed.
type Outcome struct {
	Already bool
	Result  *Result
	// StoreErr: the store was not updated, so the audit log was not
	// written either.
	StoreErr error
	// AuditErr: the audit log was not written. Skipped rollback entries
	// were not logged: their paths are not UTF-8.
	AuditErr error
	Skipped  int
	// EventErr: the fleet event of the exchange was not written.
	EventErr error
}

// Do restores r.Target in place of the candidate, in the one order that
// loses nothing. First the candidate is observed now, its content staged,
// and checked. Then confirm is given the preview and says whether to go
// on; its error is returned as it is. The displaced tree's content is
// written to the content store before the exchange. So it is kept whole
// whatever happens next. Then the exchange is run. The store records it:
// as restored, or noted when the tree in place is not the target. Only
// then is a verified restore appended to the audit log at r.AuditLog.
func Do(ctx context.Context, r *Request, confirm func(Preview) (bool, error)) (Outcome, error) {
	if claude.IsForm(r.Root.Kind, r.Name) {
		return doConfig(ctx, r, confirm)
	}
	stage, err := r.observe(ctx, check)
	if err != nil || r.Current.Digest == r.Target.Digest {
		return Outcome{Already: err == nil}, err
	}
	ds, err := history.Diff(&r.Current.Manifest, &r.Target.Manifest, withStage(stage, r.Content), r.Content,
		r.Root.BoundNames(r.Name, append([][]byte{r.Current.Canonical}, r.Forms...)...))
	if err != nil {
		return Outcome{}, fmt.Errorf("%w: %w", ErrPreview, err)
	}
	if ok, err := confirm(Preview{Current: r.Current, Files: ds}); !ok {
		return Outcome{}, err
	}
	return r.finish(ctx, stage, func() (*Result, error) { return run(r) })
}

// observe walks the candidate now into r.Current, and checks the request
// with check. Its content is staged: it is kept as the displaced version.
func (r *Request) observe(ctx context.Context, check func(*Request) error) (*history.Stage, error) {
	cfg := r.Walk
	stage := history.Attach(&cfg)
	cur := walker.ObserveIn(ctx, r.Root.Spec(), r.Name, cfg)
	r.Current = &cur
	return stage, check(r)
}

// finish keeps the displaced version, its content staged. Then it makes
// the change with put, and records what it made. The store comes first,
// then the audit log for a verified restore, then the fleet event.
func (r *Request) finish(ctx context.Context, stage *history.Stage, put func() (*Result, error)) (Outcome, error) {
	p, _ := history.Prepare(r.StateDir, stage, []history.Want{{ID: r.ID, Manifest: &r.Current.Manifest, How: baseline.HowDisplaced}}, r.Now)
	defer p.Close()
	res, err := put()
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Result: res}
	if out.StoreErr = r.recordExchange(p, res); out.StoreErr == nil && res.Verified {
		_, out.Skipped, out.AuditErr = audit(r.AuditLog, r, res)
	}
	out.EventErr = r.event(ctx, r.Current, res)
	return out, nil
}

// event tells a fleet of an exchange made (File Remediation Activity). It
// holds the displaced digest, what is in place, and where the displaced
// tree went. failure is set when what is in place is not the target.
func (r *Request) event(ctx context.Context, cur *walker.Candidate, res *Result) error {
	var failed error
	if !res.Verified {
		failed = errors.New("what is in place is not the target: a writer changed it during the restore")
	}
	kind := claude.CandidateKind(r.Root.Kind, r.Name)
	name, _ := r.Root.Display(r.Name)
	c := events.Candidate{ID: r.ID, Kind: kind, Scope: string(r.Root.Scope), Name: name, Path: r.Root.Path + "/" + string(r.Name)}
	ev := events.Restore(events.Origin{Time: r.Now, Via: "restore"}, c, cur.Digest.String(), res.InPlace.String(), cmp.Or(res.Quarantine, res.Backup), failed)
	return events.Append(ctx, r.StateDir, ev)
}

// recordExchange records an exchange made, in one transaction. The
// displaced version is always recorded. The restore is too when the
// target was verified in place; else a note of what is.
func (r *Request) recordExchange(p *history.Pending, res *Result) error {
	st, err := baseline.Open(baseline.Options{Dir: r.StateDir, LockTimeout: r.LockTimeout})
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Update(func(tx *baseline.Tx) error {
		if err := p.Record(tx); err != nil {
			return err
		}
		if !res.Verified {
			return recordUnverified(tx, r, res)
		}
		return recordRestored(tx, r)
	})
}

// withStage reads first what the walk staged: the bytes on disk now, not
// yet kept. Then it reads get.
func withStage(stage *history.Stage, get history.Content) history.Content {
	return func(h snapshot.Hash, size int64) ([]byte, bool, error) {
		if b, ok := stage.Get(h); ok {
			return b, true, nil
		}
		return get(h, size)
	}
}
