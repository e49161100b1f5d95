package session

import (
	"context"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/internal/testtree"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

var must = testtree.Must

func TestTheDaemonsCacheIsTrustedOnlyWhileItWatchesTheRootWhole(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fresh := func(mod func(*cache.Heartbeat)) *cache.Heartbeat {
		hb := &cache.Heartbeat{PID: 1, At: now.Add(-time.Second), Whole: true, Roots: []string{"/r"}}
		if mod != nil {
			mod(hb)
		}
		return hb
	}
	for _, tc := range []struct {
		name   string
		d      Daemon
		alive  bool
		trusts bool
	}{
		{"a running daemon with a fresh, whole heartbeat naming the root", Daemon{true, fresh(nil)}, true, true},
		{"no daemon holds the role (killed -9, heartbeat still fresh)", Daemon{false, fresh(nil)}, false, false},
		{"no heartbeat", Daemon{true, nil}, false, false},
		{"a stale heartbeat", Daemon{true, fresh(func(h *cache.Heartbeat) { h.At = now.Add(-cache.FreshFor - time.Second) })}, false, false},
		{"a heartbeat from the future", Daemon{true, fresh(func(h *cache.Heartbeat) { h.At = now.Add(time.Minute) })}, false, false},
		{"watching degraded to rescans", Daemon{true, fresh(func(h *cache.Heartbeat) { h.Whole, h.Degraded = false, "overflow" })}, true, false},
		{"the root is not in the heartbeat", Daemon{true, fresh(func(h *cache.Heartbeat) { h.Roots = []string{"/other", "/r/"} })}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Alive(now); got != tc.alive {
				t.Errorf("Alive = %v, want %v", got, tc.alive)
			}
			if got := tc.d.Trusts("/r", now); got != tc.trusts {
				t.Errorf("Trusts = %v, want %v", got, tc.trusts)
			}
		})
	}
}

// fixture is a state directory with a store. Its cache holds an
// observation of root a that differs from what is on disk. So a test can
// tell a cached root from a walked one.
type fixture struct {
	opts  baseline.Options
	a, b  claude.Root
	stale walker.Root // what the cache says of a
}

func newFixture(t *testing.T, hb cache.Heartbeat) *fixture {
	dir := t.TempDir()
	f := &fixture{
		opts: baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: time.Second},
		a:    claude.Root{Path: filepath.Join(dir, "a"), Scope: claude.Global, Kind: claude.Skills},
		b:    claude.Root{Path: filepath.Join(dir, "b"), Scope: claude.Project, Kind: claude.Skills},
	}
	for _, r := range []claude.Root{f.a, f.b} {
		must(t, os.MkdirAll(filepath.Join(r.Path, "on-disk"), 0o755))
	}
	f.stale = walker.Root{Spec: f.a.Spec(), Candidates: []walker.Candidate{{Name: []byte("cached"), Kind: walker.KindDir}}}
	f.stale.Candidates[0].Digest, _ = f.stale.Candidates[0].Manifest.Digest()
	st, err := baseline.Open(f.opts)
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error {
		if err := tx.Cache().PutRoot(&f.stale, time.Now()); err != nil {
			return err
		}
		return tx.Cache().PutHeartbeat(hb)
	}))
	st.Close()
	return f
}

// holdRole takes the daemon's lock the way a running daemon holds it.
func holdRole(t *testing.T, dir string) {
	f, err := os.OpenFile(filepath.Join(dir, "daemon.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	must(t, err)
	t.Cleanup(func() { f.Close() })
	must(t, unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB))
}

func names0(obs []baseline.Observation, i int) string {
	var s string
	for _, c := range obs[i].Walk.Candidates {
		s += string(c.Name) + " "
	}
	return s
}

func TestSessionWalksWhatTheDaemonCannotVouchFor(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name    string
		running bool
		hb      func(f *fixture) cache.Heartbeat
		cached  bool
	}{
		{"daemon running, fresh, whole, root watched: cache", true,
			func(f *fixture) cache.Heartbeat {
				return cache.Heartbeat{At: now, Whole: true, Roots: []string{f.a.Path, f.b.Path}}
			}, true},
		{"daemon not running: walk", false,
			func(f *fixture) cache.Heartbeat {
				return cache.Heartbeat{At: now, Whole: true, Roots: []string{f.a.Path, f.b.Path}}
			}, false},
		{"heartbeat stale: walk", true,
			func(f *fixture) cache.Heartbeat {
				return cache.Heartbeat{At: now.Add(-time.Hour), Whole: true, Roots: []string{f.a.Path, f.b.Path}}
			}, false},
		{"not whole: walk", true,
			func(f *fixture) cache.Heartbeat {
				return cache.Heartbeat{At: now, Degraded: "overflow", Roots: []string{f.a.Path, f.b.Path}}
			}, false},
		{"root not in heartbeat: walk", true,
			func(f *fixture) cache.Heartbeat {
				return cache.Heartbeat{At: now, Whole: true, Roots: []string{f.b.Path}}
			}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, cache.Heartbeat{})
			st, err := baseline.Open(f.opts)
			must(t, err)
			must(t, st.Update(func(tx *baseline.Tx) error { return tx.Cache().PutHeartbeat(tc.hb(f)) }))
			st.Close()
			if tc.running {
				holdRole(t, f.opts.Dir)
			}
			roots := []claude.Root{f.a, f.b}
			obs := observe(context.Background(), roots, walker.DefaultConfig(), cached(roots, f.opts, now))
			wantA := "on-disk "
			if tc.cached {
				wantA = "cached "
			}
			if got := names0(obs, 0); got != wantA {
				t.Errorf("root a observed as %q, want %q", got, wantA)
			}
			// b has nothing cached: it is walked whatever the daemon says.
			if got := names0(obs, 1); got != "on-disk " || !obs[1].Root.Same(f.b) {
				t.Errorf("root b observed as %q", got)
			}
		})
	}
}

func TestACorruptCacheMeansAWalk(t *testing.T) {
	f := newFixture(t, cache.Heartbeat{At: time.Now(), Whole: true})
	must(t, os.WriteFile(filepath.Join(f.opts.Dir, baseline.FileName), []byte("not a bolt file"), 0o600))
	holdRole(t, f.opts.Dir)
	if c := cached([]claude.Root{f.a}, f.opts, time.Now()); c != nil {
		t.Fatalf("an unusable store gave a cache: %v", c)
	}
}
