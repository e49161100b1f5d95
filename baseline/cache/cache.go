// Package cache is what the daemon keeps in the store between its scans, for
// the session hook's fast path. It holds one cached observation per
// candidate, one summary per root, change events, a heartbeat, and the
// projects hooks registered. None of it is a baseline: `clear` drops it all.
// Nothing here is trusted without a fresh heartbeat from a daemon that
// watches everything (DaemonRunning). Its views are reached from a store
// transaction (baseline.Tx's Cache, Events and Projects).
package cache

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	bolt "go.etcd.io/bbolt"
)

// The cache's buckets, and its keys in the store's meta bucket.
var (
	bucketCache    = []byte("cache")      // root \x00 name -> cached candidate
	bucketRoots    = []byte("cacheroots") // root -> cached root summary
	bucketEvents   = []byte("events")     // time|seq -> event
	bucketProjects = []byte("projects")   // project dir -> registration time
	keyHeartbeat   = []byte("heartbeat")
	keyRescan      = []byte("rescan") // set by `clear`: the daemon must rescan everything
)

// MaxEvents bounds the events kept; the oldest go first.
const MaxEvents = 10_000

// Heartbeat is the daemon's sign of life.
type Heartbeat struct {
	PID int       `json:"pid"`
	At  time.Time `json:"at"`
	// Whole: every root is watched. Otherwise Degraded says why (watch
	// limits, queue overflow), and the daemon falls back to rescans.
	Whole    bool     `json:"whole"`
	Degraded string   `json:"degraded,omitempty"`
	Roots    []string `json:"roots"`
}

// Fresh reports whether h is recent enough, at now, to trust the cache.
func (h *Heartbeat) Fresh(now time.Time, maxAge time.Duration) bool {
	return h != nil && now.Sub(h.At) <= maxAge && h.At.Sub(now) <= time.Second
}

// Event is one change of a candidate's observed digest seen by the daemon.
type Event struct {
	ID     string         `json:"id"`
	Root   []byte         `json:"root"`
	Name   []byte         `json:"name"`
	Before *snapshot.Hash `json:"before"` // nil: absent or not fully observable
	After  *snapshot.Hash `json:"after"`
	At     time.Time      `json:"at"`
	// Changes: the file changes since the candidate's reviewed (else
	// first-use) version. They are reconciled with the audit logs.
	Changes []FileChange `json:"changes,omitempty"`
	key     []byte
}

// FileChange is one file's change and its reconciliation as people see it
// (DESIGN.md §7). It holds a display-gated path and the change: added,
// removed, modified or mode. It holds the reconciliation (expected, announced
// by the project, unexpected) and the announcing source.
type FileChange struct {
	Path   string  `json:"path"`
	Change string  `json:"change"`
	Class  string  `json:"class"`
	Source *string `json:"source"`
}

type cachedRoot struct {
	Missing   bool             `json:"missing"`
	Anomalies []anomaly.Reason `json:"anomalies"`
	At        time.Time        `json:"at"`
}

func cacheKey(root string, name []byte) []byte {
	k := append([]byte(root), 0)
	return append(k, name...)
}

// MaxCanonical bounds a cached canonical form. It is the store's bound on a
// kept one (baseline's extracts). The largest configuration read is
// ~/.claude.json, of which only the servers are kept.
const MaxCanonical = 1 << 20

// Cache is the cached observations, heartbeat and rescan request of one
// store transaction.
type Cache struct{ tx *bolt.Tx }

// Of is the cache of tx.
func Of(tx *bolt.Tx) Cache { return Cache{tx} }

// Events is the change events of one store transaction.
type Events struct{ tx *bolt.Tx }

// EventsOf is the events of tx.
func EventsOf(tx *bolt.Tx) Events { return Events{tx} }

// Projects is the registered projects of one store transaction.
type Projects struct{ tx *bolt.Tx }

// ProjectsOf is the projects of tx.
func ProjectsOf(tx *bolt.Tx) Projects { return Projects{tx} }

