package monitor

import (
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// The daemon keeps the versions it sees. What a walk read is staged. The
// transaction that stores the walk keeps the candidates it saw change or
// appear. It keeps every candidate of a root observed for the first time.
// One history.Keeper serves all the walks of one step.

// walkConfig is the daemon's walk configuration, staging into k. It
// hashes every file and keeps every entry's identity (walker.Identities),
// so a session start stamps the copies it serves from the cache with the
// identity each hash is of. A stamp stated at the start instead would pair
// a write the daemon has not yet walked with the digest from before it.
func (d *daemon) walkConfig(k *history.Keeper) walker.Config {
	cfg := d.cfg.Walk
	if cfg.Reuse == nil {
		cfg.Reuse, cfg.Idents = walker.Identities(), true
	}
	k.Attach(&cfg)
	return cfg
}

// keep keeps, inside tx, the versions history.Observed chooses from the
// walk of roots.
func (d *daemon) keep(tx *baseline.Tx, k *history.Keeper, roots []*walker.Root, fresh map[string]bool, events []cache.Event) error {
	return k.Keep(tx, history.Observed(roots, fresh, events, tx.ID), time.Now().UTC())
}

// collect applies retention after a walk that kept versions, the store
// closed. It yields to any session start writing content.
func (d *daemon) collect(k *history.Keeper) {
	capBytes := d.cfg.SnapshotBytes
	if capBytes <= 0 {
		capBytes = content.DefaultMaxBytes
	}
	if c, err := k.Collect(capBytes); err != nil {
		d.log.Warn().Err(err).Msg("collecting kept versions")
	} else if c.Objects > 0 {
		d.log.Info().Int("objects", c.Objects).Int64("freed", c.Freed).Msg("kept versions collected")
	}
}
