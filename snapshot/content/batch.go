package content

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// Batch writes new objects into one pack. It holds a shared lock on the
// objects directory from NewBatch to Close. Collect takes that lock
// exclusively. So it never removes an object a batch found already kept
// before the version that uses it is recorded. Close it after recording.
type Batch struct {
	s      *Store
	lockfd int

	mu      sync.Mutex
	pending map[snapshot.Hash]struct{} // reserved or written by this batch
	f       *os.File
	tmp     string
	w       *bufio.Writer
	off     int64
	entries []indexed
	err     error // the first write failure: the batch can no longer commit
	done    bool
}

// NewBatch starts a batch, or returns ErrBusy at once while Collect holds
// the store. A caller may hold the baseline store's writer lock, which
// Collect may be asking for, so a batch never waits. Under the lock the
// index is read again: an object collected since Open is not taken as
// kept.
func (s *Store) NewBatch() (*Batch, error) {
	fd, err := unix.Openat(s.dirfd, ".", dirFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("locking the content store: %w", err)
	}
	if err := flock(fd, unix.LOCK_SH|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("locking the content store: %w", err)
	}
	if err := s.load(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Batch{s: s, lockfd: fd, pending: make(map[snapshot.Hash]struct{})}, nil
}

var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// Put keeps data as the object key. key must be the BLAKE3-256 of data as
// the walker computed it over this same buffer. An object already kept, or
// already put in this batch, is not written again. Put is safe for
// concurrent use. data is not retained after Put returns.
func (b *Batch) Put(key snapshot.Hash, data []byte) error {
	if int64(len(data)) > b.s.max {
		return fmt.Errorf("%w: %d bytes, bound %d", ErrTooLarge, len(data), b.s.max)
	}
	if b.s.Has(key) {
		return nil
	}
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return errors.New("content: Put on a finished batch")
	}
	if _, dup := b.pending[key]; dup {
		b.mu.Unlock()
		return nil
	}
	b.pending[key] = struct{}{}
	b.mu.Unlock()

	// Compress outside the lock: it is the cost, and it runs in parallel.
	bp := encodeBufs.Get().(*[]byte)
	defer encodeBufs.Put(bp)
	enc, err := appendObject((*bp)[:0], data)
	*bp = enc
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		err = b.write(key, enc)
	}
	if err != nil && b.err == nil {
		b.err = err
	}
	return err
}

// write appends one encoded object; b.mu is held.
func (b *Batch) write(key snapshot.Hash, enc []byte) error {
	if b.err != nil {
		return b.err
	}
	if b.f == nil {
		b.tmp = tmpPrefix + randomName()
		fd, err := unix.Openat(b.s.dirfd, b.tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return fmt.Errorf("writing the content store: %w", err)
		}
		b.f = os.NewFile(uintptr(fd), b.tmp)
		b.w = bufio.NewWriterSize(b.f, 1<<20)
		b.w.WriteString(packMagic)
		b.off = int64(len(packMagic))
	}
	if _, err := b.w.Write(enc); err != nil {
		return fmt.Errorf("writing the content store: %w", err)
	}
	b.entries = append(b.entries, indexed{key, loc{b.off, uint32(len(enc))}})
	b.off += int64(len(enc))
	return nil
}

// Commit makes the batch's objects durable and visible: the pack is synced,
// renamed into place and the directory synced. A batch that wrote nothing
// writes no file. Call it after every Put has returned.
func (b *Batch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errors.New("content: Commit on a finished batch")
	}
	b.done = true
	if b.err != nil {
		return b.err
	}
	if b.f == nil {
		return nil
	}
	name := randomName() + packExt
	size, err := finishPack(b.s.dirfd, b.f, b.w, b.tmp, name, b.entries, b.off)
	b.f = nil
	if err != nil {
		return err
	}
	b.s.added(name, size, b.entries)
	return nil
}

// Close releases the batch's lock, discarding what was not committed.
func (b *Batch) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	if b.f != nil {
		b.f.Close()
		unix.Unlinkat(b.s.dirfd, b.tmp, 0)
		b.f = nil
	}
	if b.lockfd < 0 {
		return nil
	}
	err := unix.Close(b.lockfd) // closing the descriptor releases its flock
	b.lockfd = -1
	return err
}

// finishPack writes the index and trailer, syncs the pack, renames it from
// tmp to name and syncs the directory. It closes f, and removes tmp on
// failure.
func finishPack(dirfd int, f *os.File, w *bufio.Writer, tmp, name string, entries []indexed, indexOff int64) (int64, error) {
	tail := appendIndex(nil, entries, indexOff)
	_, err := w.Write(tail)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dirfd, tmp, dirfd, name)
	}
	if err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return 0, fmt.Errorf("writing the content store: %w", err)
	}
	if err := unix.Fsync(dirfd); err != nil {
		return 0, fmt.Errorf("writing the content store: %w", err)
	}
	return indexOff + int64(len(tail)), nil
}

// added makes a committed pack's objects visible to this store.
func (s *Store) added(name string, size int64, entries []indexed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.packs[name] = size
	for _, e := range entries {
		if _, dup := s.index[e.key]; dup {
			s.dups[e.key] = append(s.dups[e.key], where{name, e.loc})
		} else {
			s.index[e.key] = where{name, e.loc}
		}
	}
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