// PutRoot replaces everything cached for r.
func (t Cache) PutRoot(r *walker.Root, at time.Time) error {
	if err := t.DropRoot(r.Spec.Path); err != nil {
		return err
	}
	roots, err := storefile.Bucket(t.tx, bucketRoots)
	if err != nil {
		return err
	}
	b, err := json.Marshal(cachedRoot{Missing: r.Missing, Anomalies: r.Anomalies, At: at})
	if err != nil {
		return err
	}
	for i := range r.Candidates {
		if len(r.Candidates[i].Canonical) > MaxCanonical {
			return nil // uncacheable (PutCandidate): the session walks the root
		}
	}
	for i := range r.Candidates {
		if err := t.PutCandidate(r.Spec.Path, &r.Candidates[i]); err != nil {
			return err
		}
	}
	return roots.Put([]byte(r.Spec.Path), b)
}

// PutCandidate replaces one candidate's cached observation. One whose
// canonical form is over MaxCanonical uncaches its whole root, which the
// session then walks. A cached root missing a candidate would tell it
// removed. One without its form would tell no facts.
func (t Cache) PutCandidate(root string, c *walker.Candidate) error {
	if len(c.Canonical) > MaxCanonical {
		return t.DropRoot(root)
	}
	cands, err := storefile.Bucket(t.tx, bucketCache)
	if err != nil {
		return err
	}
	b, err := encodeCached(c)
	if err != nil {
		return err
	}
	return cands.Put(cacheKey(root, c.Name), b)
}

// encodeCached is a cached candidate. The hook's fast path reads it, so it is
// length-prefixed and decoded strictly (decodeCached):
//
//	kind byte, uvarint(0 | len(canonical)+1) canonical,
//	uvarint(count) (reason byte, uvarint(len) path)*,
//	uvarint(0 | len(entries)) identity*, manifest,
//
// an identity uvarint dev, ino, mode, varint size, then mtime and ctime as
// varint seconds, uvarint nanoseconds. The canonical form and the
// frontmatter's reasons travel with the manifest. Without them a cached
// candidate has no facts to tell. The identities, the daemon's walk kept
// (walker.Identities), stamp the copies a session start serves from the
// cache (served.StampWalked) with no stat of its own.
func encodeCached(c *walker.Candidate) ([]byte, error) {
	if len(c.Canonical) > MaxCanonical {
		return nil, fmt.Errorf("%w: canonical form of %d bytes", storefile.ErrCorrupt, len(c.Canonical))
	}
	b := []byte{byte(c.Kind)}
	if c.Canonical == nil {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(c.Canonical))+1)
		b = append(b, c.Canonical...)
	}
	b = binary.AppendUvarint(b, uint64(len(c.Front)))
	for _, f := range c.Front {
		if !f.Reason.Valid() {
			return nil, fmt.Errorf("%w: frontmatter reason %d", storefile.ErrCorrupt, f.Reason)
		}
		b = append(b, byte(f.Reason))
		b = binary.AppendUvarint(b, uint64(len(f.Path)))
		b = append(b, f.Path...)
	}
	if len(c.Idents) != 0 && len(c.Idents) != len(c.Manifest.Entries) {
		return nil, fmt.Errorf("%w: %d identities of %d entries", storefile.ErrCorrupt, len(c.Idents), len(c.Manifest.Entries))
	}
	b = binary.AppendUvarint(b, uint64(len(c.Idents)))
	for _, id := range c.Idents {
		b = binary.AppendUvarint(b, id.Dev)
		b = binary.AppendUvarint(b, id.Ino)
		b = binary.AppendUvarint(b, uint64(id.Mode))
		b = binary.AppendVarint(b, id.Size)
		for _, t := range [][2]int64{id.Mtime, id.Ctime} {
			b = binary.AppendVarint(b, t[0])
			b = binary.AppendUvarint(b, uint64(t[1]))
		}
	}
	return c.Manifest.AppendEncoding(b)
}

// minIdent is the fewest bytes an encoded identity takes: eight varints.
const minIdent = 8

