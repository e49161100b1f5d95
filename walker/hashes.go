package walker

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Hashes lets a walk reuse the hash of a file whose identity is unchanged
// since skillwire hashed it. The identity is the mount, device, inode,
// size, mode, and mtime and ctime to the nanosecond. The mount is its
// unique id, so a remount never matches. Reuse needs a filesystem whose
// ctime only the kernel sets, by statfs f_type. Those are ext4, xfs,
// btrfs, f2fs, bcachefs and zfs. Never FUSE, a network mount, an overlay
// or tmpfs. A write to a file moves its ctime, and no one can set a ctime
// back: utimensat sets only atime and mtime. The exception is a write
// through a shared mapping to a page already dirty: it moves nothing
// until the page is written back (seconds on disk; never on tmpfs, which
// is why tmpfs is not trusted). git's index has the same limit. So a
// rewrite that restores size and mtime (`touch -r`) is still seen. A file whose ctime falls
// within RacyWindow of the scan's start is hashed again next time. That is
// git's racy rule: a write in the same timestamp tick as the hash leaves
// the ctime as it was.
//
// The cache is skillwire's own file in its state directory, never in a
// tree. It is read only when it and its directory are owned by the user
// and writable by no one else. It is bound to this boot, the kernel's
// boot_id, since mount ids restart at boot. It is checksummed. When
// anything fails it is rejected whole, never repaired. A rejected cache
// costs one full hash of each file. Only the session start reuses. The
// daemon hashes everything, and keeps identities (Identities). `scan
// --full` and `record` leave Config.Reuse nil and hash everything.
type Hashes struct {
	path string
	boot [16]byte
	ok   bool // the boot is known and the system can reuse
	gen  uint32
	// raw holds the n loaded records as the file encodes them, sorted by
	// key. A lookup decodes only what it compares, and loading copies
	// nothing. Issue 23: decoding 54,000 records into a second array cost a
	// session start 1,400 page faults.
	raw  []byte
	n    int
	seen []atomic.Bool // record i was matched by this walk
	// classes caches, per device, whether its filesystem keeps ctime
	// (Linux only: elsewhere nothing is reused).
	//lint:ignore U1000 used by hashes_linux.go; the BSD build reuses nothing.
	classes sync.Map // uint64 -> bool
	mu      sync.Mutex
	fresh   []hashRec // hashed by this walk, not racy
	changed atomic.Bool
	// only: Identities. Nothing is reused, recorded or saved.
	only bool
}

// RacyWindow is the timestamp granularity a file's ctime must be older
// than for its hash to be reused. It is measured at the start of the scan
// that hashes it. Two seconds cover ext4's one-second stamps (128-byte
// inodes). They also cover the kernel's coarse clock (a jiffy) everywhere
// else.
const RacyWindow = 2 * time.Second

// now is the clock of the racy rule; tests move it.
var now = time.Now

// hashRec is one file's identity and hash. Its encoding is recSize bytes.
type hashRec struct {
	mnt, dev, ino uint64
	size          int64
	mode          uint32
	gen           uint32 // the save that last saw it
	mtime, ctime  [2]int64
	hash          snapshot.Hash
}

const (
	recSize    = 8*3 + 8 + 4 + 4 + 16*2 + 32
	hashMagic  = "skillwire hashes 1\n"
	headerSize = len(hashMagic) + 16 + 4 + 4
	// maxRecs bounds the cache file (about 100 MB), and so what Load reads.
	maxRecs = 1 << 20
	// maxAge: a record no walk matched for this many saves is dropped. A
	// project's trees are not walked from other projects' sessions.
	maxAge = 16
)

// less orders records by key (mount, device, inode), as the file holds them.
func (r *hashRec) less(o *hashRec) int { return cmpKey(r.key(), o.key()) }

