// Package monitor is the daemon: it watches every root with fsnotify,
// re-walks what changed, and keeps in the store an observation cache the
// hook can trust, change events (so a change made and undone between two
// sessions is still told), and a heartbeat.
package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// Config configures the daemon.
type Config struct {
	// CfgDir is Claude Code's configuration directory: its roots are
	// always watched, plus those of every project a hook registered.
	CfgDir string
	// ClaudeJSONDir and ManagedDir are claude.Places' ClaudeJSON and
	// Managed: watched too when set.
	ClaudeJSONDir, ManagedDir string
	Store                     baseline.Options
	Walk                      walker.Config
	// Debounce gathers a burst of events on one candidate into one walk.
	Debounce time.Duration
	// Heartbeat is how often the daemon says it is alive (and picks up
	// newly registered projects and `clear`).
	Heartbeat time.Duration
	// Rescan is the safety net: a full rescan this often, whatever the
	// events said. Degraded watching rescans every DegradedRescan.
	Rescan, DegradedRescan time.Duration
	// SnapshotBytes caps the kept versions' content (content.MaxBytes);
	// 0 means content.DefaultMaxBytes.
	SnapshotBytes int64
	Log           zerolog.Logger
	// NewWatcher is fsnotify unless a test injects faults.
	NewWatcher func() (Watcher, error)
	// AuditLog is $SKILLWIRE_AUDIT_LOG (auditlog.Scopes): change events
	// carry their file changes reconciled with the audit logs it names.
	AuditLog string
	// Notify shows a desktop notification (DesktopNotifier); nil: none.
	Notify func(title, body string)
	// Ship, when set, sends the fleet events (events.ndjson beside the
	// store) on its own goroutine every ShipEvery: the hooks only append,
	// and never wait on the network (events.Ship, from a persisted cursor).
	Ship      func(ctx context.Context) error
	ShipEvery time.Duration
}

// Defaults fills the zero fields.
func (c *Config) defaults() {
	if c.Debounce <= 0 {
		c.Debounce = 100 * time.Millisecond
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 2 * time.Second
	}
	if c.Rescan <= 0 {
		c.Rescan = 10 * time.Minute
	}
	if c.DegradedRescan <= 0 {
		c.DegradedRescan = 30 * time.Second
	}
	if c.NewWatcher == nil {
		c.NewWatcher = NewWatcher
	}
}

type candKey struct {
	root string
	name string
}

type daemon struct {
	cfg      Config
	ctx      context.Context
	w        Watcher
	roots    []claude.Root
	obs      map[string]*walker.Root // by root path
	watched  map[string]fileID       // what each watch was added on
	shared   map[fileID]bool         // directories watched under several paths
	pending  map[candKey]time.Time
	full     bool   // a full rescan is pending
	degraded string // why watching is not whole, "" when it is
	limited  bool   // watch limits hit: rescans replace events
	log      zerolog.Logger
	hooksOff map[string]bool // settings files told as stopping skillwire's hooks
	// lastBeatLog is when the heartbeat was last logged.
	lastBeatLog time.Time
	// addedTold: why the folders sessions added are not all watched was
	// logged (past baseline.MaxAddedRoots, or records that cannot be read).
	addedTold bool
	added     addedRoots
}

// addedRoots are the roots of the folders sessions added as the store's
// records list them (baseline.Tx.AddedRoots), kept by the store's commit
// they were read at: reading every record at every heartbeat cost 9 ms
// on a store of 2,000 (BenchmarkTheAddedRootsOfAStoreOf2000Records).
// Any commit since, whoever made it, reads them again.
type addedRoots struct {
	roots []claude.Root
	err   error
	home  string
	at    int  // the commit they hold as of
	read  bool // at is set
}

// of are the added roots as tx sees them, read again only when tx sees
// another commit than the one they were read at.
func (a *addedRoots) of(tx *baseline.Tx, home string) ([]claude.Root, error) {
	if c := tx.Commit(); !a.read || c != a.at || home != a.home {
		a.roots, a.err = tx.AddedRoots(nil, home)
		a.at, a.home, a.read = c, home, true
	}
	return a.roots, a.err
}

