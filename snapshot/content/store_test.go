package content

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/skillwire/skillwire/internal/testtree"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

func key(b []byte) snapshot.Hash { return snapshot.Hash(blake3.Sum256(b)) }

func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// put keeps each of datas in one batch and returns their keys.
func put(t *testing.T, s *Store, datas ...[]byte) []snapshot.Hash {
	t.Helper()
	b := mustBatch(t, s)
	var keys []snapshot.Hash
	for _, d := range datas {
		k := key(d)
		if err := b.Put(k, d); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	commit(t, b)
	return keys
}

func packs(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ObjectsDir, "*"+packExt))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGetReturnsWhatWasPut(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	datas := [][]byte{{}, []byte("hello\n"), bytes.Repeat([]byte("skill "), 10_000)}
	keys := put(t, s, datas...)
	// A fresh Open reads the index from disk, not from memory.
	s2 := openStore(t, dir)
	for i, k := range keys {
		got, err := s2.Get(k)
		if err != nil || !bytes.Equal(got, datas[i]) {
			t.Fatalf("Get(%d) = %q, %v", i, got, err)
		}
		if !s2.Has(k) {
			t.Fatalf("Has(%d) = false", i)
		}
	}
	if s2.Size() != s.Size() || s.Size() == 0 {
		t.Fatalf("Size: %d after reopen, %d before", s2.Size(), s.Size())
	}
}

func TestMissingObjectIsErrMissing(t *testing.T) {
	s := openStore(t, t.TempDir())
	if got, err := s.Get(key([]byte("never kept"))); !errors.Is(err, ErrMissing) || got != nil {
		t.Fatalf("Get = %q, %v; want ErrMissing", got, err)
	}
}

func TestCorruptObjectReportedNotUsed(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("payload "), 512)
	k := put(t, openStore(t, dir), data)[0]
	p := packs(t, dir)[0]
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(packMagic)+objectHeader+4] ^= 0x40 // inside the object's zstd frame
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := openStore(t, dir).Get(k)
	if !errors.Is(err, ErrCorrupt) || got != nil {
		t.Fatalf("Get = %d bytes, %v; want ErrCorrupt and no bytes", len(got), err)
	}
}

func TestTruncatedPackIsNotFatalAndNotUsed(t *testing.T) {
	dir := t.TempDir()
	k := put(t, openStore(t, dir), []byte("some content"))[0]
	p := packs(t, dir)[0]
	st, _ := os.Stat(p)
	if err := os.Truncate(p, st.Size()-1); err != nil {
		t.Fatal(err)
	}
	if got, err := openStore(t, dir).Get(k); !errors.Is(err, ErrMissing) || got != nil {
		t.Fatalf("Get = %q, %v; want ErrMissing", got, err)
	}
}

func TestWrongKeyReportedCorrupt(t *testing.T) {
	s := openStore(t, t.TempDir())
	wrong := key([]byte("other bytes"))
	b := mustBatch(t, s)
	if err := b.Put(wrong, []byte("these bytes")); err != nil {
		t.Fatal(err)
	}
	commit(t, b)
	if got, err := s.Get(wrong); !errors.Is(err, ErrCorrupt) || got != nil {
		t.Fatalf("Get = %q, %v; want ErrCorrupt", got, err)
	}
}

func TestDedupeWritesOnce(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	data := []byte("same content")
	put(t, s, data, data, data)
	size := s.Size()
	if n := len(packs(t, dir)); n != 1 {
		t.Fatalf("%d packs", n)
	}
	// Kept already: a second batch, even from another Open, writes nothing.
	put(t, openStore(t, dir), data)
	put(t, s, data)
	if n := len(packs(t, dir)); n != 1 || s.Size() != size {
		t.Fatalf("%d packs, size %d -> %d", n, size, s.Size())
	}
	entries, _, err := s.readPack(filepath.Base(packs(t, dir)[0]))
	if err != nil || len(entries) != 1 {
		t.Fatalf("pack holds %d entries, %v", len(entries), err)
	}
}

func TestUnchangedScanWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	put(t, s)
	if m, _ := os.ReadDir(filepath.Join(dir, ObjectsDir)); len(m) != 0 {
		t.Fatalf("an empty batch left %d files", len(m))
	}
}