func (r *hashRec) key() [3]uint64 { return [3]uint64{r.mnt, r.dev, r.ino} }

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// same reports whether o, a file as statx saw it, has r's identity.
func (r *hashRec) same(o *hashRec) bool {
	return r.mnt == o.mnt && r.dev == o.dev && r.ino == o.ino && r.size == o.size && r.mode == o.mode &&
		r.mtime == o.mtime && r.ctime == o.ctime
}

// LoadHashes reads the cache at path. It never fails. A missing, corrupt,
// foreign (another boot, another owner) or untrusted cache is an empty
// one, which Save then replaces.
func LoadHashes(path string) *Hashes {
	h := &Hashes{path: path}
	h.boot, h.ok = bootID()
	if !h.ok {
		return h
	}
	raw, n, gen, err := readHashes(path, h.boot)
	if err != nil {
		// Anything there that is not a trusted cache of this boot is
		// replaced at the next save. So is a missing one.
		h.changed.Store(true)
		return h
	}
	h.raw, h.n, h.gen, h.seen = raw, n, gen, make([]atomic.Bool, n)
	return h
}

// Identities is a Reuse that reuses nothing: with Config.Idents, a walk
// that hashes every file still keeps what it stated of each entry
// (Candidate.Idents). The daemon walks so: the session start then stamps
// the copies it serves from the daemon's cached observation, the identity
// each hash is of, with no stat of its own. It costs the walk one statx
// per file. It holds, per device, whether its filesystem keeps ctime, so
// it serves one walk: a device number is another filesystem after a
// remount.
func Identities() *Hashes {
	h := &Hashes{only: true}
	_, h.ok = bootID()
	return h
}

var errHashes = errors.New("walker: not a cache of file hashes of this boot")

// readHashes returns the records of the cache at path as encoded, their
// number and the cache's generation.
func readHashes(path string, boot [16]byte) ([]byte, int, uint32, error) {
	if err := trustedDir(path); err != nil {
		return nil, 0, 0, err
	}
	b, _, err := safefile.Read(path, int64(headerSize+maxRecs*recSize+32), safefile.Trust{Owner: true, DenyPerm: 0o077})
	if err != nil {
		return nil, 0, 0, err
	}
	if len(b) < headerSize+32 || string(b[:len(hashMagic)]) != hashMagic {
		return nil, 0, 0, errHashes
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if want := blake3.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, 0, 0, errHashes
	}
	p := b[len(hashMagic):]
	if !bytes.Equal(p[:16], boot[:]) {
		return nil, 0, 0, errHashes
	}
	gen := binary.LittleEndian.Uint32(p[16:])
	n := int(binary.LittleEndian.Uint32(p[20:]))
	if n > maxRecs || len(body) != headerSize+n*recSize {
		return nil, 0, 0, errHashes
	}
	raw := body[headerSize:]
	for i := 1; i < n; i++ {
		// Strictly sorted: a cache holding one file twice is not ours.
		if cmpKey(keyAt(raw, i-1), keyAt(raw, i)) >= 0 {
			return nil, 0, 0, errHashes
		}
	}
	return raw, n, gen, nil
}

// keyAt is the key (mount, device, inode) of the i-th encoded record.
func keyAt(raw []byte, i int) [3]uint64 {
	p := raw[i*recSize : i*recSize+24]
	le := binary.LittleEndian
	return [3]uint64{le.Uint64(p), le.Uint64(p[8:]), le.Uint64(p[16:])}
}

