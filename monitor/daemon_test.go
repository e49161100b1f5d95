//go:build linux

// The daemon runs on Linux only (see watch_other.go).

package monitor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

var must = testtree.Must

// faultyWatcher is real fsnotify with injectable faults: a queue overflow
// and watch-limit errors on Add.
type faultyWatcher struct {
	Watcher
	errs    chan error
	limit   atomic.Bool
	stop    chan struct{}
	stopped sync.Once
	// beforeAdd, when set, runs before a watch is added: the window after
	// the walk that proved the directory.
	beforeAdd atomic.Pointer[func(string)]
}

func newFaulty() (*faultyWatcher, error) {
	w, err := NewWatcher()
	if err != nil {
		return nil, err
	}
	f := &faultyWatcher{Watcher: w, errs: make(chan error, 4), stop: make(chan struct{})}
	go func() {
		for {
			select {
			case err, ok := <-w.Errors():
				if !ok {
					return
				}
				f.errs <- err
			case <-f.stop:
				return
			}
		}
	}()
	return f, nil
}

func (f *faultyWatcher) Add(p string) error {
	if fn := f.beforeAdd.Load(); fn != nil {
		(*fn)(p)
	}
	if f.limit.Load() {
		return unix.ENOSPC
	}
	return f.Watcher.Add(p)
}

func (f *faultyWatcher) Errors() <-chan error { return f.errs }

func (f *faultyWatcher) Close() error {
	f.stopped.Do(func() { close(f.stop) })
	return f.Watcher.Close()
}

type harness struct {
	t      *testing.T
	cfg    string // CLAUDE_CONFIG_DIR
	state  string
	fw     *faultyWatcher
	cancel context.CancelFunc
	done   chan error
}

func startDaemon(t *testing.T, setup func(cfg string)) *harness {
	t.Helper()
	return startDaemonWith(t, setup, nil)
}

// startDaemonWith is startDaemon with mod applied to the daemon's Config.
func startDaemonWith(t *testing.T, setup func(cfg string), mod func(*Config)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, cfg: filepath.Join(dir, "cfg"), state: filepath.Join(dir, "state"), done: make(chan error, 1)}
	must(t, os.MkdirAll(filepath.Join(h.cfg, "skills"), 0o755))
	if setup != nil {
		setup(h.cfg)
	}
	fw, err := newFaulty()
	must(t, err)
	h.fw = fw
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	cfg := Config{
		CfgDir: h.cfg, Store: baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second, Create: true},
		Walk: walker.DefaultConfig(), Debounce: 20 * time.Millisecond, Heartbeat: 100 * time.Millisecond,
		DegradedRescan: 200 * time.Millisecond, Log: zerolog.Nop(),
		NewWatcher: func() (Watcher, error) { return fw, nil },
	}
	if mod != nil {
		mod(&cfg)
	}
	go func() { h.done <- Run(ctx, cfg) }()
	t.Cleanup(func() { h.stop() })
	h.waitFor("first heartbeat", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil
	})
	return h
}

func (h *harness) stop() error {
	h.cancel()
	select {
	case err := <-h.done:
		h.done <- err
		return err
	case <-time.After(5 * time.Second):
		h.t.Fatal("daemon did not stop")
		return nil
	}
}

// waitFor polls the store until cond holds.
func (h *harness) waitFor(what string, cond func(*baseline.Tx) bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st, err := baseline.Open(baseline.Options{Dir: h.state, ReadOnly: true, LockTimeout: time.Second})
		if err == nil {
			ok := false
			st.View(func(tx *baseline.Tx) error { ok = cond(tx); return nil })
			st.Close()
			if ok {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("timed out waiting for %s", what)
}

func (h *harness) root() claude.Root {
	return claude.Root{Path: filepath.Join(h.cfg, "skills"), Scope: claude.Global, Kind: claude.Skills}
}

// cachedDigest is the daemon's cached digest of a skill, or nil.
func cachedDigest(tx *baseline.Tx, root claude.Root, name string) *snapshot.Hash {
	r, err := tx.Cache().Root(root.Spec())
	if err != nil || r == nil {
		return nil
	}
	for _, c := range r.Candidates {
		if string(c.Name) == name && !c.Partial() {
			d := c.Digest
			return &d
		}
	}
	return nil
}

// walkedDigest is what a fresh walk says.
func (h *harness) walkedDigest(name string) snapshot.Hash {
	return walker.Observe(context.Background(), h.root().Path, []byte(name), walker.DefaultConfig()).Digest
}

func (h *harness) waitCached(name string) {
	h.t.Helper()
	want := h.walkedDigest(name)
	h.waitFor("cache of "+name+" to match a fresh walk", func(tx *baseline.Tx) bool {
		d := cachedDigest(tx, h.root(), name)
		return d != nil && *d == want
	})
}

func write(t *testing.T, p, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestDaemonSeesEditsNewDirectoriesAndNewSkills(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") })
	h.waitCached("a")

	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "2")
	h.waitCached("a")

	// mkdir -p a/b/c && echo x > a/b/c/f: only a/b is reported by inotify.
	write(t, filepath.Join(h.cfg, "skills/a/b/c/f"), "x")
	h.waitCached("a")
	write(t, filepath.Join(h.cfg, "skills/a/b/c/f"), "y") // the new directories are watched now
	h.waitCached("a")

	write(t, filepath.Join(h.cfg, "skills/new/SKILL.md"), "n")
	h.waitCached("new")
	must(t, os.Chmod(filepath.Join(h.cfg, "skills/new/SKILL.md"), 0o755))
	h.waitCached("new")
}

func TestDaemonRecordsTransientChangesAsEvents(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "original") })
	h.waitCached("a")
	before := h.walkedDigest("a")
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "evil")
	h.waitCached("a")
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "original")
	h.waitCached("a")
	h.waitFor("two events for a", func(tx *baseline.Tx) bool {
		evs, _ := tx.Events().List()
		n := 0
		for _, e := range evs {
			if string(e.Name) == "a" {
				n++
			}
		}
		return n >= 2 && evs[len(evs)-1].After != nil && *evs[len(evs)-1].After == before
	})
}

