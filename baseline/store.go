// Package baseline is the store. It holds what was observed and delivered for
// each candidate, and the verdicts bound to exact digests. It holds the
// per-store secret that mints ids. storefile opens and proves its file. Every
// process opens the store briefly, under a bounded lock timeout, and closes
// it. Nobody keeps it open between operations.
package baseline

import (
	"errors"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// SchemaVersion is the store's schema. A store of another version is stale:
// refused, never silently migrated or rebuilt.
const SchemaVersion = storefile.SchemaVersion

// FileName is the store file inside the state directory.
const FileName = storefile.FileName

// DefaultLockTimeout bounds how long a command waits for another process's
// lock. Past it the command says the store is busy.
const DefaultLockTimeout = storefile.DefaultLockTimeout

// Health is the state of a store as `status` reports it.
type Health string

const (
	OK        Health = "ok"
	Absent    Health = "absent"
	Corrupt   Health = "corrupt"
	Stale     Health = "stale"
	Untrusted Health = "untrusted"
	// Busy: another process held the lock past the timeout. Not a state of
	// the store itself, but the audit could not run all the same.
	Busy Health = "busy"
)

// Errors of Open (storefile's). Each wraps a message that says what to do.
var (
	ErrAbsent    = storefile.ErrAbsent
	ErrCorrupt   = storefile.ErrCorrupt
	ErrStale     = storefile.ErrStale
	ErrUntrusted = storefile.ErrUntrusted
	ErrBusy      = storefile.ErrBusy
)

// ErrNothingToWrite, returned by an Update's fn, rolls it back: nothing
// written, nothing synced, and Update returns nil.
var ErrNothingToWrite = storefile.ErrNothingToWrite

// HealthOf maps an Open error to the state `status` reports.
func HealthOf(err error) Health {
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrAbsent):
		return Absent
	case errors.Is(err, ErrStale):
		return Stale
	case errors.Is(err, ErrUntrusted):
		return Untrusted
	case errors.Is(err, ErrBusy):
		return Busy
	}
	return Corrupt
}

// Location is $SKILLWIRE_STATE_DIR when set, else <cfg>/skillwire.
func Location(stateDir, cfgDir string) string {
	if stateDir != "" {
		return stateDir
	}
	if strings.HasSuffix(cfgDir, "/") {
		return cfgDir + "skillwire"
	}
	return cfgDir + "/skillwire"
}

// Options configure Open.
type Options struct {
	Dir         string
	LockTimeout time.Duration // 0 means DefaultLockTimeout
	// Create makes an absent store (and its directory, 0700) before opening.
	Create bool
	// ReadOnly takes a shared lock: for commands that change nothing.
	ReadOnly bool
	// Policy is the gate policy an administrator imposes (managed.Policy).
	// When set, it is the store's policy and SetGatePolicy refuses.
	Policy string
}

// Store is an open store.
type Store struct {
	db     *storefile.DB
	minter *anomaly.Minter // of the store's secret
	policy string          // Options.Policy
}

// Open checks the store's trust and creates it when asked and absent. It
// opens it under a bounded lock timeout (storefile.Open).
func Open(o Options) (*Store, error) {
	db, err := storefile.Open(storefile.Options{Dir: o.Dir, LockTimeout: o.LockTimeout, Create: o.Create, ReadOnly: o.ReadOnly})
	if err != nil {
		return nil, err
	}
	return &Store{db: db, minter: db.Minter, policy: o.Policy}, nil
}

// Close releases the store and its lock.
func (s *Store) Close() error { return s.db.Close() }

// Buckets.
var (
	bucketMeta       = storefile.Meta
	bucketCandidates = storefile.Candidates
	bucketManifests  = storefile.Manifests
	bucketAdverse    = storefile.Adverse
	keyImported      = []byte("imported") // SHA-256 of legacy baselines already imported
	keyCreated       = storefile.KeyCreated
)

// view and update run fn in a transaction (storefile.DB.View, Update).
func (s *Store) view(fn func(*bolt.Tx) error) error { return s.db.View(fn) }

func (s *Store) update(fn func(*bolt.Tx) error) error { return s.db.Update(fn) }
