package history

import (
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/walker"
)

// Keeper is one run's keeping of versions, for the commands and the daemon
// alike. Its walks stage what they read (Attach). A transaction records a
// delivery, an observation or a verdict. Inside it, Keep writes the
// content of the versions worth keeping and records them. After the store
// is closed, Collect applies retention. The caller's transaction holds the
// store's writer lock. So a collection cannot decide what is live until
// the versions are committed.
type Keeper struct {
	store baseline.Options
	stage *Stage
	kept  bool
	err   error // why content was not kept (the versions are, not restorable)
}

// NewKeeper keeps versions in the state directory of store. known, when
// not nil, names content kept already: the content store's Has. It is not
// staged again, so an unchanged tree's walk copies nothing.
func NewKeeper(store baseline.Options, known func(snapshot.Hash) bool) *Keeper {
	s := NewStage(0)
	s.known = known
	return &Keeper{store: store, stage: s}
}

// Attach makes cfg's walks stage what they read into k.
func (k *Keeper) Attach(cfg *walker.Config) { cfg.Keep = k.stage }

// Keep writes the staged content of wants into the content store and
// records the versions in tx. Content that cannot be written leaves the
// versions recorded, not restorable, and Err says why. The error returned
// is tx's: the versions could not be recorded.
func (k *Keeper) Keep(tx *baseline.Tx, wants []Want, now time.Time) error {
	if len(wants) == 0 {
		return nil
	}
	p, err := Prepare(k.store.Dir, k.stage, wants, now)
	//lint:ignore SA5001 Prepare returns its Pending with the error too: the versions are recorded all the same.
	defer p.Close()
	if err != nil {
		k.err = err
	}
	if err := p.Record(tx); err != nil {
		return err
	}
	k.kept = k.kept || p.Kept()
	return nil
}

// Err says why content was not kept, nil when it was.
func (k *Keeper) Err() error { return k.err }

// Kept reports whether any version was recorded, so Collect has work.
func (k *Keeper) Kept() bool { return k.kept }

// Collect applies retention under capBytes, by collect's rules. It runs
// once k's store is closed, when k kept anything.
func (k *Keeper) Collect(capBytes int64) (content.Collected, error) {
	if !k.kept {
		return content.Collected{}, nil
	}
	return collect(k.store, capBytes)
}

// Content looks bytes up first in what k's walks staged: the content on
// disk now, not yet written. Then it looks in get, the content store.
func (k *Keeper) Content(get func(snapshot.Hash) ([]byte, bool)) func(snapshot.Hash) ([]byte, bool) {
	return func(h snapshot.Hash) ([]byte, bool) {
		if b, ok := k.stage.Get(h); ok {
			return b, true
		}
		return get(h)
	}
}
