package monitor

import (
	"os"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/walker"
)

func (d *daemon) heartbeat(at time.Time) cache.Heartbeat {
	h := cache.Heartbeat{PID: os.Getpid(), At: at, Whole: d.degraded == "", Degraded: d.degraded}
	for _, r := range d.roots {
		h.Roots = append(h.Roots, r.Path)
	}
	return h
}

// beat writes the heartbeat, and picks up `clear` and new projects.
func (d *daemon) beat() error {
	roots, err := d.currentRoots()
	if err != nil {
		return err
	}
	if len(roots) != len(d.roots) {
		d.full = true
	}
	made := 0
	err = d.withStore(baseline.Update, func(tx *baseline.Tx) error {
		made = 0
		clear, err := tx.Cache().TakeRescanRequest()
		if err != nil {
			return err
		}
		if clear {
			d.log.Info().Msg("cache cleared: full rescan")
			d.obs = map[string]*walker.Root{}
			d.full = true
		}
		hb := d.heartbeat(time.Now().UTC())
		if hb.At.Sub(d.lastBeatLog) >= beatLogEvery {
			d.lastBeatLog = hb.At
			d.log.Info().Int("roots", len(hb.Roots)).Bool("whole", hb.Whole).Str("degraded", hb.Degraded).Msg("heartbeat")
		}
		if err := tx.Cache().PutHeartbeat(hb); err != nil {
			return err
		}
		made = tx.Commit()
		return nil
	})
	// The heartbeat writes no record: the next beat need not read them.
	if err == nil && made != 0 {
		d.added.carry(made)
	}
	return err
}

// beatLogEvery is how often the heartbeat is logged. A foreground daemon
// that logs only its start and stop looks dead (issue 23).
const beatLogEvery = time.Minute