// cmpKey orders keys as less orders records.
func cmpKey(a, b [3]uint64) int {
	for i := range a {
		if c := cmpU(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// rec decodes the i-th loaded record.
func (h *Hashes) rec(i int) hashRec { return decodeRec(h.raw[i*recSize:]) }

// trustedDir: the cache's directory is the user's and no one else's,
// as the store's must be.
func trustedDir(path string) error {
	fi, err := os.Lstat(dirOf(path))
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return errHashes
	}
	return nil
}

func dirOf(path string) string {
	if i := bytes.LastIndexByte([]byte(path), '/'); i > 0 {
		return path[:i]
	} else if i == 0 {
		return "/"
	}
	return "."
}

func decodeRec(p []byte) hashRec {
	le := binary.LittleEndian
	r := hashRec{mnt: le.Uint64(p), dev: le.Uint64(p[8:]), ino: le.Uint64(p[16:]), size: int64(le.Uint64(p[24:])),
		mode: le.Uint32(p[32:]), gen: le.Uint32(p[36:])}
	r.mtime = [2]int64{int64(le.Uint64(p[40:])), int64(le.Uint64(p[48:]))}
	r.ctime = [2]int64{int64(le.Uint64(p[56:])), int64(le.Uint64(p[64:]))}
	copy(r.hash[:], p[72:])
	return r
}

func (r *hashRec) append(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, r.mnt)
	b = le.AppendUint64(b, r.dev)
	b = le.AppendUint64(b, r.ino)
	b = le.AppendUint64(b, uint64(r.size))
	b = le.AppendUint32(b, r.mode)
	b = le.AppendUint32(b, r.gen)
	for _, v := range [...]int64{r.mtime[0], r.mtime[1], r.ctime[0], r.ctime[1]} {
		b = le.AppendUint64(b, uint64(v))
	}
	return append(b, r.hash[:]...)
}

// lookup returns the hash of the file id describes, when a record has its
// identity exactly. A record of the same file with another identity
// means it changed. That makes the cache changed.
func (h *Hashes) lookup(id *hashRec) (snapshot.Hash, bool) {
	if h.only {
		return snapshot.Hash{}, false
	}
	key := id.key()
	i := sort.Search(h.n, func(i int) bool { return cmpKey(keyAt(h.raw, i), key) >= 0 })
	if i == h.n || keyAt(h.raw, i) != key {
		return snapshot.Hash{}, false
	}
	r := h.rec(i)
	if !r.same(id) {
		h.changed.Store(true)
		return snapshot.Hash{}, false
	}
	h.seen[i].Store(true)
	return r.hash, true
}

// record keeps a file hashed by a walk that started at start. It does not
// when its ctime is within RacyWindow of start.
func (h *Hashes) record(id *hashRec, hash snapshot.Hash, start time.Time) {
	if h.only || time.Unix(id.ctime[0], id.ctime[1]).After(start.Add(-RacyWindow)) {
		return
	}
	r := *id
	r.hash = hash
	h.mu.Lock()
	h.fresh = append(h.fresh, r)
	h.mu.Unlock()
	h.changed.Store(true)
}

// Save writes the cache when the walks that used it hashed or found
// changed anything. It writes what they matched and hashed, and what they
// did not see for fewer than maxAge saves. It does not fsync. A cache lost
// in a crash is rejected by its checksum and costs one hash of each file.
func (h *Hashes) Save() error {
	if h == nil || !h.ok || h.only || !h.changed.Load() {
		return nil
	}
	gen := h.gen + 1
	h.mu.Lock()
	recs := slices.Clone(h.fresh)
	h.mu.Unlock()
	for i := range recs {
		recs[i].gen = gen
	}
	for i := range h.n {
		r := h.rec(i)
		if h.seen[i].Load() {
			r.gen = gen
		} else if gen-r.gen >= maxAge {
			continue
		}
		recs = append(recs, r)
	}
	// Newest first, so that of one file's records the fresh one stays.
	slices.SortStableFunc(recs, func(a, b hashRec) int { return a.less(&b) })
	recs = slices.CompactFunc(recs, func(a, b hashRec) bool { return a.less(&b) == 0 })
	recs = newestHashes(recs, maxRecs)
	b := make([]byte, 0, headerSize+len(recs)*recSize+32)
	b = append(b, hashMagic...)
	b = append(b, h.boot[:]...)
	b = binary.LittleEndian.AppendUint32(b, gen)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(recs)))
	for i := range recs {
		b = recs[i].append(b)
	}
	sum := blake3.Sum256(b)
	return writeNoSync(h.path, append(b, sum[:]...))
}

