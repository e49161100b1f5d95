package content

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

func keepOnly(keys ...snapshot.Hash) func() (func(snapshot.Hash) bool, error) {
	return func() (func(snapshot.Hash) bool, error) {
		return func(k snapshot.Hash) bool {
			for _, want := range keys {
				if k == want {
					return true
				}
			}
			return false
		}, nil
	}
}

func TestCollectRemovesOnlyUnreferencedObjects(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	a, b, c := []byte("kept a"), bytes.Repeat([]byte("dropped b "), 100), []byte("kept c")
	keys := put(t, s, a, b) // a pack with one live object: rewritten
	keys = append(keys, put(t, s, c)...)
	dead := put(t, s, []byte("d")) // a pack with none: removed
	before := s.Size()
	got, err := s.Collect(keepOnly(keys[0], keys[2]))
	if err != nil {
		t.Fatal(err)
	}
	if got.Objects != 2 || got.Packs != 2 || got.Busy || got.Freed != before-s.Size() || got.Freed <= 0 {
		t.Fatalf("Collect = %+v; size %d -> %d", got, before, s.Size())
	}
	s2 := openStore(t, dir)
	for _, k := range []snapshot.Hash{keys[1], dead[0]} {
		if _, err := s2.Get(k); !errors.Is(err, ErrMissing) {
			t.Fatalf("collected object: Get = %v; want ErrMissing", err)
		}
	}
	for i, k := range []snapshot.Hash{keys[0], keys[2]} {
		if got, err := s2.Get(k); err != nil || !bytes.Equal(got, [][]byte{a, c}[i]) {
			t.Fatalf("kept object %d: Get = %q, %v", i, got, err)
		}
	}
	if n := len(packs(t, dir)); n != 2 {
		t.Fatalf("%d packs left; want 2", n)
	}
}

func TestCollectYieldsToAnOpenBatch(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	k := put(t, s, []byte("x"))[0]
	// The batch found k kept; its version is not recorded yet.
	b := mustBatch(t, s)
	must(t, b.Put(k, []byte("x")))
	got, err := openStore(t, dir).Collect(keepOnly())
	if err != nil || !got.Busy || got.Objects != 0 {
		t.Fatalf("Collect = %+v, %v; want Busy and nothing removed", got, err)
	}
	commit(t, b)
	if _, err := s.Get(k); err != nil {
		t.Fatal(err)
	}
}

func TestCollectLoadsKeepUnderTheLock(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	put(t, s, []byte("x"))
	put(t, s, []byte("y"))
	loads := 0
	_, err := s.Collect(func() (func(snapshot.Hash) bool, error) {
		loads++
		return func(snapshot.Hash) bool { return true }, nil
	})
	if err != nil || loads != 2 {
		t.Fatalf("keep loaded %d times for 2 packs, %v", loads, err)
	}
}

func TestCollectLeavesDamagedPacks(t *testing.T) {
	dir := t.TempDir()
	put(t, openStore(t, dir), []byte("x"))
	p := packs(t, dir)[0]
	must(t, os.Truncate(p, 10))
	s := openStore(t, dir)
	if got, err := s.Collect(keepOnly()); err != nil || got.Packs != 0 {
		t.Fatalf("Collect = %+v, %v", got, err)
	}
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("damaged pack removed: %v", err)
	}
}

func TestCollectSweepsTempsOfKilledWriters(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	put(t, s, []byte("x"))
	tmp := filepath.Join(dir, ObjectsDir, tmpPrefix+"killed")
	must(t, os.WriteFile(tmp, []byte("half a pack"), 0o600))
	if _, err := s.Collect(keepOnly()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary pack left: %v", err)
	}
}

func TestABatchNeverWaitsForACollection(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	// Collect's exclusive lock, held through another descriptor. flock locks
	// belong to the open file, so this conflicts within a process.
	f, err := os.Open(filepath.Join(dir, ObjectsDir))
	must(t, err)
	defer f.Close()
	must(t, unix.Flock(int(f.Fd()), unix.LOCK_EX))
	if b, err := s.NewBatch(); !errors.Is(err, ErrBusy) {
		if err == nil {
			b.Close()
		}
		t.Fatalf("NewBatch under a collection = %v, want ErrBusy", err)
	}
}

func TestCollectStopsAsBusyWhenWhatItLoadsIsBusy(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	put(t, s, []byte("x"))
	got, err := s.Collect(func() (func(snapshot.Hash) bool, error) { return nil, ErrBusy })
	if err != nil || !got.Busy || got.Objects != 0 {
		t.Fatalf("Collect = %+v, %v; want Busy and nothing removed", got, err)
	}
}

func TestABatchReadsTheIndexAgainSoACollectedObjectIsWrittenAgain(t *testing.T) {
	dir := t.TempDir()
	stale := openStore(t, dir)
	k := put(t, stale, []byte("x"))[0]
	// Another process collects k after stale's index was read.
	if _, err := openStore(t, dir).Collect(keepOnly()); err != nil {
		t.Fatal(err)
	}
	put(t, stale, []byte("x"))
	if got, err := openStore(t, dir).Get(k); err != nil || string(got) != "x" {
		t.Fatalf("Get = %q, %v: the batch skipped an object no longer kept", got, err)
	}
}

func TestCollectNeverCopiesACorruptObjectIntoANewPack(t *testing.T) {
	dir := t.TempDir()
	live := bytes.Repeat([]byte("live "), 512)
	keys := put(t, openStore(t, dir), live, []byte("dropped"))
	p := packs(t, dir)[0]
	corruptObjects(t, p)
	got, err := openStore(t, dir).Collect(keepOnly(keys[0]))
	if err != nil || got.Unverified != 1 || got.Packs != 0 {
		t.Fatalf("Collect = %+v, %v; want the pack left unverified", got, err)
	}
	if ps := packs(t, dir); len(ps) != 1 || ps[0] != p {
		t.Fatalf("packs after: %v; want %s left as it was", ps, p)
	}
}