// carry is told that the daemon made commit c, writing no record: what
// was read as of the commit before it holds as of c. A commit of another
// process between the two leaves a gap, and they are read again.
func (a *addedRoots) carry(c int) {
	if a.read && c-1 == a.at {
		a.at = c
	}
}

// Run is the daemon. It returns nil when ctx ends (SIGTERM, SIGINT), an
// error when it cannot take the role or its store is unusable.
func Run(ctx context.Context, cfg Config) error {
	cfg.defaults()
	release, err := acquire(cfg.Store.Dir)
	if err != nil {
		return err
	}
	defer release()
	w, err := cfg.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching: %w", err)
	}
	defer w.Close()
	d := &daemon{cfg: cfg, ctx: ctx, w: w, obs: map[string]*walker.Root{}, watched: map[string]fileID{},
		pending: map[candKey]time.Time{}, log: cfg.Log}
	d.log.Info().Int("pid", os.Getpid()).Msg("daemon started")
	if err := d.rescan(nil); err != nil {
		return err
	}
	if cfg.Ship != nil {
		go d.ship(ctx)
	}
	beat := time.NewTicker(cfg.Heartbeat)
	defer beat.Stop()
	lastFull := time.Now()
	flush := time.NewTimer(time.Hour)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			d.log.Info().Msg("daemon stopping")
			return nil
		case ev, ok := <-w.Events():
			if !ok {
				return errors.New("watcher closed")
			}
			d.onEvent(ev)
		case err, ok := <-w.Errors():
			if !ok {
				return errors.New("watcher closed")
			}
			d.onError(err)
		case <-flush.C:
		case <-beat.C:
			if err := d.beat(); err != nil {
				return err
			}
			every := cfg.Rescan
			if d.degraded != "" {
				every = cfg.DegradedRescan
			}
			if time.Since(lastFull) >= every {
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

// scheduleAliases walks the candidates that see the directory of an event
// under another path: inotify keeps one watch per directory, and fsnotify
// names its events after one of the paths (found in review: with
// skills/a -> b, an edit in b was reported as a's, and b stayed stale).
func (d *daemon) scheduleAliases(name string) {
	if len(d.shared) == 0 {
		return
	}
	for _, dir := range []string{name, pathname.Parent(name)} {
		id, ok := d.watched[dir]
		if !ok || !d.shared[id] {
			continue
		}
		for p, pid := range d.watched {
			if pid == id && p != dir {
				for _, k := range d.candidatesOf(p) {
					d.schedule(k)
				}
			}
		}
	}
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

// roots lists the global roots and those of registered projects, with
// the folders around each that Claude Code loads from (Places.Discover,
// as a session start finds them): its ancestors' and nested .claude
// roots, nested and imported instructions. Home is the user's, as
// claude.Locate finds it: ~/ scripts bind to it and the ancestors' walk
// stops there, so the daemon's roots are the hook's.
func (d *daemon) currentRoots() ([]claude.Root, error) {
	places := claude.Places{Config: d.cfg.CfgDir, ClaudeJSON: d.cfg.ClaudeJSONDir, Managed: d.cfg.ManagedDir}
	if home, err := claude.OSEnv().Home(); err == nil && strings.HasPrefix(home, "/") {
		places.Home = home
	}
	roots := places.Roots()
	var projects []string
	var added []claude.Root
	var addedErr error
	err := d.withStore(baseline.View, func(tx *baseline.Tx) error {
		var err error
		if projects, err = tx.Projects().List(); err != nil {
			return err
		}
		added, addedErr = d.added.of(tx, places.Home)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Told once, never fatal: the global and project roots stay watched.
	if addedErr != nil && !d.addedTold {
		d.addedTold = true
		d.log.Warn().Str("reason", addedErr.Error()).Msg("the folders sessions added are watched only in part")
	}
	slices.Sort(projects)
	seen := map[string]bool{}
	for _, r := range roots {
		seen[r.Path] = true
	}
	for _, p := range projects {
		places.Project = p
		for _, r := range places.Discover(claude.DefaultLimits).Roots() {
			if r.Scope == claude.Project && !seen[r.Path] {
				seen[r.Path] = true
				roots = append(roots, r)
			}
		}
	}
	// The folders sessions added, as the store recorded them (list and
	// scan observe the same): their edits between sessions are seen now.
	for _, r := range added {
		if !seen[r.Path] {
			seen[r.Path] = true
			roots = append(roots, r)
		}
	}
	return roots, nil
}

// rescan walks every root under the shared budget, exactly as the hook
// would, records what changed since the last observation as events, and
// rebuilds the watches. carry are change events already found by walks
// whose results are in d.obs (a flush that fell back to a rescan): they
// are stored with the rescan's own.
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
	// A watch is added after the walk that proved its directory: what was
	// created in between raised no event. So whatever a walk newly
	// watches is walked again: a root (or a root's parent) at once, here;
	// a candidate's new directories by a debounced walk of the candidate
	// (found when a test's recreated root was cached without the skill
	// made in it meanwhile).
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
	return d.withStore(baseline.Update, func(tx *baseline.Tx) error {
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
		if err := d.putEvents(tx, events); err != nil {
			return err
		}
		if err := d.keep(tx, kp, rootsOf(walked), fresh, events); err != nil {
			return err
		}
		return tx.Cache().PutHeartbeat(d.heartbeat(now))
	})
}

func rootsOf(walked []walker.Root) []*walker.Root {
	out := make([]*walker.Root, len(walked))
	for i := range walked {
		out[i] = &walked[i]
	}
	return out
}

// flushDue walks each candidate whose debounce has expired. A candidate
// walked alone gets the budget the others leave; when that cannot give the
// same answer as a full scan (it ends partial, it vanished), the daemon
// rescans everything instead, so the hook's fast path and its own walk
// agree.
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
		// the rescan's (found in review: they were dropped).
		return d.rescan(events)
	}
	d.reconcile(events)
	d.noteHooksOff()
	return d.withStore(baseline.Update, func(tx *baseline.Tx) error {
		for i, c := range updated {
			if err := tx.Cache().PutCandidate(roots[i], c); err != nil {
				return err
			}
		}
		if err := d.putEvents(tx, events); err != nil {
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
		return tx.Cache().PutHeartbeat(d.heartbeat(at))
	})
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

// specOf is the walker's view of the root at path, as the rescans walk it.
func (d *daemon) specOf(path string) walker.RootSpec {
	for _, r := range d.roots {
		if r.Path == path {
			return r.Spec()
		}
	}
	return walker.RootSpec{Path: path}
}

func isRootAnomaly(c *walker.Candidate) bool {
	es := c.Manifest.Entries
	return len(es) == 1 && len(es[0].Path) == 0 && es[0].Kind == snapshot.Anomaly && es[0].Reason == anomaly.Root
}

// kindOf recovers a candidate's kind from its manifest (Observe does not
// know the root's rules, only what it found).
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

const (
	degradedOverflow = "event queue overflow"
	degradedLimit    = "watch limit reached: periodic rescans instead of events"
	degradedDotPath  = "a root path has . or .. components: watches by path may land elsewhere, periodic rescans instead"
)

// dotted reports whether a path has a "." or ".." component. fsnotify
// cleans the paths it is given lexically, which through a symlink is not
// where the walker went: such a root can never be "whole" (found in review).
func dotted(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == "." || c == ".." {
			return true
		}
	}
	return false
}

// rewatch makes the watch set exactly the roots, the nearest existing
// directory above each (a root can be created or deleted, and so can the
// directories leading to it) and every directory the walker proved. A
// watch is kept only while it still watches what is at its path: fsnotify
// drops a watch whose directory was deleted or moved, and a path can come
// to name another directory (a swap, a retargeted symlinked root), so a
// watch missing from the watcher's list, or whose path now names another
// directory, is added again (found in review: a swapped root kept its
// stale entry and was never watched again, while the heartbeat said
// whole). A candidate with a newly watched directory is walked again
// after the debounce; the result says whether a root or a directory above
// one was newly watched (the caller walks everything again).
func (d *daemon) rewatch() (rootsNew bool) {
	want := d.wanted()
	d.prune(want)
	d.limited = false
	rootsNew = d.addWatches(want)
	d.shared = sharedIDs(d.watched)
	switch {
	case slices.ContainsFunc(d.roots, func(r claude.Root) bool { return dotted(r.Path) }):
		d.degraded = degradedDotPath
	case d.limited:
		d.degraded = degradedLimit
	case d.degraded == degradedLimit || d.degraded == degradedDotPath:
		d.degraded = ""
	}
	return rootsNew
}

// wanted is the watch set: the nearest existing directory above each
// root, and each root observed without a root anomaly with every
// directory the walker proved in it.
func (d *daemon) wanted() map[string]bool {
	want := map[string]bool{}
	for _, r := range d.roots {
		want[existingAbove(r.Path)] = true
		o := d.obs[r.Path]
		if o == nil || o.Missing || len(o.Anomalies) > 0 {
			continue
		}
		want[r.Path] = true
		for _, c := range o.Candidates {
			for _, e := range c.Manifest.Entries {
				if e.Kind != snapshot.Dir {
					continue
				}
				p := r.Path + "/" + string(c.Name)
				if len(e.Path) > 0 {
					p += "/" + string(e.Path)
				}
				want[p] = true
			}
		}
		// The directories above nested candidates (a plugin's marketplace
		// and plugin): a new version appears there.
		for _, dir := range o.Dirs {
			want[r.Path+"/"+string(dir)] = true
		}
	}
	return want
}

// prune drops every watch that is no longer wanted, that the watcher no
// longer holds, or whose path now names another directory.
func (d *daemon) prune(want map[string]bool) {
	// fsnotify lists one path per watched directory: two paths of one
	// directory (skills/a -> b) share its watch, and neither is stale.
	live := map[string]bool{}
	liveIDs := map[fileID]bool{}
	for _, p := range d.w.WatchList() {
		live[p] = true
		if id, ok := d.watched[p]; ok {
			liveIDs[id] = true
		}
	}
	for p, id := range d.watched {
		if now, err := idOf(p); !want[p] || !liveIDs[id] || err != nil || now != id {
			if live[p] {
				d.w.Remove(p)
			}
			delete(d.watched, p)
		}
	}
}

// addWatches watches every wanted path not watched yet and schedules a
// walk of each candidate it lies in; it reports whether a root or a
// directory above one was newly watched. Hitting the watch limit sets
// d.limited.
func (d *daemon) addWatches(want map[string]bool) (rootsNew bool) {
	for p := range want {
		if _, ok := d.watched[p]; ok {
			continue
		}
		// The identity is taken before the watch: if the path changes in
		// between, the next rewatch sees a mismatch and watches again.
		id, err := idOf(p)
		if err == nil {
			err = d.w.Add(p)
		}
		switch {
		case err == nil:
			d.watched[p] = id
			ks := d.candidatesOf(p)
			for _, k := range ks {
				d.schedule(k)
			}
			if len(ks) == 0 || slices.ContainsFunc(d.roots, func(r claude.Root) bool { return r.Path == p }) {
				rootsNew = true
			}
		case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EMFILE):
			if !d.limited {
				d.log.Warn().Err(err).Msg("watch limit reached: falling back to periodic rescans (raise fs.inotify.max_user_watches)")
			}
			d.limited = true
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			// Gone since the walk: the event that removed it, or the
			// watch above it, brings a rescan.
		default:
			d.log.Warn().Err(err).Msg("cannot watch a directory")
			d.limited = true
		}
	}
	return rootsNew
}

// sharedIDs are the directories watched under several paths.
func sharedIDs(watched map[string]fileID) map[fileID]bool {
	seen := map[fileID]bool{}
	shared := map[fileID]bool{}
	for _, id := range watched {
		if seen[id] {
			shared[id] = true
		}
		seen[id] = true
	}
	return shared
}

// fileID is a directory's identity, as a watch on its path would see it
// (symbolic links followed, as inotify follows them).
type fileID struct{ dev, ino uint64 }

func idOf(p string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileID{}, err
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// existingAbove is the nearest existing directory above root: its parent,
// or further up when the parent does not exist yet (found in review: a
// project without .claude was never watched, and a skill made there with
// mkdir -p went unseen while the heartbeat said whole).
func existingAbove(root string) string {
	p := pathname.Parent(root)
	for p != "/" {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return p
		}
		p = pathname.Parent(p)
	}
	return p
}

// candidatesOf names the candidates whose directory p is: one per root
// that holds p (a project's root can lie inside a global candidate).
func (d *daemon) candidatesOf(p string) []candKey {
	var ks []candKey
	for _, r := range d.roots {
		if rest, ok := strings.CutPrefix(p, r.Path+"/"); ok {
			if name, _, ok := r.Split(rest); ok {
				ks = append(ks, candKey{root: r.Path, name: name})
			}
		}
	}
	return ks
}

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

// beatLogEvery is how often the heartbeat is logged: a foreground daemon
// that logs only its start and stop looks dead (issue 23).
const beatLogEvery = time.Minute

// reconcile attaches to events their file changes (reconcile.Events),
// before they are stored and outside the store's write lock; an event not
// reconciled is stored and told all the same.
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

func (d *daemon) putEvents(tx *baseline.Tx, events []cache.Event) error {
	for i := range events {
		events[i].ID = tx.ID(string(events[i].Root), events[i].Name)
	}
	if err := tx.Events().Append(events); err != nil {
		return err
	}
	for i := range events {
		d.logEvent(&events[i])
	}
	d.appendEvents(events)
	return nil
}

// appendEvents tells a fleet of each change the daemon observed (an OCSF
// Detection Finding per candidate); a failure is logged, never fatal.
func (d *daemon) appendEvents(evs []cache.Event) {
	out := make([]events.Event, 0, len(evs))
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
		out = append(out, events.CandidateObserved(events.Origin{Time: ev.At, Via: "daemon"}, c, obs))
	}
	if err := events.Append(d.ctx, d.cfg.Store.Dir, out...); err != nil {
		d.log.Warn().Err(err).Msg("the fleet events of these changes were not written")
	}
}

