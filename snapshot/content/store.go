// Package content keeps the bytes of kept versions. They are
// content-addressed, deduplicated, zstd-compressed objects. Each is keyed
// by the BLAKE3-256 the walker computed over the same buffer. Every read is
// verified against its key. A corrupt or missing object is reported, never
// returned.
//
// Objects live in pack files under <state>/objects/, one pack per batch.
// Each pack is written to a temporary file, synced and renamed into place.
// The directory is 0700 and each pack 0600, owned by the user. A symlink,
// a foreign owner or a group/world permission is refused as ErrUntrusted.
package content

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// Errors of the content store.
var (
	ErrAbsent    = errors.New("no content store yet")
	ErrUntrusted = errors.New("the content store is not trusted")
	ErrCorrupt   = errors.New("a content object is corrupt")
	ErrMissing   = errors.New("a content object is missing")
	ErrTooLarge  = errors.New("content over the object bound")
	// ErrBusy: another process holds the store, a collection or a batch
	// while collecting. Neither side waits for the other.
	ErrBusy = errors.New("the content store is busy")
)

// ObjectsDir is the store's directory inside the state directory.
const ObjectsDir = "objects"

// Options configure Open.
type Options struct {
	// Create makes the objects directory (0700) when absent. Without it, an
	// absent directory is ErrAbsent.
	Create bool
	// MaxObject bounds one object's content, on Put and on Get. 0 or more
	// than HardMaxObject means HardMaxObject.
	MaxObject int64
}

// Store is an open content store. Its methods are safe for concurrent use.
type Store struct {
	dirfd int // the objects directory, proven at Open
	max   int64

	mu    sync.RWMutex
	index map[snapshot.Hash]where
	// dups holds the other copies of a key kept in more than one pack, from
	// batches racing. A corrupt copy must not shadow a good one.
	dups  map[snapshot.Hash][]where
	packs map[string]int64 // name -> bytes on disk
}

type where struct {
	pack string
	loc
}

const (
	dirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fileFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
	packExt   = ".pack"
	tmpPrefix = ".tmp-"
)

// Open proves dir, the state directory, and its objects directory. It
// loads the index of every pack. A pack whose index is damaged is not
// fatal: its objects read as ErrMissing. It is kept for inspection, never
// collected. An untrusted directory or pack is fatal.
func Open(dir string, o Options) (*Store, error) {
	if o.MaxObject <= 0 || o.MaxObject > HardMaxObject {
		o.MaxObject = HardMaxObject
	}
	statefd, err := openDir(unix.AT_FDCWD, dir, dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(statefd)
	// The state directory is the baseline store's: the same rule as there.
	if err := trusted(statefd, unix.S_IFDIR, 0o022, dir); err != nil {
		return nil, err
	}
	shown := strings.TrimSuffix(dir, "/") + "/" + ObjectsDir
	fd, err := openDir(statefd, ObjectsDir, shown)
	if errors.Is(err, ErrAbsent) && o.Create {
		if err := unix.Mkdirat(statefd, ObjectsDir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("%w: cannot create %s: %v", ErrUntrusted, shown, err)
		}
		fd, err = openDir(statefd, ObjectsDir, shown)
	}
	if err != nil {
		return nil, err
	}
	// Objects are the user's file contents, secrets included: not even
	// readable by others.
	if err := trusted(fd, unix.S_IFDIR, 0o077, shown); err != nil {
		unix.Close(fd)
		return nil, err
	}
	s := &Store{dirfd: fd, max: o.MaxObject}
	if err := s.load(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return s, nil
}

// Close releases the store's directory.
func (s *Store) Close() error { return unix.Close(s.dirfd) }

// Has reports whether an object for key is indexed (not whether it verifies).
func (s *Store) Has(key snapshot.Hash) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.index[key]
	return ok
}

// Size is the bytes on disk of every pack, damaged ones included.
func (s *Store) Size() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var n int64
	for _, size := range s.packs {
		n += size
	}
	return n
}

// Get returns the content of key, verified against it.
func (s *Store) Get(key snapshot.Hash) ([]byte, error) { return s.GetSized(key, s.max) }

// GetSized is Get of content known to be size bytes, a manifest entry's
// size. An object declaring more is corrupt, refused before the decoder
// allocates for it. Each kept copy of key is tried until one verifies.
func (s *Store) GetSized(key snapshot.Hash, size int64) ([]byte, error) {
	size = min(max(size, 0), s.max)
	for attempt := 0; ; attempt++ {
		s.mu.RLock()
		w, ok := s.index[key]
		others := s.dups[key]
		s.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrMissing, key)
		}
		var b []byte
		var err error
		for i, at := range append([]where{w}, others...) {
			var berr error
			if b, berr = s.readObject(at); berr == nil {
				if b, berr = DecodeObject(key, b, size); berr == nil {
					err = nil
					break
				}
			}
			if i == 0 || !errors.Is(berr, ErrCorrupt) {
				err = cmp.Or(err, berr) // the first copy's failure, unless another verifies
			}
		}
		if errors.Is(err, unix.ENOENT) && attempt == 0 {
			// Another process collected the pack, perhaps rewriting the object
			// into a new one. Read the directory again, once.
			if err := s.load(); err != nil {
				return nil, err
			}
			continue
		}
		if errors.Is(err, unix.ENOENT) {
			return nil, fmt.Errorf("%w: %s", ErrMissing, key)
		}
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}

func (s *Store) readObject(w where) ([]byte, error) {
	fd, _, err := s.openPack(w.pack)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b := make([]byte, w.n)
	if err := preadFull(fd, b, w.off); err != nil {
		return nil, fmt.Errorf("%w: pack %s: %v", ErrCorrupt, w.pack, err)
	}
	return b, nil
}

