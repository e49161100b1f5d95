package monitor

import (
	"errors"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/skillwire/skillwire/claude"
)

// loop runs the daemon's turns until ctx ends. A turn waits for an event,
// an error, a due walk or a beat. Then it rescans if a rescan is pending.
// It walks the candidates whose debounce expired. It sets the timer for
// the next due walk.
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
// after the debounce. An event on a root, or on a top-level entry, asks
// for a full rescan: the set of candidates may change. A path can lie in
// several roots (a project inside a global skill). Every one is walked.
// Outside the roots only a root or a directory above one matters
// (TestDaemonIgnoresWritesBesideTheRoots).
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
			// A configuration file is walked alone, however it changed.
			// Claude Code rewrites .claude.json at every start. A walk that
			// finds it new or gone asks for the rescan itself.
			if !ok || r.Kind != claude.Config && !nested && (ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 || r.Kind != claude.Skills && r.Kind != claude.Plugins) {
				d.full = true // a candidate appeared, went, or is itself a file
				return
			}
			d.schedule(candKey{root: r.Path, name: name})
		}
	}
	// A file bound into candidates from outside them is their walk.
	for _, k := range d.bound[ev.Name] {
		d.schedule(k)
	}
	// Anything else is beside the roots, and asks for nothing. Their
	// parents hold other files.
	d.scheduleAliases(ev.Name)
}

// schedule asks for a walk of k after the debounce, unless one is due.
func (d *daemon) schedule(k candKey) {
	if _, ok := d.pending[k]; !ok {
		d.pending[k] = time.Now().Add(d.cfg.Debounce)
	}
}

// onError answers a watcher error with a rescan. A lost event queue
// means everything may have changed: watching is degraded until the
// rescan. Any other error is logged.
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
