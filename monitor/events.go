package monitor

import (
	"bytes"
	"context"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// reconcile attaches to events their file changes (reconcile.Events). It
// runs before they are stored, outside the store's write lock. An event
// not reconciled is stored and told all the same.
func (d *daemon) reconcile(events []cache.Event) {
	if len(events) == 0 {
		return
	}
	scopes, err := auditlog.Scopes(d.cfg.AuditLog, d.roots)
	if err == nil {
		err = reconcile.Events(d.cfg.Store, scopes, events, d.current, d.rootAt, d.cfg.Walk.Limits, time.Now())
	}
	if err != nil {
		d.log.Warn().Err(err).Msg("change events not reconciled")
	}
}

// current is the candidate name of root as last observed, nil when none.
func (d *daemon) current(root string, name []byte) *walker.Candidate {
	r := d.obs[root]
	if r == nil {
		return nil
	}
	for i := range r.Candidates {
		if bytes.Equal(r.Candidates[i].Name, name) {
			return &r.Candidates[i]
		}
	}
	return nil
}

// putEvents stores evs in tx. It returns what tells them: the log lines
// and the fleet events. The caller runs it once tx has committed, the
// store closed. So nothing is told of a batch the store did not keep, and
// no hook waits on the store while findings are counted. kp holds what the
// walks staged: a changed candidate's content is read from it.
func (d *daemon) putEvents(tx *baseline.Tx, evs []cache.Event, kp *history.Keeper) (tell func(), err error) {
	for i := range evs {
		evs[i].ID = tx.ID(string(evs[i].Root), evs[i].Name)
	}
	if err := tx.Events().Append(evs); err != nil {
		return nil, err
	}
	refs := make(map[string]*snapshot.Manifest, len(evs))
	for i := range evs {
		refs[evs[i].ID] = referenceOf(tx, evs[i].ID)
	}
	return func() {
		for i := range evs {
			d.logEvent(&evs[i])
		}
		if len(evs) == 0 {
			return
		}
		kept := history.OpenKept(d.cfg.Store.Dir)
		defer kept.Close()
		content := kp.Content(kept.Get)
		d.appendEvents(evs, func(ev *cache.Event, cur *walker.Candidate) []events.FindingCount {
			return findingsOf(refs[ev.ID], cur, content)
		})
	}, nil
}

// referenceOf is the manifest the store keeps as id's reference: its SAFE
// review, else what was delivered, else nil.
func referenceOf(tx *baseline.Tx, id string) *snapshot.Manifest {
	if ref, err := tx.Reviews().Reference(id); err == nil && ref != nil {
		return ref.Manifest
	}
	return nil
}

// findingsOf counts the content findings of cur against prev, its
// reference (nil: none).
func findingsOf(prev *snapshot.Manifest, cur *walker.Candidate, content func(snapshot.Hash) ([]byte, bool)) []events.FindingCount {
	var out []events.FindingCount
	for _, k := range findings.CountsSince(prev, &cur.Manifest, content, cur.Name) {
		out = append(out, events.FindingCount{Kind: k.Kind, Count: k.Count})
	}
	return out
}

// logEvent logs one change the daemon observed. It names the candidate by
// id, and by name only when the name passes the display gate. It says what
// happened, with the reconciled file changes (their paths gated already).
func (d *daemon) logEvent(ev *cache.Event) {
	what := "changed"
	switch {
	case ev.Before == nil && ev.After != nil:
		what = "appeared"
	case ev.After == nil && ev.Before != nil:
		what = "vanished"
	case ev.After == nil:
		what = "not fully observable"
	}
	l := d.log.Info().Str("candidate", ev.ID).Str("root", anomaly.QuoteBytes(ev.Root))
	if r := d.rootAt(string(ev.Root)); r != nil {
		if n, ok := r.Display(ev.Name); ok {
			l = l.Str("name", n)
		}
	}
	if ev.After != nil {
		l = l.Str("digest", ev.After.String())
	}
	files := make([]string, 0, len(ev.Changes))
	for _, c := range ev.Changes {
		files = append(files, c.Change+" "+c.Path+" ("+c.Class+")")
	}
	if len(files) > 0 {
		l = l.Strs("files", files)
	}
	l.Msg("candidate " + what)
}

// appendEvents tells a fleet of each change the daemon observed: an OCSF
// Detection Finding per candidate, a new or changed one with its content
// findings counted (found). A failure is logged, never fatal.
func (d *daemon) appendEvents(evs []cache.Event, found func(*cache.Event, *walker.Candidate) []events.FindingCount) {
	out := make([]events.Event, 0, len(evs))
	var policy *settings.ModPolicy
	for i := range evs {
		ev := &evs[i]
		obs := events.Observation{State: "changed", Unexpected: 0}
		switch {
		case ev.Before == nil && ev.After != nil:
			obs.State = "new"
		case ev.After == nil && ev.Before != nil:
			obs.State = "removed"
		case ev.After == nil:
			obs.State = "partial"
		}
		if ev.After != nil {
			obs.Digest = ev.After.String()
		}
		if ev.Before != nil {
			obs.Previous = ev.Before.String()
		}
		for _, c := range ev.Changes {
			if c.Class == "unexpected" {
				obs.Unexpected++
			}
		}
		c := events.Candidate{ID: ev.ID, Path: string(ev.Root) + "/" + string(ev.Name)}
		if r := d.rootAt(string(ev.Root)); r != nil {
			c.Kind, c.Scope = claude.CandidateKind(r.Kind, ev.Name), string(r.Scope)
			c.Name, _ = r.Display(ev.Name)
		}
		cur := d.current(string(ev.Root), ev.Name)
		if cur != nil && ev.After != nil && !cur.Partial() {
			obs.Findings = found(ev, cur)
		}
		out = append(out, events.CandidateObserved(events.Origin{Time: ev.At, Via: "daemon"}, c, obs))
		if r := d.rootAt(string(ev.Root)); r != nil && cur != nil && ev.After != nil {
			if facts := settings.ModTexts(r.Kind, cur.Canonical); facts != nil {
				if policy == nil { // read once a round, and only for a mod
					p := settings.ModPolicyOf(claude.Places{Config: d.cfg.CfgDir, Managed: d.cfg.ManagedDir})
					policy = &p
				}
				out = append(out, events.Mod(events.Origin{Time: ev.At, Via: "daemon"}, c, obs.Digest, facts, policy.String(), policy.Held()))
			}
		}
	}
	if err := events.Append(d.ctx, d.cfg.Store.Dir, out...); err != nil {
		d.log.Warn().Err(err).Msg("the fleet events of these changes were not written")
	}
}

// ship sends the fleet events until ctx ends. A failed round is logged and
// tried again at the next. Ship keeps its cursor, so nothing is lost.
func (d *daemon) ship(ctx context.Context) {
	every := d.cfg.ShipEvery
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := d.cfg.Ship(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn().Err(err).Msg("fleet events not shipped this round; kept for the next")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