// decodeCached is the left inverse of encodeCached. It rejects every byte
// string encodeCached cannot produce.
func decodeCached(name, v []byte, spec walker.RootSpec) (walker.Candidate, error) {
	bad := func(what string) (walker.Candidate, error) {
		return walker.Candidate{}, fmt.Errorf("%w: cached candidate: %s", storefile.ErrCorrupt, what)
	}
	if len(v) == 0 || walker.Kind(v[0]) > walker.KindFile {
		return bad("kind")
	}
	c := walker.Candidate{Name: bytes.Clone(name), Kind: walker.Kind(v[0]), Fixed: spec.Names != nil, InnerLinks: spec.InnerLinks}
	rest := v[1:]
	// field takes one uvarint(len+bias)-prefixed field off rest. ok is false
	// when it is malformed or longer than max.
	field := func(bias, max uint64) (n uint64, b []byte, ok bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > max+bias || n > uint64(len(rest)-k)+bias {
			return 0, nil, false
		}
		if n < bias {
			rest = rest[k:]
			return n, nil, true
		}
		b, rest = rest[k:k+int(n-bias)], rest[k+int(n-bias):]
		return n, b, true
	}
	n, canon, ok := field(1, MaxCanonical)
	if !ok {
		return bad("canonical form")
	}
	if n > 0 {
		c.Canonical = bytes.Clone(canon)
	}
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest)-k)/2 { // a reason takes two bytes at least
		return bad("frontmatter count")
	}
	rest = rest[k:]
	for range count {
		if len(rest) == 0 || !anomaly.Reason(rest[0]).Valid() {
			return bad("frontmatter reason")
		}
		r := anomaly.Reason(rest[0])
		rest = rest[1:]
		_, p, ok := field(0, uint64(len(rest)))
		if !ok {
			return bad("frontmatter path")
		}
		c.Front = append(c.Front, snapshot.Found{Reason: r, Path: bytes.Clone(p)})
	}
	count, k = binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest)-k)/minIdent {
		return bad("identity count")
	}
	rest = rest[k:]
	if count > 0 {
		c.Idents = make([]walker.Ident, count)
	}
	// u and z take one uvarint and one varint off rest into *x.
	u := func(x *uint64) bool {
		v, k := binary.Uvarint(rest)
		*x, rest = v, rest[max(k, 0):]
		return k > 0
	}
	z := func(x *int64) bool {
		v, k := binary.Varint(rest)
		*x, rest = v, rest[max(k, 0):]
		return k > 0
	}
	for i := range c.Idents {
		id := &c.Idents[i]
		var mode, mns, cns uint64
		switch {
		case !u(&id.Dev) || !u(&id.Ino) || !u(&mode):
			return bad("identity")
		case !z(&id.Size):
			return bad("identity size")
		case !z(&id.Mtime[0]) || !u(&mns) || mns >= 1e9 || !z(&id.Ctime[0]) || !u(&cns) || cns >= 1e9:
			return bad("identity time")
		case mode > math.MaxUint32:
			return bad("identity mode")
		}
		id.Mode, id.Mtime[1], id.Ctime[1] = uint32(mode), int64(mns), int64(cns)
	}
	m, err := snapshot.Decode(rest)
	if err != nil {
		return walker.Candidate{}, fmt.Errorf("%w: cached manifest: %w", storefile.ErrCorrupt, err)
	}
	if c.Digest, err = m.Digest(); err != nil {
		return walker.Candidate{}, fmt.Errorf("%w: cached manifest: %w", storefile.ErrCorrupt, err)
	}
	c.Manifest = m
	if c.Idents != nil && len(c.Idents) != len(m.Entries) {
		return bad("identities")
	}
	// Uvarints have more than one spelling: only encodeCached's is kept.
	if re, err := encodeCached(&c); err != nil || !bytes.Equal(re, v) {
		return bad("not canonical")
	}
	return c, nil
}

// DropRoot forgets a root and its candidates.
func (t Cache) DropRoot(root string) error {
	if roots, err := storefile.Bucket(t.tx, bucketRoots); err != nil {
		return err
	} else if roots != nil {
		if err := roots.Delete([]byte(root)); err != nil {
			return err
		}
	}
	cands, err := storefile.Bucket(t.tx, bucketCache)
	if err != nil || cands == nil {
		return err
	}
	prefix := cacheKey(root, nil)
	c := cands.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := cands.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Root returns the cached observation of root, or nil.
func (t Cache) Root(spec walker.RootSpec) (*walker.Root, error) {
	roots := t.tx.Bucket(bucketRoots)
	if roots == nil {
		return nil, nil
	}
	b := roots.Get([]byte(spec.Path))
	if b == nil {
		return nil, nil
	}
	var cr cachedRoot
	if err := storefile.DecodeStrict(b, &cr); err != nil {
		return nil, fmt.Errorf("%w: cached root: %v", storefile.ErrCorrupt, err)
	}
	r := &walker.Root{Spec: spec, Missing: cr.Missing, Anomalies: cr.Anomalies}
	cands := t.tx.Bucket(bucketCache)
	if cands == nil {
		return r, nil
	}
	prefix := cacheKey(spec.Path, nil)
	c := cands.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		cand, err := decodeCached(k[len(prefix):], v, spec)
		if err != nil {
			return nil, err
		}
		r.Candidates = append(r.Candidates, cand)
	}
	return r, nil
}

