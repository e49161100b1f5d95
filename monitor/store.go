package monitor

import (
	"errors"
	"time"

	"github.com/skillwire/skillwire/baseline"
)

// withStore runs fn in one brief transaction, baseline.View or
// baseline.Update. The daemon never keeps the store open between batches.
// Lock contention is transient: it is retried at most twice. Anything else
// is deterministic (corrupt, untrusted, stale). It stops the daemon with
// the reason.
func (d *daemon) withStore(brief func(baseline.Options, func(*baseline.Tx) error) error, fn func(*baseline.Tx) error) error {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		err = brief(d.cfg.Store, fn)
		if !errors.Is(err, baseline.ErrBusy) {
			break
		}
		d.log.Warn().Int("attempt", attempt).Int("of", 3).Msg("store busy")
		if attempt < 3 {
			select {
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			case <-d.ctx.Done():
				return nil
			}
		}
	}
	if errors.Is(err, baseline.ErrBusy) {
		// Transient: this batch is lost. The next beat rebuilds the cache
		// whole, rather than trust it with a gap.
		d.full = true
		return nil
	}
	if err != nil {
		d.log.Error().Err(err).Msg("store unusable")
	}
	return err
}
