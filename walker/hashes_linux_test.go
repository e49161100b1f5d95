package walker

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// pastRacyWindow moves the racy rule's clock an hour on, so that files a
// test just wrote are old enough to be recorded.
func pastRacyWindow(t *testing.T) {
	t.Cleanup(func() { now = time.Now })
	now = func() time.Time { return time.Now().Add(time.Hour) }
}

// countReads counts the files read (hashed) while the test runs.
func countReads(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	testHookRead = func([]byte) { n.Add(1) }
	t.Cleanup(func() { testHookRead = nil })
	return &n
}

// reusing observes dir/name with the cache at state/hashes, saves it and
// returns what was observed and how many files were read.
func reusing(t *testing.T, state, dir, name string, reads *atomic.Int64) (Candidate, int64) {
	t.Helper()
	h := LoadHashes(filepath.Join(state, "hashes"))
	cfg := DefaultConfig()
	cfg.Reuse = h
	before := reads.Load()
	c := observe(t, dir, name, cfg)
	testtree.Must(t, h.Save())
	return c, reads.Load() - before
}

func stateDir(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "state")
	testtree.Must(t, os.Mkdir(d, 0o700))
	return d
}

func TestUnchangedFileReusesItsHashAndIsNotRead(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha", "s/d/b=beta", "s/d/e/c=gamma", "s/empty=")
	first, n := reusing(t, state, dir, "s", reads)
	if n != 4 {
		t.Fatalf("first walk read %d files, want 4", n)
	}
	second, n := reusing(t, state, dir, "s", reads)
	if n != 0 {
		t.Fatalf("second walk of an unchanged tree read %d files, want 0", n)
	}
	if second.Digest != first.Digest {
		t.Fatalf("digest moved: %x then %x", first.Digest, second.Digest)
	}
}

func TestDigestIsIdenticalWithAndWithoutTheCache(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), maxReadBuf/8)
	testtree.Make(t, dir, "s/a=alpha", "s/x*=#!/bin/sh", "s/empty=", "s/l -> a", "s/p|", "s/d/\nname=n", "s/d/e/")
	testtree.Must(t, os.WriteFile(filepath.Join(dir, "s/big"), big, 0o644))
	plain := observe(t, dir, "s", DefaultConfig())
	cold, _ := reusing(t, state, dir, "s", reads)
	warm, n := reusing(t, state, dir, "s", reads)
	if n != 0 {
		t.Fatalf("warm walk read %d files, want 0", n)
	}
	for _, c := range []Candidate{cold, warm} {
		if c.Digest != plain.Digest || len(c.Manifest.Entries) != len(plain.Manifest.Entries) {
			t.Fatalf("digest with the cache %x, without %x", c.Digest, plain.Digest)
		}
	}
	// The budgets are spent alike: a tree over the byte budget is partial
	// with the cache too. Where a byte cut falls is not deterministic, with
	// or without it. A partial digest is never compared.
	cut := DefaultConfig()
	cut.MaxBytes = int64(len(big)) / 2
	cut.Reuse = LoadHashes(filepath.Join(state, "hashes"))
	if c := observe(t, dir, "s", cut); !c.Partial() {
		t.Fatal("over the byte budget, the cache made the observation whole")
	}
}

func TestRewriteThatRestoresSizeAndMtimeIsSeenThroughCtime(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha", "s/b=beta")
	p := filepath.Join(dir, "s/a")
	fi, err := os.Stat(p)
	testtree.Must(t, err)
	before, _ := reusing(t, state, dir, "s", reads)
	time.Sleep(10 * time.Millisecond) // past the coarse clock's tick
	// touch -r: same size, content changed, atime and mtime put back.
	testtree.Must(t, os.WriteFile(p, []byte("ALPHA"), 0o644))
	testtree.Must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	after, n := reusing(t, state, dir, "s", reads)
	if n != 1 {
		t.Fatalf("read %d files after the rewrite, want 1 (the rewritten one)", n)
	}
	if after.Digest == before.Digest || after.Digest != observe(t, dir, "s", DefaultConfig()).Digest {
		t.Fatal("the rewrite was not seen, or the cache's digest differs from a full walk's")
	}
	// The cache saved after it holds the file once, with its new identity.
	if again, n := reusing(t, state, dir, "s", reads); n != 0 || again.Digest != after.Digest {
		t.Fatalf("the walk after the rewrite's read %d files, want 0", n)
	}
}

