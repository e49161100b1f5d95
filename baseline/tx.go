package baseline

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/baseline/trust"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Tx is a transaction on the store. Values it returns are copies: nothing
// refers to bbolt's memory after the transaction ends.
type Tx struct {
	tx *bolt.Tx
	s  *Store
}

// View runs fn in a read transaction.
func (s *Store) View(fn func(*Tx) error) error {
	return s.view(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, s: s}) })
}

// Update runs fn in one read-write transaction. A load-compare-store cycle
// inside it cannot lose a concurrent update.
func (s *Store) Update(fn func(*Tx) error) error {
	return s.update(func(tx *bolt.Tx) error {
		t := &Tx{tx: tx, s: s}
		if err := t.markLegacyFirstRun(time.Now()); err != nil {
			return err
		}
		return fn(t)
	})
}

// Commit is the number of the store's last commit this transaction sees. It
// is bbolt's transaction id; a read-write one sees the one it makes. Two
// transactions that see the same one saw the same store.
func (t *Tx) Commit() int { return t.tx.ID() }

// ID is the minted id of candidate name in root.
func (s *Store) ID(root string, name []byte) string {
	return s.minter.ID(root, name)
}

// Record returns the record of id, or nil.
func (t *Tx) Record(id string) (*Record, error) {
	b := t.tx.Bucket(bucketCandidates).Get([]byte(id))
	if b == nil {
		return nil, nil
	}
	r, err := decodeRecord(b)
	if err != nil {
		return nil, fmt.Errorf("%w: record %s: %v", ErrCorrupt, id, err)
	}
	if r.ID != id {
		return nil, fmt.Errorf("%w: record %s holds id %s", ErrCorrupt, id, r.ID)
	}
	return r, nil
}

// Records returns every record, sorted by id.
func (t *Tx) Records() ([]*Record, error) {
	var out []*Record
	err := t.tx.Bucket(bucketCandidates).ForEach(func(k, _ []byte) error {
		r, err := t.Record(string(k))
		if err == nil {
			out = append(out, r)
		}
		return err
	})
	return out, err
}

func (t *Tx) put(r *Record) error {
	b, err := encodeRecord(r)
	if err != nil {
		return err
	}
	return t.tx.Bucket(bucketCandidates).Put([]byte(r.ID), b)
}

// Manifest returns the last delivered manifest of id, or nil.
func (t *Tx) Manifest(id string) (*snapshot.Manifest, error) {
	b := t.tx.Bucket(bucketManifests).Get([]byte(id))
	if b == nil {
		return nil, nil
	}
	m, err := snapshot.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: manifest %s: %v", ErrCorrupt, id, err)
	}
	return &m, nil
}

func (t *Tx) putManifest(id string, m *snapshot.Manifest) error {
	b, err := m.AppendEncoding(nil)
	if err != nil {
		return err
	}
	return t.tx.Bucket(bucketManifests).Put([]byte(id), b)
}

// adverseFor returns the adverse verdict recorded for exactly this content on
// any candidate, or nil. Adverse verdicts follow content, not names.
func (t *Tx) adverseFor(d snapshot.Hash) (*Verdict, error) {
	b := t.tx.Bucket(bucketAdverse).Get([]byte(d.String()))
	if b == nil {
		return nil, nil
	}
	var v Verdict
	if err := decodeStrict(b, &v); err != nil || !verdict.Adverse(v.Verdict) {
		return nil, fmt.Errorf("%w: adverse verdict for %s", ErrCorrupt, d)
	}
	return &v, nil
}

// AdverseFor is the adverse verdict recorded for exactly the content d on
// any candidate, or nil. The gate reads it for a copy a client serves.
func (t *Tx) AdverseFor(d snapshot.Hash) (*Verdict, error) { return t.adverseFor(d) }

// Resolve finds the ids among known that start with prefix. Exactly one
// match is the answer; none or several is the caller's usage error.
func Resolve(prefix string, known []string) []string {
	var out []string
	for _, id := range known {
		if len(prefix) <= len(id) && id[:len(prefix)] == prefix {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sameDigest(a, b *snapshot.Hash) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameRoot(r *Record, root string) bool { return bytes.Equal(r.Root, []byte(root)) }

// ID is Store.ID within a transaction.
func (t *Tx) ID(root string, name []byte) string { return t.s.ID(root, name) }

// bucket is the named bucket, made on the first write (storefile.Bucket).
func (t *Tx) bucket(name []byte) (*bolt.Bucket, error) { return storefile.Bucket(t.tx, name) }

// The views of a transaction. Each is one part of the store, with its own
// buckets. So a use case shows which parts it touches.

// Notes is the journal of decisions per candidate (bucket notes).
type Notes struct{ t *Tx }

// Notes is the journal.
func (t *Tx) Notes() Notes { return Notes{t} }

// Instructions is the untold changes of instruction files
// (instructions-changed).
type Instructions struct{ t *Tx }

// Instructions is the untold instruction changes.
func (t *Tx) Instructions() Instructions { return Instructions{t} }

// Trust is the trusted sources of changes (trust.Sources).
func (t *Tx) Trust() trust.Sources { return trust.Of(t.tx) }

// Asks is the gate's pending asks (hookstate.Asks).
func (t *Tx) Asks() hookstate.Asks { return hookstate.AsksOf(t.tx) }

// SessionDirs is the folders sessions added mid-session
// (hookstate.SessionDirs).
func (t *Tx) SessionDirs() hookstate.SessionDirs { return hookstate.SessionDirsOf(t.tx) }

// SessionPlugins is the inline plugins sessions' starts observed
// (hookstate.SessionPlugins).
func (t *Tx) SessionPlugins() hookstate.SessionPlugins { return hookstate.SessionPluginsOf(t.tx) }

// SessionServed is what sessions' clients read of nested skills folders
// (hookstate.SessionServed).
func (t *Tx) SessionServed() hookstate.SessionServed { return hookstate.SessionServedOf(t.tx) }

// Policy is the person's gate policy (a key of meta).
type Policy struct{ t *Tx }

// Policy is the gate policy.
func (t *Tx) Policy() Policy { return Policy{t} }

// Versions is the kept versions of candidates (a bucket per candidate).
type Versions struct{ t *Tx }

// Versions is the kept versions.
func (t *Tx) Versions() Versions { return Versions{t} }

// Reviews is what people and sessions were told and decided of pending
// changes. It holds the reviewed references they are told against (records
// and reviewed-manifests).
type Reviews struct{ t *Tx }

// Reviews is the reviews.
func (t *Tx) Reviews() Reviews { return Reviews{t} }

// Cache is the daemon's cached observations, heartbeat and rescan request.
func (t *Tx) Cache() cache.Cache { return cache.Of(t.tx) }

// Events is the daemon's change events.
func (t *Tx) Events() cache.Events { return cache.EventsOf(t.tx) }

// Projects is the projects hooks have registered.
func (t *Tx) Projects() cache.Projects { return cache.ProjectsOf(t.tx) }
