package walker_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/walker"
)

// benchTree writes dirs subdirectories of root, named prefix+NNN. Each
// holds files regular files of size pseudo-random bytes, distinct per
// file. It returns the number of files and bytes written.
func benchTree(b *testing.B, root, prefix string, dirs, files, size int) (int, int64) {
	b.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, size)
	var seed [32]byte
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("%s%03d", prefix, d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range files {
			binary.LittleEndian.PutUint64(seed[0:], uint64(d))
			binary.LittleEndian.PutUint64(seed[8:], uint64(f))
			rand.NewChaCha8(seed).Read(buf)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%04d.md", f)), buf, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dirs * files, int64(dirs * files * size)
}

// mustBeClean fails the benchmark unless c is a complete, anomaly-free
// observation. A benchmark of a walk that found something measures the
// wrong thing.
func mustBeClean(b *testing.B, c *walker.Candidate) {
	b.Helper()
	if c.Partial() || len(c.Anomalies()) > 0 {
		b.Fatalf("candidate %q: partial=%v anomalies=%v", c.Name, c.Partial(), walker.Reasons(c.Anomalies()))
	}
}

func reportFilesPerSecond(b *testing.B, files int) {
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkScan times Scan of one root with the default configuration. It
// holds many small skills, the shape of a real skills root. It holds one
// wide candidate, the shape of the 10,000-file comparison.
//
// Generating the trees costs more than walking them once. Profile with
// -benchtime=5s and read the profile with pprof -focus='walker\.Scan$'.
func BenchmarkScan(b *testing.B) {
	for _, tc := range []struct {
		name        string
		candidates  int // top-level directories of the root
		dirs, files int // in each candidate: subdirectories (0: none), files in each
		size        int
		wantFiles   int
	}{
		{name: "skills=200x20x4KiB", candidates: 200, files: 20, size: 4 << 10, wantFiles: 4000},
		{name: "tree=100x100x2KiB", candidates: 1, dirs: 100, files: 100, size: 2 << 10, wantFiles: 10000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := b.TempDir()
			var files int
			var size int64
			if tc.dirs == 0 {
				files, size = benchTree(b, root, "skill-", tc.candidates, tc.files, tc.size)
			} else {
				files, size = benchTree(b, filepath.Join(root, "tree"), "dir-", tc.dirs, tc.files, tc.size)
			}
			if files != tc.wantFiles {
				b.Fatalf("generated %d files, want %d", files, tc.wantFiles)
			}
			roots := []walker.RootSpec{{Path: root}}
			cfg := walker.DefaultConfig()
			check := func(out []walker.Root) {
				if len(out) != 1 || len(out[0].Anomalies) > 0 || len(out[0].Candidates) != tc.candidates {
					b.Fatalf("scan of %s: %d roots, want 1 with %d candidates and no anomalies", root, len(out), tc.candidates)
				}
				for i := range out[0].Candidates {
					mustBeClean(b, &out[0].Candidates[i])
				}
			}
			check(walker.Scan(context.Background(), roots, cfg)) // and warm the cache
			b.SetBytes(size)
			b.ReportAllocs()
			var out []walker.Root
			for b.Loop() {
				out = walker.Scan(context.Background(), roots, cfg)
			}
			reportFilesPerSecond(b, files)
			check(out)
		})
	}
}

// BenchmarkObserve times Observe of one 2,000-file skill, the work of
// `skillwire digest`. Issue 2 asks under 8 ms wall for the whole command.
func BenchmarkObserve(b *testing.B) {
	dir := b.TempDir()
	files, size := benchTree(b, filepath.Join(dir, "skill"), "part-", 20, 100, 4<<10)
	name := []byte("skill")
	cfg := walker.DefaultConfig()
	c := walker.Observe(context.Background(), dir, name, cfg) // and warm the cache
	mustBeClean(b, &c)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		c = walker.Observe(context.Background(), dir, name, cfg)
	}
	reportFilesPerSecond(b, files)
	mustBeClean(b, &c)
}

// BenchmarkSHA256 times SHA256 of one file three directories below a
// candidate: the work of reconciling one audit entry. It times a small
// file (one read) and a large one (many reads into the hasher).
func BenchmarkSHA256(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			dir := b.TempDir()
			sub := filepath.Join(dir, "skill", "a", "b")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, "f.md"), make([]byte, size), 0o644); err != nil {
				b.Fatal(err)
			}
			name, path := []byte("skill"), []byte("a/b/f.md")
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, r, err := walker.SHA256(dir, name, path, walker.DefaultLimits); r != 0 || err != nil {
					b.Fatalf("SHA256 = %v, %v", r, err)
				}
			}
		})
	}
}