func TestWriteInTheRacyWindowIsSeen(t *testing.T) {
	reads := countReads(t) // the real clock: these files were written now
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha")
	p := filepath.Join(dir, "s/a")
	fi, err := os.Stat(p)
	testtree.Must(t, err)
	reusing(t, state, dir, "s", reads)
	// Rewritten within the window, times restored: the ctime may even be
	// the same tick as the first write's.
	testtree.Must(t, os.WriteFile(p, []byte("ALPHA"), 0o644))
	testtree.Must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	c, n := reusing(t, state, dir, "s", reads)
	if n != 1 || c.Digest != observe(t, dir, "s", DefaultConfig()).Digest {
		t.Fatalf("a file written within the racy window was reused (read %d files)", n)
	}

	// The rule itself: a ctime inside the window is never recorded.
	h := &Hashes{ok: true}
	start := time.Unix(1000, 0)
	for _, age := range []time.Duration{0, time.Nanosecond, RacyWindow - time.Nanosecond, -time.Second} {
		ct := start.Add(-age)
		h.record(&hashRec{mnt: 1, dev: 1, ino: 1, ctime: [2]int64{ct.Unix(), int64(ct.Nanosecond())}}, snapshot.Hash{}, start)
	}
	if len(h.fresh) != 0 {
		t.Fatalf("recorded %d files whose ctime is within %v of the hash", len(h.fresh), RacyWindow)
	}
	ct := start.Add(-RacyWindow)
	h.record(&hashRec{mnt: 1, dev: 1, ino: 1, ctime: [2]int64{ct.Unix(), int64(ct.Nanosecond())}}, snapshot.Hash{}, start)
	if len(h.fresh) != 1 {
		t.Fatal("a file hashed RacyWindow after its ctime was not recorded")
	}
}

func TestFUSEAndNetworkMountsNeverUseTheCache(t *testing.T) {
	// A real FUSE or NFS mount needs privileges and a FUSE filesystem. A
	// test cannot count on those, so the statfs classification is pinned by
	// f_type.
	for _, c := range []struct {
		name string
		typ  int64
		ok   bool
	}{
		{"ext4", unix.EXT4_SUPER_MAGIC, true},
		{"xfs", unix.XFS_SUPER_MAGIC, true},
		{"btrfs", unix.BTRFS_SUPER_MAGIC, true},
		{"tmpfs", unix.TMPFS_MAGIC, false}, // a mapped write never moves its ctime
		{"fuse", unix.FUSE_SUPER_MAGIC, false},
		{"nfs", unix.NFS_SUPER_MAGIC, false},
		{"smb2", unix.SMB2_SUPER_MAGIC, false},
		{"cifs", unix.CIFS_SUPER_MAGIC, false},
		{"9p", unix.V9FS_MAGIC, false},
		{"ceph", 0x00c36400, false},
		{"overlay", unix.OVERLAYFS_SUPER_MAGIC, false},
		{"afs", unix.AFS_FS_MAGIC, false},
		{"unknown", 0x1234, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if KeepsCtime(c.typ) != c.ok {
				t.Fatalf("keepsCtime(%#x) = %v, want %v", c.typ, !c.ok, c.ok)
			}
		})
	}
	// And a device classified as not keeping ctime is walked in full.
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha")
	reusing(t, state, dir, "s", reads)
	h := LoadHashes(filepath.Join(state, "hashes"))
	var st unix.Stat_t
	testtree.Must(t, unix.Stat(filepath.Join(dir, "s"), &st))
	h.classes.Store(uint64(st.Dev), false) // as if statfs said FUSE
	cfg := DefaultConfig()
	cfg.Reuse = h
	before := reads.Load()
	observe(t, dir, "s", cfg)
	if reads.Load()-before != 1 {
		t.Fatal("a file on a filesystem that does not keep ctime reused its hash")
	}
}

func TestCorruptOrForeignCacheIsIgnored(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha")
	path := filepath.Join(state, "hashes")
	reusing(t, state, dir, "s", reads)
	good, err := os.ReadFile(path)
	testtree.Must(t, err)
	resum := func(b []byte) []byte {
		body := b[:len(b)-32]
		sum := blake3Sum(body)
		return append(body[:len(body):len(body)], sum[:]...)
	}
	for _, c := range []struct {
		name string
		bad  func([]byte) []byte
		mode os.FileMode
	}{
		{"a flipped bit", func(b []byte) []byte { b[len(b)-40] ^= 1; return b }, 0o600},
		{"another boot", func(b []byte) []byte { b[len(hashMagic)] ^= 1; return resum(b) }, 0o600},
		{"another format", func(b []byte) []byte { b[0] = 'S'; return resum(b) }, 0o600},
		{"a file listed twice", func(b []byte) []byte {
			body := b[:len(b)-32]
			rec := body[headerSize : headerSize+recSize]
			body = append(body[:len(body):len(body)], rec...)
			body[headerSize-4]++ // the count
			return resum(append(body, make([]byte, 32)...))
		}, 0o600},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, 0o600},
		{"writable by others", func(b []byte) []byte { return b }, 0o622},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The cache says "alpha" hashes to zero: trusted, it would show.
			b := bytes.Clone(good)
			copy(b[headerSize+72:headerSize+104], make([]byte, 32))
			b = resum(b)
			testtree.Must(t, os.WriteFile(path, c.bad(b), c.mode))
			testtree.Must(t, os.Chmod(path, c.mode))
			if h := LoadHashes(path); h.n != 0 {
				t.Fatalf("loaded %d records from a cache with %s", h.n, c.name)
			}
		})
	}
	// Control: the poisoned cache, intact and trusted, would be used.
	b := bytes.Clone(good)
	copy(b[headerSize+72:headerSize+104], make([]byte, 32))
	testtree.Must(t, os.WriteFile(path, resum(b), 0o600))
	testtree.Must(t, os.Chmod(path, 0o600))
	if h := LoadHashes(path); h.n != 1 {
		t.Fatalf("control: a well-formed cache gave %d records, want 1", h.n)
	}
}

