package monitor

import (
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// rescan walks every root under the shared budget, exactly as the hook
// would. It records as events what changed since the last observation. It
// rebuilds the watches. carry are events found by walks already in d.obs:
// a flush fell back to this rescan. They are stored with its own.
func (d *daemon) rescan(carry []cache.Event) error {
	roots, err := d.currentRoots()
	if err != nil {
		return err
	}
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec()
	}
	dropped := []string{}
	for p := range d.obs {
		if !slices.ContainsFunc(roots, func(r claude.Root) bool { return r.Path == p }) {
			dropped = append(dropped, p)
		}
	}
	var walked []walker.Root
	events := carry
	kp := history.NewKeeper(d.cfg.Store, nil)
	defer d.collect(kp)
	fresh := map[string]bool{}
	var now time.Time
	// A watch is added after the walk that proved its directory. What was
	// created in between raised no event. So whatever a walk newly
	// watches is walked again. A root, or a root's parent, is walked at
	// once, here. A candidate's new directories get a debounced walk
	// (TestDaemonSeesWhatWasMadeBetweenTheWalkAndTheWatch).
	for round := 0; ; round++ {
		walked = walker.Scan(d.ctx, specs, d.walkConfig(kp))
		now = time.Now().UTC()
		obs := map[string]*walker.Root{}
		for i := range walked {
			r := &walked[i]
			obs[r.Spec.Path] = r
			if d.obs[r.Spec.Path] == nil {
				fresh[r.Spec.Path] = true // first seen: every version in it is one the daemon saw
			}
			events = append(events, diffRoot(d.obs[r.Spec.Path], r, now)...)
		}
		d.roots, d.obs, d.full = roots, obs, false
		d.pending = map[candKey]time.Time{}
		if d.degraded == degradedOverflow {
			d.degraded = "" // the rescan covered whatever the queue lost
		}
		if !d.rewatch() {
			break
		}
		if round == 2 {
			d.full = true // still settling: once more at the next turn
			break
		}
	}
	d.reconcile(events)
	d.noteHooksOff()
	var tell func()
	err = d.withStore(baseline.Update, func(tx *baseline.Tx) error {
		tell = nil
		for _, p := range dropped {
			if err := tx.Cache().DropRoot(p); err != nil {
				return err
			}
		}
		for i := range walked {
			if err := tx.Cache().PutRoot(&walked[i], now); err != nil {
				return err
			}
		}
		told, err := d.putEvents(tx, events, kp)
		if err != nil {
			return err
		}
		if err := d.keep(tx, kp, rootsOf(walked), fresh, events); err != nil {
			return err
		}
		if err := tx.Cache().PutHeartbeat(d.heartbeat(now)); err != nil {
			return err
		}
		tell = told
		return nil
	})
	return d.told(err, tell)
}

// told runs tell, what a committed batch tells, when the store kept it.
// A busy store keeps nothing and runs no tell: withStore then answers nil
// with tell still nil.
func (d *daemon) told(err error, tell func()) error {
	if err == nil && tell != nil {
		tell()
	}
	return err
}

func rootsOf(walked []walker.Root) []*walker.Root {
	out := make([]*walker.Root, len(walked))
	for i := range walked {
		out[i] = &walked[i]
	}
	return out
}

// flushDue walks each candidate whose debounce has expired. A candidate
// walked alone gets the budget the others leave. It may end partial, or
// have vanished: a full scan might answer otherwise. Then the daemon
// rescans everything instead. So the hook's fast path and its walk agree.
func (d *daemon) flushDue(now time.Time) error {
	var due []candKey
	for k, t := range d.pending {
		if !t.After(now) {
			due = append(due, k)
		}
	}
	if len(due) == 0 {
		return nil
	}
	slices.SortFunc(due, func(a, b candKey) int { return strings.Compare(a.root+"\x00"+a.name, b.root+"\x00"+b.name) })
	var updated []*walker.Candidate
	var roots []string
	var events []cache.Event
	at := time.Now().UTC()
	kp := history.NewKeeper(d.cfg.Store, nil)
	defer d.collect(kp)
	for _, k := range due {
		delete(d.pending, k)
		r := d.obs[k.root]
		if r == nil {
			d.full = true
			continue
		}
		i := slices.IndexFunc(r.Candidates, func(c walker.Candidate) bool { return string(c.Name) == k.name })
		if i < 0 || r.Candidates[i].Partial() {
			d.full = true
			continue
		}
		cfg := d.walkConfig(kp)
		cfg.Budget = d.budgetLeft(&r.Candidates[i])
		c := walker.ObserveIn(d.ctx, d.specOf(k.root), []byte(k.name), cfg)
		if c.Partial() || isRootAnomaly(&c) {
			d.full = true
			continue
		}
		c.Kind = kindOf(&c)
		if ev, ok := diffCandidate(k.root, &r.Candidates[i], &c, at); ok {
			events = append(events, ev)
		}
		r.Candidates[i] = c
		updated = append(updated, &r.Candidates[i])
		roots = append(roots, k.root)
	}
	if d.full || d.rewatch() {
		// Walked candidates are in d.obs already: their events go with
		// the rescan's (TestDaemonKeepsEventsWhenAFlushFallsBackToARescan).
		return d.rescan(events)
	}
	d.reconcile(events)
	d.noteHooksOff()
	var tell func()
	err := d.withStore(baseline.Update, func(tx *baseline.Tx) error {
		tell = nil
		for i, c := range updated {
			if err := tx.Cache().PutCandidate(roots[i], c); err != nil {
				return err
			}
		}
		told, err := d.putEvents(tx, events, kp)
		if err != nil {
			return err
		}
		walkedRoots := map[*walker.Root]bool{}
		var rs []*walker.Root
		for _, p := range roots {
			if r := d.obs[p]; !walkedRoots[r] {
				walkedRoots[r] = true
				rs = append(rs, r)
			}
		}
		if err := d.keep(tx, kp, rs, nil, events); err != nil {
			return err
		}
		if err := tx.Cache().PutHeartbeat(d.heartbeat(at)); err != nil {
			return err
		}
		tell = told
		return nil
	})
	return d.told(err, tell)
}

// budgetLeft is the scan budget minus what every other candidate uses.
func (d *daemon) budgetLeft(except *walker.Candidate) walker.Budget {
	b := d.cfg.Walk.Budget
	for _, r := range d.obs {
		for i := range r.Candidates {
			c := &r.Candidates[i]
			if c == except {
				continue
			}
			b.MaxEntries -= int64(len(c.Manifest.Entries))
			for _, e := range c.Manifest.Entries {
				b.MaxBytes -= e.Size
			}
		}
	}
	return walker.Budget{MaxEntries: max(b.MaxEntries, 0), MaxBytes: max(b.MaxBytes, 0)}
}

func isRootAnomaly(c *walker.Candidate) bool {
	es := c.Manifest.Entries
	return len(es) == 1 && len(es[0].Path) == 0 && es[0].Kind == snapshot.Anomaly && es[0].Reason == anomaly.Root
}

// kindOf recovers a candidate's kind from its manifest. Observe does not
// know the root's rules, only what it found.
func kindOf(c *walker.Candidate) walker.Kind {
	if len(c.Manifest.Entries) > 0 && len(c.Manifest.Entries[0].Path) == 0 {
		switch c.Manifest.Entries[0].Kind {
		case snapshot.Dir:
			return walker.KindDir
		case snapshot.File:
			return walker.KindFile
		}
	}
	return c.Kind
}