// ship sends the fleet events until ctx ends; a failed round is logged and
// tried again at the next one (Ship keeps its cursor: nothing is lost).
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

// logEvent logs one change the daemon observed: the candidate by id (its
// name only when it passes the display gate), what happened to it, and
// its reconciled file changes (their paths gated already).
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

// rootAt is the watched root at path, nil when none.
func (d *daemon) rootAt(path string) *claude.Root {
	for i := range d.roots {
		if d.roots[i].Path == path {
			return &d.roots[i]
		}
	}
	return nil
}

// diffRoot lists the candidates whose digest differs between two
// observations of a root (appeared, changed, vanished). The first
// observation of a root is not a change.
func diffRoot(old, cur *walker.Root, at time.Time) []cache.Event {
	if old == nil {
		return nil
	}
	var out []cache.Event
	prev := map[string]*walker.Candidate{}
	for i := range old.Candidates {
		prev[string(old.Candidates[i].Name)] = &old.Candidates[i]
	}
	for i := range cur.Candidates {
		c := &cur.Candidates[i]
		o := prev[string(c.Name)]
		delete(prev, string(c.Name))
		if o == nil {
			out = append(out, cache.Event{Root: []byte(cur.Spec.Path), Name: c.Name, After: digestOf(c), At: at})
			continue
		}
		if ev, ok := diffCandidate(cur.Spec.Path, o, c, at); ok {
			out = append(out, ev)
		}
	}
	for _, o := range prev {
		out = append(out, cache.Event{Root: []byte(cur.Spec.Path), Name: o.Name, Before: digestOf(o), At: at})
	}
	return out
}

func diffCandidate(root string, old, cur *walker.Candidate, at time.Time) (cache.Event, bool) {
	b, a := digestOf(old), digestOf(cur)
	if b != nil && a != nil && *b == *a || b == nil && a == nil && old.Manifest.Equal(&cur.Manifest) {
		return cache.Event{}, false
	}
	return cache.Event{Root: []byte(root), Name: bytes.Clone(cur.Name), Before: b, After: a, At: at}, true
}

func digestOf(c *walker.Candidate) *snapshot.Hash {
	if c.Partial() {
		return nil
	}
	d := c.Digest
	return &d
}

// withStore runs fn in one brief transaction, baseline.View or
// baseline.Update: the daemon never keeps the store open between batches.
// Lock contention is transient and retried at most twice; anything else is
// deterministic (corrupt, untrusted, stale) and stops the daemon with the
// reason.
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
		// Transient: this batch is lost, so the cache must be rebuilt
		// whole at the next beat rather than trusted with a gap.
		d.full = true
		return nil
	}
	if err != nil {
		d.log.Error().Err(err).Msg("store unusable")
	}
	return err
}
