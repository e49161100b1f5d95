package walker

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// FrontCache lets a walk reuse what a NameSpec's Front made of a front file
// (a SKILL.md) whose identity is unchanged since it was parsed. Parsing
// is the cost: 200 skills of 64 KiB list-shaped YAML frontmatter took a
// session start past its deadline at every start, 17 ms each, and a gate
// hook read all of them at every Skill call (issue 34).
//
// The identity is the hash cache's (Hashes): the mount, device, inode,
// size, mode, mtime and ctime, on a filesystem whose ctime only the
// kernel sets, with git's racy rule. A record is also bound to the spec
// that parsed it (NameSpec.FrontTag, with the file's path in the
// candidate and NameSpec.Unloaded), and the cache to this boot and to
// the very executable that wrote it: another build may parse otherwise,
// so its records are never taken. The trust in the file is the hash
// cache's: skillwire's own, in its state directory, the user's and no
// one else's, checksummed, rejected whole when anything is off.
//
// The session start reads and writes it. A gate hook only reads it: a
// front file it does not find there is read as before.
type FrontCache struct {
	path    string
	once    sync.Once // reads it (usable)
	build   [32]byte
	ok      bool // the boot and the executable are known
	gen     uint32
	loaded  []frontRec // sorted by key, each key once (cmpFrontKey)
	mu      sync.Mutex
	seen    []bool // of loaded: used by this process
	fresh   []frontRec
	changed atomic.Bool
	classes sync.Map // uint64 -> bool, as Hashes.classes
}

type frontKey struct {
	mnt, dev, ino uint64
	tag           [16]byte
}

// frontRec is one front file's identity and what Front made of it.
type frontRec struct {
	key          frontKey
	size         int64
	mode         uint32
	gen          uint32
	mtime, ctime [2]int64
	hash         snapshot.Hash // of the bytes parsed
	unloaded     bool          // they hold one of NameSpec.Unloaded
	canon        []byte        // nil when Front made none
	reasons      []anomaly.Reason
}

const (
	frontsMagic = "skillwire fronts 1\n"
	// maxFrontRecs and maxFrontCanon bound the file, and so what a load
	// reads: a canonical form past maxFrontCanon is not kept.
	maxFrontRecs  = 1 << 16
	maxFrontCanon = 64 << 10
	maxFronts     = 64 << 20
	// frontsHead is the header: the magic, the build, the save's
	// generation and the count of records.
	frontsHead = len(frontsMagic) + 32 + 4 + 4
)

// errNotRegular: identifyErr found no regular file, or not all it asks.
var errNotRegular = errors.New("walker: not a regular file as statx asks")

// buildOf is buildID; tests stand in another build.
var buildOf = buildID

var errFrontCache = errors.New("walker: not a cache of front files of this boot and build")

// LoadFrontCache is the cache at path, read at its first use: a gate hook
// that reads no front file pays nothing for it. It never fails: a
// missing, corrupt or foreign one is empty, and Save replaces it. No path
// is no cache.
func LoadFrontCache(path string) *FrontCache {
	if path == "" {
		return nil // no cache: every front file is parsed
	}
	return &FrontCache{path: path}
}

// usable reads the cache once, and reports whether it is of this boot and
// build.
func (f *FrontCache) usable() bool {
	if f == nil {
		return false
	}
	f.once.Do(func() {
		f.build, f.ok = buildOf()
		if f.ok && f.read() != nil {
			f.loaded = nil
			f.changed.Store(true)
		}
	})
	return f.ok
}

