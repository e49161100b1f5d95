package monitor

import (
	"errors"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/skillwire/skillwire/claude"
)

// loop runs the daemon's turns until ctx ends. A turn waits for an
// event, a watcher error, a due walk or a beat. Then it rescans if one is
// pending, walks the candidates whose debounce expired, and sets the timer
// for the next due walk.
func (d *daemon) loop() error {
	beat := time.NewTicker(d.cfg.Heartbeat)
	defer beat.Stop()
	lastFull := time.Now()
	flush := time.NewTimer(time.Hour)
	defer flush.Stop()
	for {
		select {
		case <-d.ctx.Done():
			d.log.Info().Msg("daemon stopping")
			return nil
		case ev, ok := <-d.w.Events():
			if !ok {
				return errors.New("watcher closed")
			}
			d.onEvent(ev)
		case err, ok := <-d.w.Errors():
			if !ok {
				return errors.New("watcher closed")
			}
			d.onError(err)
		case <-flush.C:
		case <-beat.C:
			if err := d.beat(); err != nil {
				return err
			}
			if time.Since(lastFull) >= d.rescanEvery() {
				d.full = true
			}
		}
		if d.full {
			if err := d.rescan(nil); err != nil {
				return err
			}
			lastFull = time.Now()
		}
		if err := d.flushDue(time.Now()); err != nil {
			return err
		}
		if next, ok := d.nextDue(); ok {
			flush.Reset(max(time.Until(next), time.Millisecond))
		}
	}
}

// rescanEvery is the safety net: a full rescan this often, whatever the
// events said. Degraded watching rescans sooner.
func (d *daemon) rescanEvery() time.Duration {
	if d.degraded != "" {
		return d.cfg.DegradedRescan
	}
	return d.cfg.Rescan
}

// onEvent maps an event to its candidates and schedules a walk of each
// after the debounce; an event on a root itself, or on a top-level entry,
// may change the set of candidates and asks for a full rescan. A path can
// lie in several roots (a project inside a global skill): every one is
// walked. Outside the roots only a root or a directory on the way to one
// matters (found in review: every append to ~/.claude/history.jsonl, beside
// the roots, was a full rescan).
func (d *daemon) onEvent(ev fsnotify.Event) {
	for _, r := range d.roots {
		switch {
		case ev.Name == r.Path || strings.HasPrefix(r.Path, ev.Name+"/"):
			d.full = true // a root, or a directory above one, changed
			return
		case strings.HasPrefix(ev.Name, r.Path+"/"):
			rest := ev.Name[len(r.Path)+1:]
			name, nested, ok := r.Split(rest)
			if !r.Holds([]byte(name)) {
				continue // beside a configuration file: $HOME, <cfg>
			}
			// A configuration file is walked alone, however it changed:
			// Claude Code rewrites .claude.json at every start, and a walk
			// that finds it new or gone asks for the rescan itself.
			if !ok || r.Kind != claude.Config && !nested && (ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 || r.Kind != claude.Skills && r.Kind != claude.Plugins) {
				d.full = true // a candidate appeared, went, or is itself a file
				return
			}
			d.schedule(candKey{root: r.Path, name: name})
		}
	}
	// Anything else is beside the roots (their parents hold other files):
	// it asks for nothing.
	d.scheduleAliases(ev.Name)
}

// schedule asks for a walk of k after the debounce, unless one is due.
func (d *daemon) schedule(k candKey) {
	if _, ok := d.pending[k]; !ok {
		d.pending[k] = time.Now().Add(d.cfg.Debounce)
	}
}

// onError classifies a watcher error: a lost event queue means everything
// may have changed (rescan, and say so until it is done); anything else is
// logged and also answered with a rescan.
func (d *daemon) onError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		d.log.Warn().Msg("kernel event queue overflowed: full rescan")
		d.degraded = degradedOverflow
	} else {
		d.log.Warn().Err(err).Msg("watcher error: full rescan")
	}
	d.full = true
}

func (d *daemon) nextDue() (time.Time, bool) {
	var next time.Time
	for _, t := range d.pending {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	return next, !next.IsZero()
}