func TestDaemonFollowsARootDeletedRecreatedAndReplacedByASymlink(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/f"), "1") })
	h.waitCached("a")
	skills := filepath.Join(h.cfg, "skills")
	must(t, os.RemoveAll(skills))
	h.waitFor("root missing", func(tx *baseline.Tx) bool {
		r, _ := tx.Cache().Root(h.root().Spec())
		return r != nil && r.Missing
	})
	write(t, filepath.Join(skills, "b/f"), "2")
	h.waitCached("b")

	// The root becomes a symlink to another directory: roots are
	// configuration and are followed; the candidates there are observed.
	other := filepath.Join(filepath.Dir(h.cfg), "elsewhere")
	write(t, filepath.Join(other, "c/f"), "3")
	must(t, os.RemoveAll(skills))
	must(t, os.Symlink(other, skills))
	h.waitCached("c")
	write(t, filepath.Join(other, "c/f"), "4")
	h.waitCached("c")
}

func TestOverflowForcesAFullRescan(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/f"), "1") })
	h.waitCached("a")
	h.fw.errs <- fsnotify.ErrEventOverflow
	h.waitFor("a rescan after the overflow, whole again", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil && hb.Whole
	})
	h.waitCached("a")
}

func TestWatchLimitDegradesToRescansVisibly(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/f"), "1") })
	h.waitCached("a")
	h.fw.limit.Store(true)
	write(t, filepath.Join(h.cfg, "skills/a/newdir/f"), "cannot be watched")
	h.waitFor("a degraded heartbeat", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil && !hb.Whole && hb.Degraded == degradedLimit
	})
	h.waitCached("a")
	// No watch on newdir: only the periodic rescan can see this.
	write(t, filepath.Join(h.cfg, "skills/a/newdir/f"), "seen by a rescan")
	h.waitCached("a")
	h.fw.limit.Store(false)
	h.waitFor("whole again once watches can be added", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil && hb.Whole
	})
}

func TestASecondDaemonRefusesAndTheFirstStopsPromptly(t *testing.T) {
	h := startDaemon(t, nil)
	err := Run(context.Background(), Config{CfgDir: h.cfg, Store: baseline.Options{Dir: h.state}, Log: zerolog.Nop()})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second daemon: %v", err)
	}
	start := time.Now()
	must(t, h.stop())
	if d := time.Since(start); d > time.Second {
		t.Fatalf("stopping took %v", d)
	}
}

func TestClearDropsTheCacheAndForcesARescan(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/f"), "1") })
	h.waitCached("a")
	st, err := baseline.Open(baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second})
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error { return tx.Cache().Clear() }))
	st.Close()
	h.waitCached("a")
}

// A root spelled with ".." through a symlink: fsnotify would watch the
// lexically cleaned path, not where the walker went, so the daemon must not
// claim whole watching and the hook must not trust its cache.
func TestARootWithDotComponentsIsNeverWhole(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	write(t, filepath.Join(real, "cfg/skills/a/f"), "1")
	must(t, os.Symlink(filepath.Join(real, "cfg"), filepath.Join(base, "link")))
	cfg := base + "/link/../real/cfg" // spelled as given: never cleaned
	fw, err := newFaulty()
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	state := filepath.Join(base, "state")
	go func() {
		done <- Run(ctx, Config{CfgDir: cfg, Store: baseline.Options{Dir: state, LockTimeout: 5 * time.Second, Create: true},
			Walk: walker.DefaultConfig(), Heartbeat: 50 * time.Millisecond, Log: zerolog.Nop(),
			NewWatcher: func() (Watcher, error) { return fw, nil }})
	}()
	defer func() { cancel(); <-done }()
	h := &harness{t: t, state: state}
	h.waitFor("a heartbeat", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil
	})
	h.waitFor("a degraded heartbeat", func(tx *baseline.Tx) bool {
		hb, _ := tx.Cache().Heartbeat()
		return hb != nil && !hb.Whole && hb.Degraded == degradedDotPath
	})
}

// A file made in a new directory after the walk that found the directory
// and before its watch was added raises no event: the daemon walks the
// candidate again once the watch is in place, and its cache catches up.
func TestDaemonSeesWhatWasMadeBetweenTheWalkAndTheWatch(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") })
	h.waitCached("a")
	sub := filepath.Join(h.cfg, "skills/a/sub")
	made := make(chan struct{})
	var once sync.Once
	hook := func(p string) {
		if p == sub {
			once.Do(func() {
				write(t, filepath.Join(sub, "late"), "made before the watch")
				close(made)
			})
		}
	}
	h.fw.beforeAdd.Store(&hook)
	write(t, filepath.Join(sub, "early"), "e")
	select {
	case <-made:
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon never watched the new directory")
	}
	h.waitCached("a") // a fresh walk now includes sub/late
}
