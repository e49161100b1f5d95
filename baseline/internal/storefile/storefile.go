// Package storefile opens the store's file. It proves the directory and the
// file are the person's before bbolt maps them. It creates a store atomically
// and refuses a truncated file or another schema. It turns a fault in a
// damaged file into ErrCorrupt. It knows the store's meta bucket and core
// buckets, never what baseline keeps in them. It, baseline and the store's
// views (cache) are the only importers of bbolt.
package storefile

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"golang.org/x/sys/unix"
)

// SchemaVersion is the store's schema. A store of another version is stale:
// refused, never silently migrated or rebuilt.
const SchemaVersion = 1

// FileName is the store file inside the state directory.
const FileName = "store.db"

// DefaultLockTimeout bounds how long a command waits for another process's
// lock. Past it the command says the store is busy.
const DefaultLockTimeout = 5 * time.Second

// Errors of Open (baseline's are the same values). Each wraps a message
// that says what to do.
var (
	ErrAbsent    = errors.New("no store yet")
	ErrCorrupt   = errors.New("the store is corrupt")
	ErrStale     = errors.New("the store has another schema version")
	ErrUntrusted = errors.New("the store is not trusted")
	ErrBusy      = errors.New("the store is busy (locked by another skillwire process)")
)

// Options configure Open.
type Options struct {
	Dir         string
	LockTimeout time.Duration // 0 means DefaultLockTimeout
	// Create makes an absent store (and its directory, 0700) before opening.
	Create bool
	// ReadOnly takes a shared lock: for commands that change nothing.
	ReadOnly bool
}

// DB is an open store file and the id minter of its secret.
type DB struct {
	db     *bolt.DB
	Minter *anomaly.Minter
}

// Open checks the store's trust and creates it when asked and absent. It
// opens it under a bounded lock timeout.
func Open(o Options) (*DB, error) {
	if o.Dir == "" {
		return nil, fmt.Errorf("%w: no state directory", ErrAbsent)
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	path := o.Dir + "/" + FileName
	err := checkTrust(o.Dir, path)
	if errors.Is(err, ErrAbsent) && o.Create {
		err = create(o.Dir, path)
	}
	if err != nil {
		return nil, err
	}
	if err := precheck(path); err != nil {
		return nil, err
	}
	db, err := openBolt(path, &bolt.Options{
		Timeout:  o.LockTimeout,
		ReadOnly: o.ReadOnly,
		OpenFile: openNoFollow,
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("%w: waited %s; try again, or stop the other process", ErrBusy, o.LockTimeout)
		}
		return nil, fmt.Errorf("%w: %v; move %s aside to start a new store (verdicts in it are lost)", ErrCorrupt, err, path)
	}
	s := &DB{db: db}
	if err := s.load(path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the store and its lock.
func (s *DB) Close() error { return s.db.Close() }

const openFlagsNoFollow = unix.O_NOFOLLOW | unix.O_CLOEXEC

func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|openFlagsNoFollow, perm)
}

// openBolt opens with the same fault guard as transactions. bbolt reads the
// freelist during Open.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer recoverCorrupt(&err)
	defer guard()()
	return bolt.Open(path, 0o600, o)
}

// checkTrust refuses a store that someone else could have written. That is a
// directory or file symlinked, foreign-owned, or group or world writable.
// Once the directory is proven ours and closed to others, nobody can swap the
// file inside.
func checkTrust(dir, path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("%w: %s does not exist", ErrAbsent, dir)
		}
		return fmt.Errorf("%w: %s: %v", ErrUntrusted, dir, err)
	}
	if err := trusted(&st, unix.S_IFDIR, dir); err != nil {
		return err
	}
	if err := unix.Lstat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("%w: %s does not exist", ErrAbsent, path)
		}
		return fmt.Errorf("%w: %s: %v", ErrUntrusted, path, err)
	}
	if err := trusted(&st, unix.S_IFREG, path); err != nil {
		return err
	}
	if st.Size == 0 {
		// bbolt would silently initialise an empty file. A truncated store
		// must be reported, never rebuilt.
		return fmt.Errorf("%w: %s is empty; move it aside to start a new store", ErrCorrupt, path)
	}
	return nil
}

func trusted(st *unix.Stat_t, typ uint32, path string) error {
	what := "a directory"
	if typ == unix.S_IFREG {
		what = "a regular file"
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("%w: %s is a symbolic link; remove it and run again", ErrUntrusted, path)
	case uint32(st.Mode)&unix.S_IFMT != typ:
		return fmt.Errorf("%w: %s is not %s", ErrUntrusted, path, what)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: %s is owned by uid %d, not by you", ErrUntrusted, path, st.Uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by group or others; chmod go-w it after checking it", ErrUntrusted, path)
	}
	return nil
}

