package session

import (
	"context"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// Daemon is what can be known of the daemon. Running: one holds its role
// now (the flock). Heartbeat is its last in the store, nil when none.
type Daemon struct {
	Running   bool
	Heartbeat *cache.Heartbeat
}

// Alive: a daemon holds the role and its heartbeat is fresh. A heartbeat
// alone is not enough: a daemon killed with -9 leaves a fresh one behind.
func (d Daemon) Alive(now time.Time) bool {
	return d.Running && d.Heartbeat.Fresh(now, cache.FreshFor)
}

// Trusts reports whether the daemon's cached observation of root may stand
// in for a walk. The daemon is alive and watches everything, not degraded
// to rescans. Its heartbeat names root.
func (d Daemon) Trusts(root string, now time.Time) bool {
	return d.Alive(now) && d.Heartbeat.Whole && slices.Contains(d.Heartbeat.Roots, root)
}

// cached returns the daemon's cached observations of the roots it is
// trusted for, keyed by root path. nil means every root is walked. Without
// a daemon the store is not even opened: one flock tells. Any trouble with
// the store only means no cache. The caller advises it after the walk.
func cached(roots []claude.Root, opts baseline.Options, now time.Time) map[string]*walker.Root {
	if !cache.DaemonRunning(opts.Dir) {
		return nil
	}
	out := map[string]*walker.Root{}
	err := baseline.View(opts, func(tx *baseline.Tx) error {
		hb, err := tx.Cache().Heartbeat()
		if err != nil {
			return err
		}
		d := Daemon{Running: true, Heartbeat: hb}
		for _, r := range roots {
			// Configuration files are read at every start. They are few and
			// small. No cache holds their canonical form (the facts told) or
			// the scripts they run, outside any watched directory.
			if !d.Trusts(r.Path, now) || r.Kind.Named() || r.Kind == claude.ManagedSettings {
				continue
			}
			c, err := tx.Cache().Root(r.Spec())
			if err != nil {
				return err
			}
			if c != nil {
				out[r.Path] = c
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

// observe walks the roots not cached, all under one shared budget. It
// pairs every root with its observation.
func observe(ctx context.Context, roots []claude.Root, cfg walker.Config, cached map[string]*walker.Root) []baseline.Observation {
	var specs []walker.RootSpec
	for _, r := range roots {
		if cached[r.Path] == nil {
			specs = append(specs, r.Spec())
		}
	}
	walked := walker.Scan(ctx, specs, cfg)
	obs := make([]baseline.Observation, len(roots))
	for i, r := range roots {
		o := cached[r.Path]
		if o == nil {
			o, walked = &walked[0], walked[1:]
		}
		obs[i] = baseline.Observation{Root: r, Walk: o}
	}
	return obs
}
