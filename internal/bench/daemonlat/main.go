//go:build linux

// Command daemonlat measures how long a running `skillwire daemon` takes to
// reflect an edit in its cache. That is the observation cache the hook's fast
// path reads instead of walking. internal/bench/daemon.sh runs it. For each
// edit it rewrites one file of a skill. It walks that skill itself
// (walker.Observe) to learn the digest the daemon must arrive at. Then it
// polls the store read-only until the cached candidate has exactly that
// digest. The latency runs from just before the write to the first read that
// showed the digest. A read counts from when the poller held the store's
// lock: the daemon had committed by then.
//
// The store is opened only when its file changed since the last read (a stat
// every -poll). At the latest it is opened every -fallback. An open takes a
// shared flock. A daemon that finds it taken sleeps 50 ms (bbolt's retry
// step) before it can write. So polling by opening would add to the latency
// it measures. For the same reason the poller never waits for the lock
// itself. The file changes while the daemon still holds the lock. bbolt's 50
// ms step would then be counted as the daemon's latency. A busy store is
// tried again at the next poll.
//
// It prints key=value lines. With -out it also writes the latencies there,
// one a line, in microseconds.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

type config struct {
	state, root, out                string
	edits                           int
	poll, fallback, timeout, settle time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.state, "state", "", "the daemon's state directory (SKILLWIRE_STATE_DIR)")
	flag.StringVar(&c.root, "root", "", "the skills root, spelled as the daemon spells it (<CLAUDE_CONFIG_DIR>/skills)")
	flag.StringVar(&c.out, "out", "", "write each latency here, in microseconds, one a line")
	flag.IntVar(&c.edits, "edits", 100, "edits to make, one at a time")
	flag.DurationVar(&c.poll, "poll", 5*time.Millisecond, "how often to look at the store")
	flag.DurationVar(&c.fallback, "fallback", 250*time.Millisecond, "read the store at least this often, changed or not")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Second, "give up on one edit after this long")
	flag.DurationVar(&c.settle, "settle", 60*time.Second, "wait this long for the cache to match the tree before the first edit")
	flag.Parse()
	if c.state == "" || c.root == "" || c.edits < 1 || c.poll <= 0 || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "daemonlat:", err)
		os.Exit(1)
	}
}

// poller reads the daemon's cached digests of one root.
type poller struct {
	opts     baseline.Options
	spec     walker.RootSpec
	file     string
	fallback time.Duration
	last     statKey
	lastRead time.Time
	digests  map[string]snapshot.Hash // complete observations only
	seenAt   time.Time                // when the store held digests
	reads    int
	readTime time.Duration
	busy     int // opens that found the daemon's lock held
}

type statKey struct {
	mtime, ctime syscall.Timespec
	size         int64
	ino          uint64
}