func (f *FrontCache) read() error {
	if err := trustedDir(f.path); err != nil {
		return err
	}
	b, _, err := safefile.Read(f.path, maxFronts, safefile.Trust{Owner: true, DenyPerm: 0o077})
	if err != nil {
		return err
	}
	head := frontsHead
	if len(b) < head+32 || string(b[:len(frontsMagic)]) != frontsMagic {
		return errFrontCache
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if want := blake3.Sum256(body); !bytes.Equal(want[:], sum) || !bytes.Equal(body[len(frontsMagic):][:32], f.build[:]) {
		return errFrontCache
	}
	le := binary.LittleEndian
	f.gen = le.Uint32(body[head-8:])
	n := int(le.Uint32(body[head-4:]))
	if n > maxFrontRecs {
		return errFrontCache
	}
	// Save writes the records sorted, so a lookup is a binary search, and
	// a key twice or out of order is not a file Save wrote. A map of them
	// was most of a gate hook's load (issue 34).
	f.loaded = make([]frontRec, 0, n)
	p := body[head:]
	for range n {
		r, rest, ok := decodeFront(p)
		if !ok || len(f.loaded) > 0 && cmpFrontKey(f.loaded[len(f.loaded)-1].key, r.key) >= 0 {
			return errFrontCache
		}
		f.loaded, p = append(f.loaded, r), rest
	}
	if len(p) != 0 {
		return errFrontCache
	}
	f.seen = make([]bool, len(f.loaded))
	return nil
}

// keepFronts are the records of recs a file of at most maxRecs records and
// maxBytes bytes of them holds, in the order Save writes them. The newest
// are kept first: the ones this save used or parsed, then by the save
// that last used them, so a tree of more front files than the bounds hold
// keeps the ones in use, and a record too large to fit leaves room for
// the smaller ones after it. recs is reordered.
func keepFronts(recs []frontRec, maxRecs, maxBytes int) []frontRec {
	slices.SortFunc(recs, func(a, b frontRec) int {
		if a.gen != b.gen {
			return cmp.Compare(b.gen, a.gen)
		}
		return cmpFrontKey(a.key, b.key)
	})
	kept, size := recs[:0], 0
	for _, r := range recs {
		if len(kept) == maxRecs {
			break
		}
		if n := r.encodedLen(); size+n <= maxBytes {
			kept, size = append(kept, r), size+n
		}
	}
	slices.SortFunc(kept, func(a, b frontRec) int { return cmpFrontKey(a.key, b.key) })
	return kept
}

// encodedLen is the length of the record as append writes it.
func (r *frontRec) encodedLen() int { return frontFixed + len(r.reasons) + len(r.canon) }

// cmpFrontKey orders the keys of the records as Save writes them.
func cmpFrontKey(a, b frontKey) int {
	if c := cmpKey([3]uint64{a.mnt, a.dev, a.ino}, [3]uint64{b.mnt, b.dev, b.ino}); c != 0 {
		return c
	}
	return bytes.Compare(a.tag[:], b.tag[:])
}

// frontFixed is the encoded size of a record before its reasons and form.
const frontFixed = 8*3 + 16 + 8 + 4 + 4 + 8*4 + 32 + 1 + 1 + 4

func decodeFront(p []byte) (frontRec, []byte, bool) {
	if len(p) < frontFixed {
		return frontRec{}, nil, false
	}
	le := binary.LittleEndian
	var r frontRec
	r.key.mnt, r.key.dev, r.key.ino = le.Uint64(p), le.Uint64(p[8:]), le.Uint64(p[16:])
	copy(r.key.tag[:], p[24:40])
	r.size, r.mode, r.gen = int64(le.Uint64(p[40:])), le.Uint32(p[48:]), le.Uint32(p[52:])
	r.mtime = [2]int64{int64(le.Uint64(p[56:])), int64(le.Uint64(p[64:]))}
	r.ctime = [2]int64{int64(le.Uint64(p[72:])), int64(le.Uint64(p[80:]))}
	copy(r.hash[:], p[88:120])
	flags, nr := p[120], int(p[121])
	r.unloaded = flags&1 != 0
	clen := int(le.Uint32(p[122:]))
	p = p[frontFixed:]
	if flags&^3 != 0 || clen > maxFrontCanon || len(p) < nr+clen || flags&2 == 0 && clen != 0 {
		return frontRec{}, nil, false
	}
	for _, b := range p[:nr] {
		if !anomaly.Reason(b).Valid() {
			return frontRec{}, nil, false
		}
		r.reasons = append(r.reasons, anomaly.Reason(b))
	}
	if flags&2 != 0 {
		r.canon = append([]byte{}, p[nr:nr+clen]...)
	}
	return r, p[nr+clen:], true
}

func (r *frontRec) append(b []byte) []byte {
	le := binary.LittleEndian
	for _, v := range [...]uint64{r.key.mnt, r.key.dev, r.key.ino} {
		b = le.AppendUint64(b, v)
	}
	b = append(b, r.key.tag[:]...)
	b = le.AppendUint64(b, uint64(r.size))
	b = le.AppendUint32(b, r.mode)
	b = le.AppendUint32(b, r.gen)
	for _, v := range [...]int64{r.mtime[0], r.mtime[1], r.ctime[0], r.ctime[1]} {
		b = le.AppendUint64(b, uint64(v))
	}
	b = append(b, r.hash[:]...)
	var flags byte
	if r.unloaded {
		flags |= 1
	}
	if r.canon != nil {
		flags |= 2
	}
	b = append(b, flags, byte(len(r.reasons)))
	b = le.AppendUint32(b, uint32(len(r.canon)))
	for _, x := range r.reasons {
		b = append(b, byte(x))
	}
	return append(b, r.canon...)
}

func (r *frontRec) same(id *hashRec) bool {
	return r.size == id.size && r.mode == id.mode && r.mtime == id.mtime && r.ctime == id.ctime
}

// frontTag binds a record to the spec that parsed it and the file's path
// in the candidate.
func frontTag(ns *NameSpec, path []byte) [16]byte {
	h := blake3.New()
	h.WriteString(ns.FrontTag)
	h.Write([]byte{0})
	h.Write(path)
	for _, u := range ns.Unloaded {
		h.Write([]byte{0})
		h.WriteString(u)
	}
	var t [16]byte
	h.Digest().Read(t[:])
	return t
}

// frontTags is the frontTag of a NameSpec's FrontFile, made once for the
// names of one FrontsBy that share the spec: a blake3 hasher a name was
// a tenth of the gate's by-name reading (issue 34). The specs are not
// changed during one call.
type frontTags struct {
	ns  *NameSpec
	tag [16]byte
}

func (t *frontTags) of(ns *NameSpec) [16]byte {
	if t.ns != ns {
		t.ns, t.tag = ns, frontTag(ns, []byte(ns.FrontFile))
	}
	return t.tag
}

// get returns the record of the file id describes, parsed under tag, when
// its identity is unchanged.
func (f *FrontCache) get(id *hashRec, tag [16]byte) (frontRec, bool) {
	if !f.usable() {
		return frontRec{}, false
	}
	k := frontKey{mnt: id.mnt, dev: id.dev, ino: id.ino, tag: tag}
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := slices.BinarySearchFunc(f.loaded, k, func(r frontRec, k frontKey) int { return cmpFrontKey(r.key, k) })
	if !ok || !f.loaded[i].same(id) {
		return frontRec{}, false
	}
	f.seen[i] = true
	return f.loaded[i], true
}

// front is the Front of the front file of ns that id describes, found
// relative to dirfd on device dev, from the cache: when its identity is
// what it was when a walk parsed it under ns. A file on another device
// (a candidate linked there) is not taken: its filesystem's class is not
// the one asked. tags make the spec's tag.
func (f *FrontCache) front(dirfd int, dev uint64, id *hashRec, ns *NameSpec, tags *frontTags) (Front, bool) {
	if ns.FrontTag == "" || id.dev != dev || !f.usable() || !localCtime(&f.classes, dirfd, dev) {
		return Front{}, false
	}
	r, ok := f.get(id, tags.of(ns))
	if !ok {
		return Front{}, false
	}
	out := Front{Canonical: r.canon}
	if len(r.reasons) > 0 {
		out.Reason = r.reasons[0]
	}
	return out, true
}

// put keeps what Front made of the bytes of the file id describes (hash),
// for a walk that started at start. Not when the ctime is within
// RacyWindow of start, or the form is past maxFrontCanon.
func (f *FrontCache) put(id *hashRec, tag [16]byte, hash snapshot.Hash, canon []byte, rs []anomaly.Reason, unloaded bool, start time.Time) {
	if !f.usable() || len(canon) > maxFrontCanon || len(rs) > 255 ||
		time.Unix(id.ctime[0], id.ctime[1]).After(start.Add(-RacyWindow)) {
		return
	}
	r := frontRec{key: frontKey{mnt: id.mnt, dev: id.dev, ino: id.ino, tag: tag}, size: id.size, mode: id.mode,
		mtime: id.mtime, ctime: id.ctime, hash: hash, unloaded: unloaded, reasons: rs}
	if canon != nil {
		r.canon = append([]byte{}, canon...)
	}
	f.mu.Lock()
	f.fresh = append(f.fresh, r)
	f.mu.Unlock()
	f.changed.Store(true)
}

// Save writes the cache when a walk parsed something new: what it used
// and parsed, and the records no walk used for fewer than maxAge saves,
// as many as the file's bounds hold (keepFronts). It does not fsync, as
// Hashes.Save does not.
func (f *FrontCache) Save() error {
	if !f.usable() || !f.changed.Load() {
		return nil
	}
	gen := f.gen + 1
	f.mu.Lock()
	defer f.mu.Unlock()
	recs := map[frontKey]frontRec{}
	for i, r := range f.loaded {
		if f.seen[i] {
			r.gen = gen
		} else if gen-r.gen >= maxAge {
			continue
		}
		recs[r.key] = r
	}
	for _, r := range f.fresh {
		r.gen = gen
		recs[r.key] = r
	}
	sorted := keepFronts(slices.Collect(maps.Values(recs)), maxFrontRecs, maxFronts-frontsHead-32) // 32: the seal, a BLAKE3 sum
	b := append([]byte(frontsMagic), f.build[:]...)
	b = binary.LittleEndian.AppendUint32(b, gen)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(sorted)))
	for _, r := range sorted {
		b = r.append(b)
	}
	sum := blake3.Sum256(b)
	if err := writeNoSync(f.path, append(b, sum[:]...)); err != nil {
		return err
	}
	// Saved: a second Save writes only what was parsed since.
	f.loaded, f.fresh, f.gen = sorted, nil, gen
	f.seen = make([]bool, len(sorted))
	f.changed.Store(false)
	return nil
}
