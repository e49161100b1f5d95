package main

import (
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/content"
	"github.com/skillwire/skillwire/history"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/snapshot"
)

// keeping is one command's keeping of versions: the walk stages what it
// reads; after delivery, keep writes the content of the versions worth
// keeping and records them in the caller's transaction. The caller holds
// the store's writer lock, so a collection cannot decide what is live
// until the versions are committed.
type keeping struct {
	stage *history.Stage
	kept  bool
	err   error // why content was not kept (the versions are, not restorable)
}

// keep never fails the caller's transaction: a version not kept loses a
// diff later, while a delivery not recorded would advise it again.
func (k *keeping) keep(tx *baseline.Tx, stateDir string, wants []history.Want) {
	if k == nil || len(wants) == 0 {
		return
	}
	p, err := history.Prepare(stateDir, k.stage, wants, time.Now().UTC())
	//lint:ignore SA5001 Prepare returns its Pending with the error too: the versions are recorded all the same.
	defer p.Close()
	k.err = err
	if p.Record(tx) == nil {
		k.kept = k.kept || p.Kept()
	}
}

// collect says why content was not kept, if it was not, and applies
// retention after the command's store was closed, when it kept anything; a
// cap that is not a number of bytes collects nothing and says so.
func (k *keeping) collect(s *streams, w *world) {
	if k == nil {
		return
	}
	if k.err != nil {
		fmt.Fprintf(s.err, "skillwire: content not kept (those versions cannot be restored): %s\n", defang(k.err.Error()))
	}
	if !k.kept {
		return
	}
	env, _ := s.getenv(content.EnvMaxBytes)
	capBytes, err := content.MaxBytes(env)
	if err != nil {
		fmt.Fprintf(s.err, "skillwire: kept versions not collected: %s\n", defang(err.Error()))
		return
	}
	if _, err := history.Collect(baseline.Options{Dir: w.stateDir, LockTimeout: w.timeout}, capBytes); err != nil {
		fmt.Fprintf(s.err, "skillwire: collecting kept versions: %s\n", defang(err.Error()))
	}
}

// withStaged looks bytes up in what this walk staged first (the content on
// disk now, not yet written), then in get (the content store).
func (k *keeping) withStaged(get func(snapshot.Hash) ([]byte, bool)) func(snapshot.Hash) ([]byte, bool) {
	return func(h snapshot.Hash) ([]byte, bool) {
		if b, ok := k.stage.Get(h); ok {
			return b, true
		}
		return get(h)
	}
}

// deliveredWants are history.Delivered for the advisory delivered and
// the auto-accept outcomes applied with it.
func deliveredWants(adv *session.Advisory, auto []session.AutoOutcome) []history.Want {
	var accepted []*baseline.Standing
	for _, o := range auto {
		if o.Decision.Accept {
			accepted = append(accepted, o.St)
		}
	}
	return history.Delivered(adv.Consume, adv.FirstRun, accepted)
}