// The meta bucket and the core buckets every store has from its creation.
var (
	Meta       = []byte("meta")
	Candidates = []byte("candidates")
	Manifests  = []byte("manifests")
	Adverse    = []byte("adverse") // digest text -> adverse verdict: verdicts follow content
	keySchema  = []byte("schema")
	keySecret  = []byte("secret")
	// KeyCreated is written when a store is created. A store without it
	// predates the first-run mark (baseline's FirstRunDone legacy rule).
	KeyCreated = []byte("created")
)

// create makes a new store atomically. It initialises a temporary file in the
// same directory, then links it into place. A concurrent creator that loses
// the race opens the winner's store. Nobody ever sees a half-made one.
func create(dir, path string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w: cannot create %s: %v", ErrUntrusted, dir, err)
	}
	if err := checkTrust(dir, path); !errors.Is(err, ErrAbsent) {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".store-*.tmp")
	if err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	if err := os.Remove(tmpPath); err != nil {
		return err
	}
	db, err := bolt.Open(tmpPath, 0o600, &bolt.Options{Timeout: time.Second, OpenFile: openNoFollow})
	if err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{Meta, Candidates, Manifests, Adverse} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		m := tx.Bucket(Meta)
		if err := m.Put(keySchema, []byte(strconv.Itoa(SchemaVersion))); err != nil {
			return err
		}
		if err := m.Put(KeyCreated, []byte(strconv.Itoa(SchemaVersion))); err != nil {
			return err
		}
		return m.Put(keySecret, secret)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	if err := os.Link(tmpPath, path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("creating the store: %w", err)
	}
	return checkTrust(dir, path)
}

// load reads the schema version and the secret.
func (s *DB) load(path string) error {
	return s.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(Meta)
		if m == nil || tx.Bucket(Candidates) == nil || tx.Bucket(Manifests) == nil || tx.Bucket(Adverse) == nil {
			return fmt.Errorf("%w: %s lacks skillwire's buckets", ErrCorrupt, path)
		}
		v, err := strconv.Atoi(string(m.Get(keySchema)))
		if err != nil {
			return fmt.Errorf("%w: %s has no schema version", ErrCorrupt, path)
		}
		if v != SchemaVersion {
			return fmt.Errorf("%w: %s is version %d, this skillwire reads %d; use the skillwire that wrote it, or move it aside", ErrStale, path, v, SchemaVersion)
		}
		minter, err := anomaly.NewMinter(m.Get(keySecret))
		if err != nil {
			return fmt.Errorf("%w: %s has no valid secret", ErrCorrupt, path)
		}
		s.Minter = minter
		return nil
	})
}

// View and Update run fn in a transaction. A damaged file can make bbolt
// fault on a page past the end of the mapping. Or bbolt panics on a bad page.
// Both are reported as a corrupt store instead of crashing the caller.
func (s *DB) View(fn func(*bolt.Tx) error) (err error) {
	defer recoverCorrupt(&err)
	defer guard()()
	return s.db.View(fn)
}

func (s *DB) Update(fn func(*bolt.Tx) error) (err error) {
	defer recoverCorrupt(&err)
	defer guard()()
	if err := s.db.Update(fn); !errors.Is(err, ErrNothingToWrite) {
		return err
	}
	return nil
}

// ErrNothingToWrite, returned by an Update's fn, rolls its transaction
// back: nothing is written nor synced, and Update returns nil. bbolt
// syncs twice at every commit, even one that changed nothing.
var ErrNothingToWrite = errors.New("storefile: nothing to write")

func recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
	}
}

// guard makes memory faults in the current goroutine recoverable panics. It
// lasts for the duration of a transaction.
func guard() func() {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// DecodeStrict decodes the one JSON value of b into v. It refuses unknown
// fields and trailing data: the store's values are read only as written.
func DecodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// Bucket is the named bucket, made on the first write. In a read transaction
// it is nil when it was never written.
func Bucket(tx *bolt.Tx, name []byte) (*bolt.Bucket, error) {
	if b := tx.Bucket(name); b != nil || !tx.Writable() {
		return b, nil
	}
	return tx.CreateBucket(name)
}

// Printable keeps printable ASCII only, at most n bytes. The store's text is
// read back to people and to the model.
func Printable(s string, n int) string {
	b := make([]byte, 0, min(len(s), n))
	for i := 0; i < len(s) && len(b) < n; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b = append(b, c)
		}
	}
	return string(b)
}