// Append records change events, then drops the oldest beyond
// MaxEvents.
func (t Events) Append(es []Event) error {
	if len(es) == 0 {
		return nil
	}
	b, err := storefile.Bucket(t.tx, bucketEvents)
	if err != nil {
		return err
	}
	for _, e := range es {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		key := make([]byte, 16)
		binary.BigEndian.PutUint64(key, uint64(e.At.UnixNano()))
		binary.BigEndian.PutUint64(key[8:], seq)
		v, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if err := b.Put(key, v); err != nil {
			return err
		}
	}
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	for ; n > MaxEvents; n-- {
		k, _ := b.Cursor().First()
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// List returns the recorded events, oldest first.
func (t Events) List() ([]Event, error) {
	b := t.tx.Bucket(bucketEvents)
	if b == nil {
		return nil, nil
	}
	var out []Event
	err := b.ForEach(func(k, v []byte) error {
		var e Event
		if err := storefile.DecodeStrict(v, &e); err != nil {
			return fmt.Errorf("%w: event: %v", storefile.ErrCorrupt, err)
		}
		e.key = bytes.Clone(k)
		out = append(out, e)
		return nil
	})
	return out, err
}

// Drop deletes exactly the given events, as listed by List. It runs once they
// are delivered, or once a person confirmed dropping them. It says how many
// were still there. One appended since the listing is never dropped.
func (t Events) Drop(es []Event) (int, error) {
	b, err := storefile.Bucket(t.tx, bucketEvents)
	if err != nil || b == nil {
		return 0, err
	}
	n := 0
	for _, e := range es {
		if b.Get(e.key) == nil {
			continue
		}
		if err := b.Delete(e.key); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// PutHeartbeat records the daemon's heartbeat.
func (t Cache) PutHeartbeat(h Heartbeat) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return t.tx.Bucket(storefile.Meta).Put(keyHeartbeat, b)
}

// Heartbeat returns the last heartbeat, or nil.
func (t Cache) Heartbeat() (*Heartbeat, error) {
	b := t.tx.Bucket(storefile.Meta).Get(keyHeartbeat)
	if b == nil {
		return nil, nil
	}
	var h Heartbeat
	if err := storefile.DecodeStrict(b, &h); err != nil {
		return nil, fmt.Errorf("%w: heartbeat: %v", storefile.ErrCorrupt, err)
	}
	return &h, nil
}

// Register remembers a project directory a hook ran in. The daemon then
// watches its roots too. It writes only when the project is new.
func (t Projects) Register(dir string, at time.Time) error {
	b, err := storefile.Bucket(t.tx, bucketProjects)
	if err != nil || b.Get([]byte(dir)) != nil {
		return err
	}
	return b.Put([]byte(dir), []byte(at.UTC().Format(time.RFC3339)))
}

// List lists the registered project directories.
func (t Projects) List() ([]string, error) {
	b := t.tx.Bucket(bucketProjects)
	if b == nil {
		return nil, nil
	}
	var out []string
	err := b.ForEach(func(k, _ []byte) error { out = append(out, string(k)); return nil })
	return out, err
}

// Clear drops every cached observation and asks the daemon for a full rescan.
// Change events not yet delivered to a session stay. They are evidence of
// changes nobody was told of. Only `clear --events` drops them, through
// Events.Drop. Baselines, verdicts and projects are untouched.
func (t Cache) Clear() error {
	for _, name := range [][]byte{bucketCache, bucketRoots} {
		if t.tx.Bucket(name) == nil {
			continue
		}
		if err := t.tx.DeleteBucket(name); err != nil {
			return err
		}
	}
	return t.tx.Bucket(storefile.Meta).Put(keyRescan, []byte("1"))
}

// TakeRescanRequest reports and clears a pending `clear`.
func (t Cache) TakeRescanRequest() (bool, error) {
	m := t.tx.Bucket(storefile.Meta)
	if m.Get(keyRescan) == nil {
		return false, nil
	}
	return true, m.Delete(keyRescan)
}