// newestHashes are at most max of recs, sorted by key and each key once,
// in key order: past max the newest stay, the ones this save matched or
// hashed first, then by the save that last saw them. A tree of more files
// than the cache holds keeps the ones in use, not the lowest inodes.
func newestHashes(recs []hashRec, max int) []hashRec {
	if len(recs) <= max {
		return recs
	}
	slices.SortStableFunc(recs, func(a, b hashRec) int { return cmp.Compare(b.gen, a.gen) })
	recs = recs[:max]
	slices.SortFunc(recs, func(a, b hashRec) int { return a.less(&b) })
	return recs
}

// writeNoSync replaces path atomically: a temporary file beside it, then a
// rename. It skips the fsyncs of safefile.Write. The cache is only ever an
// optimization, and a torn one is rejected.
func writeNoSync(path string, data []byte) error {
	f, err := os.CreateTemp(dirOf(path), ".hashes-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// reusedAt fills e, the regular file name of the directory dirfd (on
// device dev), from the cache. It does so when its identity is unchanged
// since it was hashed: one statx. Otherwise id is what statx saw, and the
// file is to be read. mnt is 0 when nothing may be recorded. With want,
// the file statx finds must be the one want describes (its device and
// inode), or it is not reused and id is left empty. The entry and byte
// budgets are spent exactly as a read spends them. So a digest never
// depends on the cache.
func (w *cwalk) reusedAt(dirfd int, dev uint64, name zname, want *unix.Stat_t, e *snapshot.Entry, id *hashRec) bool {
	h := w.s.reuse
	if h == nil {
		return false
	}
	if !identify(dirfd, name, id) || id.dev != dev || !h.localCtime(dirfd, dev) ||
		want != nil && (id.dev != uint64(want.Dev) || id.ino != want.Ino) {
		*id = hashRec{}
		return false
	}
	if id.size > w.s.cfg.MaxFileBytes {
		return false // Oversize: the reader says so
	}
	sum, ok := h.lookup(id)
	if !ok || !w.kept(sum, id.size) {
		return false
	}
	if !w.reserve(id.size) {
		e.Kind = 0
		return true
	}
	*e = snapshot.Entry{Path: e.Path, Kind: snapshot.File, Size: id.size, Mode: id.mode & 07777, Hash: sum}
	return true
}

// known fills e, the regular file name of dirfd, with reader r: from the
// cache when statx finds the file with its identity unchanged since it was
// hashed, else read and hashed with the arrival proof, the cache learning
// its hash. It returns the identity the hash is of (mnt 0: none). want,
// when set, is the file as it was looked at: statx must find that one. dev
// is dirfd's device, 0 when not known. A file reached through a link
// (follow), or whose bytes sink takes, is read.
func (w *cwalk) known(r *reader, dirfd int, dev uint64, name zname, follow bool, want *unix.Stat_t, e *snapshot.Entry, sink *[]byte) hashRec {
	var id hashRec
	if dev != 0 && !follow && sink == nil {
		if w.reusedAt(dirfd, dev, name, want, e, &id) {
			return id
		}
		if id.mnt != 0 {
			seen := id.stat()
			r.file(w, dirfd, name, false, &seen, e, &id, nil)
			return id
		}
	}
	r.file(w, dirfd, name, follow, want, e, nil, sink)
	return id
}

// Known is what a Keeper that keeps content across walks answers: whether
// the content of a hash is kept already. Say the walk's Keeper would keep
// a reused hash's content, and does not know it. Then it is read again to
// be kept.
type Known interface {
	Known(snapshot.Hash) bool
}

func (w *cwalk) kept(sum snapshot.Hash, size int64) bool {
	if w.s.cfg.Keep == nil || size > w.s.keepMax {
		return true
	}
	k, ok := w.s.cfg.Keep.(Known)
	return ok && k.Known(sum)
}