func TestConcurrentPutOfTheSameObjectIsSafe(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	data := []byte("raced content")
	k := key(data)
	b := mustBatch(t, s)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if err := b.Put(k, data); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	commit(t, b)
	entries, _, err := s.readPack(filepath.Base(packs(t, dir)[0]))
	if err != nil || len(entries) != 1 {
		t.Fatalf("pack holds %d entries, %v", len(entries), err)
	}
	if got, err := s.Get(k); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

func TestConcurrentBatchesOfTheSameObjectAreSafe(t *testing.T) {
	dir := t.TempDir()
	data := []byte("raced content")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := Open(dir, Options{Create: true})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			b, err := s.NewBatch()
			if err != nil {
				t.Error(err)
				return
			}
			defer b.Close()
			if err := b.Put(key(data), data); err != nil {
				t.Error(err)
			}
			if err := b.Commit(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := openStore(t, dir).Get(key(data)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

func TestPutOverTheBoundRefused(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Create: true, MaxObject: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := mustBatch(t, s)
	defer b.Close()
	if err := b.Put(key([]byte("12345")), []byte("12345")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put = %v; want ErrTooLarge", err)
	}
}

func TestAbsentStoreNotCreatedUnlessAsked(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrAbsent) {
		t.Fatalf("Open = %v; want ErrAbsent", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ObjectsDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("objects directory created: %v", err)
	}
	openStore(t, dir)
	st, err := os.Lstat(filepath.Join(dir, ObjectsDir))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("objects directory: %v, %v", st.Mode(), err)
	}
}

func TestUntrustedStoreRefused(t *testing.T) {
	objects := func(dir string) string { return filepath.Join(dir, ObjectsDir) }
	// Each setup spoils a kept store at dir and returns the path to open.
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string
	}{
		{"symlinked objects dir refused", func(t *testing.T, dir string) string {
			must(t, os.Rename(objects(dir), filepath.Join(dir, "real")))
			must(t, os.Symlink("real", objects(dir)))
			return dir
		}},
		{"symlinked state dir refused", func(t *testing.T, dir string) string {
			link := filepath.Join(t.TempDir(), "link")
			must(t, os.Symlink(dir, link))
			return link
		}},
		{"group-writable objects dir refused", func(t *testing.T, dir string) string {
			must(t, os.Chmod(objects(dir), 0o770))
			return dir
		}},
		{"world-readable objects dir refused", func(t *testing.T, dir string) string {
			must(t, os.Chmod(objects(dir), 0o704))
			return dir
		}},
		{"group-writable state dir refused", func(t *testing.T, dir string) string {
			must(t, os.Chmod(dir, 0o770))
			return dir
		}},
		{"group-writable pack refused", func(t *testing.T, dir string) string {
			must(t, os.Chmod(packs(t, dir)[0], 0o620))
			return dir
		}},
		{"symlinked pack refused", func(t *testing.T, dir string) string {
			p := packs(t, dir)[0]
			must(t, os.Rename(p, filepath.Join(dir, "elsewhere")))
			must(t, os.Symlink(filepath.Join(dir, "elsewhere"), p))
			return dir
		}},
		{"objects as a file refused", func(t *testing.T, dir string) string {
			must(t, os.RemoveAll(objects(dir)))
			must(t, os.WriteFile(objects(dir), nil, 0o600))
			return dir
		}},
		{"pack as a FIFO refused", func(t *testing.T, dir string) string {
			p := packs(t, dir)[0]
			must(t, os.Remove(p))
			must(t, mkfifo(p))
			return dir
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.Chmod(dir, 0o700))
			put(t, openStore(t, dir), []byte("x"))
			s, err := Open(tc.setup(t, dir), Options{Create: true})
			if !errors.Is(err, ErrUntrusted) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open = %v; want ErrUntrusted", err)
			}
		})
	}
}

func TestGetRefusesPackSwappedForSymlink(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	k := put(t, s, []byte("x"))[0]
	p := packs(t, dir)[0]
	must(t, os.Rename(p, filepath.Join(dir, "elsewhere")))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere"), p))
	if got, err := s.Get(k); !errors.Is(err, ErrUntrusted) || got != nil {
		t.Fatalf("Get = %q, %v; want ErrUntrusted", got, err)
	}
}

var must = testtree.Must

// corruptObjects flips a byte inside the first object's zstd frame of the
// pack at p.
func corruptObjects(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	b[len(packMagic)+objectHeader+4] ^= 0x40
	must(t, os.WriteFile(p, b, 0o600))
}

func TestGetSizedRefusesAnObjectDeclaringMoreThanTheManifestSays(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("payload "), 512)
	k := put(t, openStore(t, dir), data)[0]
	s := openStore(t, dir)
	if got, err := s.GetSized(k, int64(len(data))); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GetSized of the right size = %d bytes, %v", len(got), err)
	}
	if got, err := s.GetSized(k, 10); !errors.Is(err, ErrCorrupt) || got != nil {
		t.Fatalf("GetSized under the declared size = %d bytes, %v; want ErrCorrupt", len(got), err)
	}
}

func TestACorruptCopyOfAKeyDoesNotShadowAGoodOne(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("raced content "), 64)
	// Two batches racing: each keeps its own copy, in its own pack.
	b1, b2 := mustBatch(t, openStore(t, dir)), mustBatch(t, openStore(t, dir))
	must(t, b1.Put(key(data), data))
	must(t, b2.Put(key(data), data))
	commit(t, b1)
	commit(t, b2)
	ps := packs(t, dir)
	if len(ps) != 2 {
		t.Fatalf("packs: %v", ps)
	}
	for i := range ps {
		t.Run(fmt.Sprintf("corrupt copy %d", i), func(t *testing.T) {
			orig, err := os.ReadFile(ps[i])
			must(t, err)
			defer os.WriteFile(ps[i], orig, 0o600)
			corruptObjects(t, ps[i])
			if got, err := openStore(t, dir).Get(key(data)); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Get = %d bytes, %v; want the good copy", len(got), err)
			}
		})
	}
}
