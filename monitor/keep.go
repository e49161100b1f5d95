package monitor

import (
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/content"
	"github.com/skillwire/skillwire/history"
	"github.com/skillwire/skillwire/walker"
)

// keeping is one walk's keeping of the versions the daemon sees: what the
// walk read is staged, and the versions of the candidates it saw change or
// appear (or every candidate of a root it observes for the first time) are
// kept in the transaction that stores the walk.
type keeping struct {
	stage *history.Stage
	kept  bool
}

// walkConfig is the daemon's walk configuration, staging into k (one
// stage for all the walks of one step).
func (d *daemon) walkConfig(k *keeping) walker.Config {
	cfg := d.cfg.Walk
	if k.stage == nil {
		k.stage = history.NewStage(0)
	}
	cfg.Keep = k.stage
	return cfg
}

// keep keeps, inside tx, the versions history.Observed chooses from the
// walk of roots.
func (d *daemon) keep(tx *baseline.Tx, k *keeping, roots []*walker.Root, fresh map[string]bool, events []baseline.Event) error {
	wants := history.Observed(roots, fresh, events, tx.ID)
	if len(wants) == 0 {
		return nil
	}
	p, _ := history.Prepare(d.cfg.Store.Dir, k.stage, wants, time.Now().UTC())
	defer p.Close()
	if err := p.Record(tx); err != nil {
		return err
	}
	k.kept = k.kept || p.Kept()
	return nil
}

// collect applies retention after a walk that kept versions, the store
// closed; it yields to any session start writing content.
func (d *daemon) collect(k *keeping) {
	if !k.kept {
		return
	}
	capBytes := d.cfg.SnapshotBytes
	if capBytes <= 0 {
		capBytes = content.DefaultMaxBytes
	}
	if c, err := history.Collect(d.cfg.Store, capBytes); err != nil {
		d.log.Warn().Err(err).Msg("collecting kept versions")
	} else if c.Objects > 0 {
		d.log.Info().Int("objects", c.Objects).Int64("freed", c.Freed).Msg("kept versions collected")
	}
}
