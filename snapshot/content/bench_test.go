package content

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

type object struct {
	key  snapshot.Hash
	data []byte
}

var words = []string{"the", "skill", "runs", "when", "a", "file", "changes", "## Usage", "\n", "`bash`", "settings", "hook", "agent", "- ", "command", "model"}

// benchObjects returns n distinct objects of size bytes. They are random
// bytes, the shape of walker.BenchmarkScan's tree. Or word salt, the shape
// of skills.
func benchObjects(n, size int, text bool) []object {
	objs := make([]object, n)
	var seed [32]byte
	for i := range objs {
		binary.LittleEndian.PutUint64(seed[:], uint64(i))
		r := rand.NewChaCha8(seed)
		b := make([]byte, size)
		if text {
			rr := rand.New(r)
			b = b[:0]
			for len(b) < size {
				b = append(b, words[rr.IntN(len(words))]...)
				b = append(b, ' ')
			}
			b = b[:size]
		} else {
			r.Read(b)
		}
		objs[i] = object{snapshot.Hash(blake3.Sum256(b)), b}
	}
	return objs
}

func benchStore(b *testing.B) *Store {
	b.Helper()
	s, err := Open(b.TempDir(), Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkPut2KiB: one new 2 KiB object, its pack synced once per 10,000.
func BenchmarkPut2KiB(b *testing.B) {
	for _, text := range []bool{false, true} {
		name := map[bool]string{false: "random", true: "text"}[text]
		b.Run(name, func(b *testing.B) {
			objs := benchObjects(10_000, 2<<10, text)
			b.SetBytes(2 << 10)
			var s *Store
			var batch *Batch
			b.ResetTimer()
			for i := range b.N {
				if i%len(objs) == 0 {
					if batch != nil {
						commit(b, batch)
						s.Close()
					}
					s = benchStore(b)
					batch = mustBatch(b, s)
				}
				o := objs[i%len(objs)]
				if err := batch.Put(o.key, o.data); err != nil {
					b.Fatal(err)
				}
			}
			commit(b, batch)
			s.Close()
		})
	}
}

// BenchmarkGet2KiB: read, decompress and verify one 2 KiB object.
func BenchmarkGet2KiB(b *testing.B) {
	for _, text := range []bool{false, true} {
		name := map[bool]string{false: "random", true: "text"}[text]
		b.Run(name, func(b *testing.B) {
			objs := benchObjects(1000, 2<<10, text)
			s := benchStore(b)
			defer s.Close()
			batch := mustBatch(b, s)
			for _, o := range objs {
				if err := batch.Put(o.key, o.data); err != nil {
					b.Fatal(err)
				}
			}
			commit(b, batch)
			b.SetBytes(2 << 10)
			b.ResetTimer()
			for i := range b.N {
				o := objs[i%len(objs)]
				if _, err := s.Get(o.key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFirstScan10000x2KiB keeps the content of walker.BenchmarkScan's
// 10,000 x 2 KiB tree as a first scan would. It opens, fills one batch from
// GOMAXPROCS goroutines (the walker's pool), and commits.
func BenchmarkFirstScan10000x2KiB(b *testing.B) {
	for _, text := range []bool{false, true} {
		name := map[bool]string{false: "random", true: "text"}[text]
		b.Run(name, func(b *testing.B) {
			objs := benchObjects(10_000, 2<<10, text)
			workers := runtime.GOMAXPROCS(0)
			b.ResetTimer()
			for range b.N {
				s := benchStore(b)
				batch := mustBatch(b, s)
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for i := w; i < len(objs); i += workers {
							if err := batch.Put(objs[i].key, objs[i].data); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				commit(b, batch)
				b.StopTimer()
				b.ReportMetric(float64(s.Size())/(10_000*2<<10), "disk/raw")
				s.Close()
				b.StartTimer()
			}
		})
	}
}

func mustBatch(tb testing.TB, s *Store) *Batch {
	tb.Helper()
	batch, err := s.NewBatch()
	if err != nil {
		tb.Fatal(err)
	}
	return batch
}

func commit(tb testing.TB, batch *Batch) {
	tb.Helper()
	if err := batch.Commit(); err != nil {
		tb.Fatal(err)
	}
	if err := batch.Close(); err != nil {
		tb.Fatal(err)
	}
}