// knowing is a Keeper that knows the content it was told of.
type knowing struct {
	kept
	known map[snapshot.Hash]bool
}

func (k *knowing) Known(h snapshot.Hash) bool { return k.known[h] }

func TestReusedHashWhoseContentIsNotKeptIsReadToBeKept(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha")
	c, _ := reusing(t, state, dir, "s", reads)
	for _, known := range []bool{false, true} {
		k := &knowing{kept: kept{byKey: map[snapshot.Hash][]byte{}}, known: map[snapshot.Hash]bool{}}
		for _, e := range c.Manifest.Entries {
			k.known[e.Hash] = known
		}
		cfg := DefaultConfig()
		cfg.Keep, cfg.Reuse = k, LoadHashes(filepath.Join(state, "hashes"))
		observe(t, dir, "s", cfg)
		if want := map[bool]int{false: 1, true: 0}[known]; k.calls != want {
			t.Fatalf("content known=%v: kept %d times, want %d", known, k.calls, want)
		}
	}
}

func blake3Sum(b []byte) [32]byte { return blake3.Sum256(b) }

func TestCacheRecordsOutOfOrderAreRejected(t *testing.T) {
	pastRacyWindow(t)
	reads := countReads(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "s/a=alpha")
	path := filepath.Join(state, "hashes")
	reusing(t, state, dir, "s", reads)
	good, err := os.ReadFile(path)
	testtree.Must(t, err)
	// withSecond appends a copy of the one record, its inode moved by delta.
	// It goes before the first one in key order when delta is negative.
	withSecond := func(delta int64) []byte {
		body := bytes.Clone(good[:len(good)-32])
		rec := bytes.Clone(body[headerSize : headerSize+recSize])
		ino := binary.LittleEndian.Uint64(rec[16:])
		binary.LittleEndian.PutUint64(rec[16:], uint64(int64(ino)+delta))
		body = append(body, rec...)
		body[headerSize-4]++ // the count
		sum := blake3Sum(body)
		return append(body, sum[:]...)
	}
	for _, c := range []struct {
		delta int64
		want  int
	}{{-1, 0}, {+1, 2}} { // the second case is the control
		testtree.Must(t, os.WriteFile(path, withSecond(c.delta), 0o600))
		if h := LoadHashes(path); h.n != c.want {
			t.Fatalf("a second record at inode %+d: loaded %d records, want %d", c.delta, h.n, c.want)
		}
	}
}

// The daemon walks with Identities: it must hash every file at every
// walk, as before (a reused hash would rest on a cache it never keeps),
// yet keep every entry's identity for the session start's stamps.
func TestIdentitiesReuseNothingAndKeepEveryIdentity(t *testing.T) {
	pastRacyWindow(t) // a Reuse that recorded would record every file
	reads := countReads(t)
	dir := t.TempDir()
	testtree.Make(t, dir, "s/a=alpha", "s/d/b=beta", "s/d/e/c=gamma")
	plain := observe(t, dir, "s", DefaultConfig())
	h := Identities()
	for walk := range 2 {
		cfg := DefaultConfig()
		cfg.Reuse, cfg.Idents = h, true
		before := reads.Load()
		c := observe(t, dir, "s", cfg)
		if n := reads.Load() - before; n != 3 {
			t.Fatalf("walk %d with Identities read %d files, want all 3", walk, n)
		}
		if c.Digest != plain.Digest {
			t.Fatalf("walk %d: digest %x, a plain walk's %x", walk, c.Digest, plain.Digest)
		}
		if len(c.Idents) != len(c.Manifest.Entries) {
			t.Fatalf("walk %d kept %d identities of %d entries", walk, len(c.Idents), len(c.Manifest.Entries))
		}
		for i, e := range c.Manifest.Entries {
			var st unix.Stat_t
			testtree.Must(t, unix.Lstat(filepath.Join(dir, "s", string(e.Path)), &st))
			id := c.Idents[i]
			if !id.Known() || id.Ino != st.Ino || id.Dev != st.Dev || id.Ctime != [2]int64{st.Ctim.Sec, st.Ctim.Nsec} {
				t.Errorf("walk %d: %q's identity %+v is not what lstat gives", walk, e.Path, id)
			}
		}
	}
	if h.Save() != nil || len(h.fresh) != 0 || h.n != 0 {
		t.Fatalf("Identities kept %d hashes (%d loaded)", len(h.fresh), h.n)
	}
}