// refresh rereads the cache when the store file changed since the last read.
// The stat comes before the read. A write that lands in between is read now
// and seen again as a change, never missed.
func (p *poller) refresh() error {
	var st syscall.Stat_t
	if err := syscall.Stat(p.file, &st); err != nil {
		return err
	}
	k := statKey{mtime: st.Mtim, ctime: st.Ctim, size: st.Size, ino: st.Ino}
	if k == p.last && time.Since(p.lastRead) < p.fallback {
		return nil
	}
	t0 := time.Now()
	s, err := baseline.Open(p.opts)
	if errors.Is(err, baseline.ErrBusy) {
		p.busy++
		return nil
	}
	if err != nil {
		return err
	}
	defer s.Close()
	// What this read sees was committed before the lock was taken. So the
	// time the lock is held bounds the observation, decoding excluded.
	locked := time.Now()
	digests := map[string]snapshot.Hash{}
	err = s.View(func(tx *baseline.Tx) error {
		r, err := tx.Cache().Root(p.spec)
		if err != nil || r == nil {
			return err
		}
		for i := range r.Candidates {
			if c := &r.Candidates[i]; !c.Partial() {
				digests[string(c.Name)] = c.Digest
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.digests, p.last, p.lastRead, p.seenAt = digests, k, time.Now(), locked
	p.reads++
	p.readTime += time.Since(t0)
	return nil
}

func run(c config) error {
	p := &poller{
		// Below bbolt's 50 ms retry step, a held lock fails at once.
		opts:     baseline.Options{Dir: c.state, ReadOnly: true, LockTimeout: time.Millisecond},
		spec:     walker.RootSpec{Path: c.root},
		file:     filepath.Join(c.state, baseline.FileName),
		fallback: c.fallback,
	}
	files, err := listFiles(c.root)
	if err != nil {
		return err
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	if len(names) == 0 {
		return fmt.Errorf("no skill with files under %s", c.root)
	}
	ctx := context.Background()
	wcfg := walker.DefaultConfig()

	// The daemon's digests must be the walker's before anything is timed.
	// Otherwise no edit could ever be "observed".
	want := map[string]snapshot.Hash{}
	for _, n := range names {
		d, err := observe(ctx, c.root, n, wcfg)
		if err != nil {
			return err
		}
		want[n] = d
	}
	deadline := time.Now().Add(c.settle)
	for {
		if err := p.refresh(); err != nil {
			return err
		}
		if matches(p.digests, want) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon's cache of %s did not match the tree within %s (%d of %d candidates cached)", c.root, c.settle, len(p.digests), len(want))
		}
		time.Sleep(c.poll)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, 0, c.edits)
	timeouts := 0
	for i := range c.edits {
		name := names[i%len(names)]
		paths := files[name]
		path := paths[(i/len(names))%len(paths)]
		content, err := newContent(path, i)
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
		d, err := observe(ctx, c.root, name, wcfg)
		if err != nil {
			return err
		}
		seen := false
		for time.Since(t0) < c.timeout {
			if err := p.refresh(); err != nil {
				return err
			}
			if got, ok := p.digests[name]; ok && got == d && p.seenAt.After(t0) {
				seen = true
				break
			}
			time.Sleep(c.poll)
		}
		if seen {
			lat = append(lat, p.seenAt.Sub(t0))
		} else {
			timeouts++
			lat = append(lat, time.Duration(math.MaxInt64))
		}
		// A varying pause, so edits do not fall into step with the
		// daemon's heartbeat.
		time.Sleep(50*time.Millisecond + time.Duration(rng.IntN(100))*time.Millisecond)
	}
	if c.out != "" {
		var b strings.Builder
		for _, l := range lat {
			fmt.Fprintln(&b, l.Microseconds())
		}
		if err := os.WriteFile(c.out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	slices.Sort(lat)
	fmt.Printf("edits=%d\n", c.edits)
	fmt.Printf("timeouts=%d\n", timeouts)
	fmt.Printf("min_ms=%s\n", ms(lat[0]))
	fmt.Printf("p50_ms=%s\n", ms(quantile(lat, 0.50)))
	fmt.Printf("p95_ms=%s\n", ms(quantile(lat, 0.95)))
	fmt.Printf("max_ms=%s\n", ms(lat[len(lat)-1]))
	fmt.Printf("store_reads=%d\n", p.reads)
	fmt.Printf("store_read_mean_ms=%.2f\n", float64(p.readTime.Microseconds())/1000/float64(max(p.reads, 1)))
	fmt.Printf("store_busy=%d\n", p.busy)
	return nil
}

// listFiles maps each candidate of root to its regular files, sorted.
func listFiles(root string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel := strings.TrimPrefix(path, root+"/")
		cand, _, nested := strings.Cut(rel, "/")
		if nested {
			out[cand] = append(out[cand], path)
		}
		return nil
	})
	return out, err
}

func observe(ctx context.Context, root, name string, cfg walker.Config) (snapshot.Hash, error) {
	c := walker.Observe(ctx, root, []byte(name), cfg)
	if c.Partial() || len(c.Anomalies()) > 0 {
		return snapshot.Hash{}, fmt.Errorf("%s/%s is not a clean candidate (partial or anomalous)", root, name)
	}
	return c.Digest, nil
}

func matches(got, want map[string]snapshot.Hash) bool {
	if len(got) != len(want) {
		return false
	}
	for n, d := range want {
		if got[n] != d {
			return false
		}
	}
	return true
}

// newContent is fresh bytes of the file's current size. They differ for every
// edit and from what gentree wrote.
func newContent(path string, edit int) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(edit))
	copy(seed[8:], "daemonlat")
	b := make([]byte, fi.Size())
	rand.NewChaCha8(seed).Read(b)
	return b, nil
}

// quantile is the nearest-rank quantile of sorted values.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) string {
	if d == time.Duration(math.MaxInt64) {
		return "timeout"
	}
	return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000)
}