// load replaces the index with what the packs on disk hold.
func (s *Store) load() error {
	names, err := s.list()
	if err != nil {
		return err
	}
	type read struct {
		name    string
		entries []indexed
	}
	var reads []read
	total := 0
	packs := make(map[string]int64)
	for _, name := range names {
		if !isPackName(name) {
			continue
		}
		entries, size, err := s.readPack(name)
		switch {
		case errors.Is(err, unix.ENOENT):
			continue // collected meanwhile
		case errors.Is(err, ErrCorrupt): // damaged: no entries, kept
		case err != nil:
			return err
		}
		packs[name] = size
		reads = append(reads, read{name, entries})
		total += len(entries)
	}
	// Sized once: growing it cost a session start more than its lookups
	// (issue 23).
	index := make(map[snapshot.Hash]where, total)
	dups := make(map[snapshot.Hash][]where)
	for _, r := range reads {
		for _, e := range r.entries {
			if _, dup := index[e.key]; dup {
				dups[e.key] = append(dups[e.key], where{r.name, e.loc})
			} else {
				index[e.key] = where{r.name, e.loc}
			}
		}
	}
	s.mu.Lock()
	s.index, s.dups, s.packs = index, dups, packs
	s.mu.Unlock()
	return nil
}

// list returns the names in the objects directory, sorted.
func (s *Store) list() ([]string, error) {
	fd, err := unix.Openat(s.dirfd, ".", dirFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the content store: %w", err)
	}
	f := os.NewFile(uintptr(fd), ObjectsDir)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("reading the content store: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// readPack reads and verifies a pack's header and index. The size is
// returned even when the pack is corrupt.
func (s *Store) readPack(name string) ([]indexed, int64, error) {
	fd, size, err := s.openPack(name)
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	if size < int64(packMinSize) {
		return nil, size, fmt.Errorf("%w: pack %s is truncated", ErrCorrupt, name)
	}
	head := make([]byte, len(packMagic))
	trailer := make([]byte, packTrailer)
	if err := preadFull(fd, head, 0); err != nil || string(head) != packMagic {
		return nil, size, fmt.Errorf("%w: pack %s has no header", ErrCorrupt, name)
	}
	if err := preadFull(fd, trailer, size-int64(packTrailer)); err != nil {
		return nil, size, fmt.Errorf("%w: pack %s: %v", ErrCorrupt, name, err)
	}
	off, _, err := indexLen(trailer, size)
	if err != nil {
		return nil, size, fmt.Errorf("pack %s: %w", name, err)
	}
	tail := make([]byte, size-off)
	if err := preadFull(fd, tail, off); err != nil {
		return nil, size, fmt.Errorf("%w: pack %s: %v", ErrCorrupt, name, err)
	}
	entries, err := parseIndex(tail, size)
	if err != nil {
		return nil, size, fmt.Errorf("pack %s: %w", name, err)
	}
	return entries, size, nil
}

// openPack opens a pack without following a link. It proves the pack is a
// regular file of ours, closed to others.
func (s *Store) openPack(name string) (fd int, size int64, err error) {
	fd, err = unix.Openat(s.dirfd, name, fileFlags, 0)
	if errors.Is(err, unix.ELOOP) {
		return -1, 0, fmt.Errorf("%w: %s/%s is a symbolic link; remove it and run again", ErrUntrusted, ObjectsDir, name)
	}
	if err != nil {
		return -1, 0, fmt.Errorf("opening %s/%s: %w", ObjectsDir, name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("opening %s/%s: %w", ObjectsDir, name, err)
	}
	if err := checkStat(&st, unix.S_IFREG, 0o077, ObjectsDir+"/"+name); err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	return fd, st.Size, nil
}

func isPackName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, packExt)
	if !ok || len(hexPart) != 32 {
		return false
	}
	for _, c := range []byte(hexPart) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func randomName() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openDir opens name under parent as a directory, never through a link.
// O_DIRECTORY|O_NOFOLLOW on a link to a directory fails with ENOTDIR. So
// classify again with fstatat.
func openDir(parent int, name, shown string) (int, error) {
	fd, err := unix.Openat(parent, name, dirFlags, 0)
	if err == nil {
		return fd, nil
	}
	if errors.Is(err, unix.ENOENT) {
		return -1, fmt.Errorf("%w: %s does not exist", ErrAbsent, shown)
	}
	var st unix.Stat_t
	if serr := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return -1, fmt.Errorf("%w: %s is a symbolic link; remove it and run again", ErrUntrusted, shown)
	}
	return -1, fmt.Errorf("%w: %s: %v", ErrUntrusted, shown, err)
}

func trusted(fd int, typ uint32, forbid uint32, shown string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUntrusted, shown, err)
	}
	return checkStat(&st, typ, forbid, shown)
}

func checkStat(st *unix.Stat_t, typ uint32, forbid uint32, shown string) error {
	what := "a directory"
	if typ == unix.S_IFREG {
		what = "a regular file"
	}
	switch {
	case uint32(st.Mode)&unix.S_IFMT != typ:
		return fmt.Errorf("%w: %s is not %s", ErrUntrusted, shown, what)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: %s is owned by uid %d, not by you", ErrUntrusted, shown, st.Uid)
	case uint32(st.Mode)&forbid != 0:
		return fmt.Errorf("%w: %s has mode %04o, open to others; chmod go-rwx it after checking it", ErrUntrusted, shown, st.Mode&07777)
	}
	return nil
}

func preadFull(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := unix.Pread(fd, b, off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("unexpected end of pack")
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}
