package session

import (
	"context"
	"github.com/skillwire/skillwire/session/unrecorded"
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/gate/served"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// Start is one session start. It holds the roots it observes and how, the
// store it compares them with, and what the comparison needs.
type Start struct {
	Roots []claude.Root
	Walk  walker.Config
	// WalkTimeout bounds the walk. What it did not reach in time is told
	// as not fully observable.
	WalkTimeout time.Duration
	Store       baseline.Options
	// Audit reads the audit logs, and says in fixed words why it could
	// not. It is called only when something is to be reconciled.
	Audit func() ([]reconcile.Source, string)
	// Project, when set, is registered once, for the daemon to watch.
	Project string
	// Log receives a line per auto-accept, halt and delivery. It also
	// hears why a delivery was not recorded.
	Log zerolog.Logger
	// Warned: the deliverer adds a warning of its own. So even an
	// advisory with nothing to say is delivered.
	Warned bool
	// Session is Claude Code's session id, for the fleet's events.
	Session string
	// Places, when set, are read for other projects that switch
	// skillwire's hooks off. Those are told where its hooks still run.
	Places claude.Places
	// Stderr, when set, hears what the hook could not do beside its
	// answer. The fleet events not written on a full disk, say.
	Stderr io.Writer
}

// Run is one session start, end to end. It observes the roots, the
// daemon's cache standing in where it is trusted. It compares them with
// the store, reconciles and auto-accepts, and builds the advisory. deliver
// gets its text and the person's notice, and reports whether it wrote
// them whole. Only then is what it told recorded (Deliver). Without a
// usable store the advisory says so, with what could not be observed. It
// records nothing then. The error is why the store could not be read, or
// why what was delivered was not recorded (logged too). The next session
// advises it again.
func Run(ctx context.Context, s Start, deliver func(text, notice string) bool) (Advisory, error) {
	// What the content store keeps already is not staged again. An
	// unchanged tree's walk then copies nothing, and faults no memory in.
	kept := history.OpenKept(s.Store.Dir)
	defer kept.Close()
	keep := history.NewKeeper(s.Store, kept.Has)
	cfg := s.Walk
	keep.Attach(&cfg)

	// The install record is checked beside the walk, within its time.
	// Past it, the record is told unchecked.
	recordCtx, cancelRecord := context.WithTimeout(ctx, s.WalkTimeout)
	defer cancelRecord()
	records := startRecordCheck(recordChecker(s.Places))

	markStart(s)
	// The store is never held during the walk.
	walkCtx, cancel := context.WithTimeout(ctx, s.WalkTimeout)
	obs := observe(walkCtx, s.Roots, cfg, cached(s.Roots, s.Store, time.Now()))
	cancel()
	// Kept at once: a start past its deadline ends with the process, and
	// would parse the same hostile frontmatter at every start.
	_ = cfg.Fronts.Save() // a failed save costs a parse

	c := comparison{Store: s.Store, Obs: obs, Limits: cfg.Limits, Now: time.Now().UTC(), Project: s.Project, Places: s.Places, Log: s.Log,
		Audit: s.Audit, Content: keep.Content(kept.Get)}
	in, err := c.prepare()
	if err == nil {
		keepServed(s, obs, c.Now)
	}
	in.InstallRecord, in.InstallRecordLate = records.wait(recordCtx)
	in.Unrecorded = unrecorded.Read(s.Store.Dir)
	if err != nil {
		// Nothing to compare with: say so, and what could not be observed.
		adv := build(Input{Obs: obs, Standings: baseline.Fresh(obs), StoreProblem: storeProblem(err),
			InstallRecord: in.InstallRecord, InstallRecordLate: in.InstallRecordLate})
		deliver(adv.Text, adv.Notice)
		return adv, err
	}
	adv := build(in)
	if adv.Text == "" && !s.Warned {
		return adv, nil
	}
	delivered, err := Deliver(Delivery{Store: s.Store, Advisory: adv, Auto: in.Auto, Keeper: keep}, func() bool {
		ok := deliver(adv.Text, adv.Notice)
		s.Log.Info().Bool("delivered", ok).Str("told", adv.Text).Msg("session-start")
		return ok
	})
	if err != nil {
		s.Log.Warn().Err(err).Msg("session-start: delivered, not recorded; the next session is told again, and why")
	}
	if merr := unrecorded.After(s.Store.Dir, c.Now, delivered, err, in.Unrecorded != nil); merr != nil {
		s.Log.Warn().Err(merr).Msg("session-start: the unrecorded mark was not kept or cleared")
	}
	if delivered && err == nil {
		// Only after the session was told and it was recorded. The fleet
		// sees what the person and the model were told.
		appendFleetEvents(ctx, s, &adv, &in, c.Content)
	}
	if kerr := keep.Err(); kerr != nil {
		s.Log.Warn().Err(kerr).Msg("session-start: content not kept (those versions cannot be restored)")
	}
	return adv, err
}

// markStart marks the session as started before its walk. If what the
// client serves is then not kept, its uses are asked, not judged on the
// disk alone (served.MarkStart).
func markStart(s Start) {
	if s.Session == "" {
		return
	}
	if err := served.MarkStart(s.Store, s.Session, time.Now().UTC()); err != nil {
		s.Log.Warn().Err(err).Msg("session-start: not marked; if its copies are not kept either, its uses are judged on the disk")
	}
}

// keepServed keeps, for the session, what its start observed of the
// folders the client serves as read at its start (served.KeepStart). The
// gate judges those skills' uses on that copy. Not kept, the session's
// mark leaves them asked; it is logged.
func keepServed(s Start, obs []baseline.Observation, now time.Time) {
	if s.Session == "" {
		return
	}
	if err := served.KeepStart(s.Store, s.Session, obs, s.Places.Nested, now); err != nil {
		s.Log.Warn().Err(err).Msg("session-start: the copies the client serves were not kept")
	}
}

// Delivery is an advisory to deliver, and what delivering it records.
type Delivery struct {
	Store    baseline.Options
	Advisory Advisory
	// Auto are the auto-accept outcomes applied with the advisory. The
	// versions accepted are kept with those it consumed.
	Auto []AutoOutcome
	// Keeper keeps the versions delivered (history.Delivered); nil keeps
	// none.
	Keeper *history.Keeper
}

// Deliver is the one delivery path, for session starts and `scan
// --update`. deliver hands the advisory over and reports whether it was
// written whole. Only then is what it told recorded, in one transaction
// (Advisory.Apply, and the versions it delivered kept). Never advance
// before delivery: an undelivered advisory records nothing. So the next
// session is told again. It reports whether deliver succeeded. The error
// is why what was delivered was not recorded.
func Deliver(d Delivery, deliver func() bool) (bool, error) {
	if !deliver() {
		return false, nil
	}
	var wants []history.Want
	if d.Keeper != nil {
		wants = deliveredWants(&d.Advisory, d.Auto)
	}
	if !d.Advisory.Applies() && len(wants) == 0 {
		return true, nil
	}
	return true, baseline.Update(d.Store, func(tx *baseline.Tx) error {
		now := time.Now().UTC()
		if err := d.Advisory.Apply(tx, now); err != nil {
			return err
		}
		// A version not kept loses a diff later. It never fails the
		// delivery: one not recorded would be told again.
		if d.Keeper != nil {
			d.Keeper.Keep(tx, wants, now)
		}
		return nil
	})
}

// Scanned is what `scan --update` delivers. Every standing it printed
// becomes the delivered baseline, accepted as such on the store's first
// run. It prints no change event, pending review, auto-accept, rename or
// instruction file. So it consumes none: the next session start tells
// them.
func Scanned(sts []baseline.Standing, firstRun bool) Advisory {
	return Advisory{Consume: sts, FirstRun: firstRun}
}

// deliveredWants are history.Delivered for the advisory delivered and the
// auto-accept outcomes applied with it.
func deliveredWants(adv *Advisory, auto []AutoOutcome) []history.Want {
	var accepted []*baseline.Standing
	for _, o := range auto {
		if o.Decision.Accept {
			accepted = append(accepted, o.St)
		}
	}
	return history.Delivered(adv.Consume, adv.FirstRun, accepted)
}
