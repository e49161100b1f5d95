package walker

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

// cpuTime is the user and system time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScanReuse times the session start's walk of an unchanged
// plugin-shaped candidate (issue 23). It is a node_modules of dirs
// directories of 20 files of 4 KiB. Every hash is reused and every content
// known: one statx per file. cpu-ns/op is the process's user and system
// time per walk, the cost the other core pays too. ns/op is the wall time.
func BenchmarkScanReuse(b *testing.B) {
	for _, dirs := range []int{100, 1000} {
		b.Run(fmt.Sprintf("dirs=%dx20x4KiB", dirs), func(b *testing.B) {
			t0 := now
			b.Cleanup(func() { now = t0 })
			now = func() time.Time { return time.Now().Add(time.Hour) }
			root, state := b.TempDir(), b.TempDir()
			if err := os.Chmod(state, 0o700); err != nil {
				b.Fatal(err)
			}
			nm := filepath.Join(root, "plugin", "node_modules")
			buf := make([]byte, 4<<10)
			var seed [32]byte
			for d := range dirs {
				dir := filepath.Join(nm, fmt.Sprintf("m-%04d", d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				for f := range 20 {
					binary.LittleEndian.PutUint64(seed[0:], uint64(d))
					binary.LittleEndian.PutUint64(seed[8:], uint64(f))
					rand.NewChaCha8(seed).Read(buf)
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f-%02d.js", f)), buf, 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			cache := filepath.Join(state, "hashes")
			roots := []RootSpec{{Path: root}}
			k := &knowing{kept: kept{byKey: map[snapshot.Hash][]byte{}}, known: map[snapshot.Hash]bool{}}
			cfg := DefaultConfig()
			cfg.Keep, cfg.Reuse = k, LoadHashes(cache)
			for _, e := range Scan(context.Background(), roots, cfg)[0].Candidates[0].Manifest.Entries {
				k.known[e.Hash] = true
			}
			if err := cfg.Reuse.Save(); err != nil {
				b.Fatal(err)
			}
			reads := 0
			testHookRead = func([]byte) { reads++ }
			defer func() { testHookRead = nil }()
			b.ReportAllocs()
			c0 := cpuTime(b)
			for b.Loop() {
				cfg.Reuse = LoadHashes(cache)
				c := Scan(context.Background(), roots, cfg)[0].Candidates[0]
				if c.Partial() || len(c.Manifest.Entries) != 1+1+dirs*21 {
					b.Fatalf("partial=%v, %d entries, want %d", c.Partial(), len(c.Manifest.Entries), 2+dirs*21)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
			if reads != 0 {
				b.Fatalf("%d files were read, want every hash reused", reads)
			}
		})
	}
}
