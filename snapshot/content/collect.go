package content

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// Collected is what one Collect did.
type Collected struct {
	Objects int   // objects removed
	Packs   int   // packs removed or rewritten
	Freed   int64 // bytes on disk freed
	// Unverified: packs left as they are because a live object in them
	// failed verification. They are never copied, never dropped: kept to
	// inspect.
	Unverified int
	// Busy: a batch held the store, so collection stopped early; what is
	// counted above was done. Collection yields to scans, never waits.
	Busy bool
}

// Collect removes every object whose key keep rejects, one pack at a time.
// A pack with no kept object is removed. A pack with some is rewritten with
// only those. Each pack is one short step under the exclusive lock. keep is
// loaded again at each step, under that lock. A batch holds the shared lock
// until its versions are recorded. So an object a batch found kept is never
// collected from under it. Damaged packs are left alone. load must never
// wait: a batch's owner may hold what it reads. When what it reads is busy
// it returns ErrBusy, and collection stops as Busy.
func (s *Store) Collect(load func() (keep func(snapshot.Hash) bool, err error)) (Collected, error) {
	var c Collected
	s.mu.RLock()
	var names []string
	for name := range s.packs {
		names = append(names, name)
	}
	s.mu.RUnlock()
	sort.Strings(names)
	var err error
	for i, name := range names {
		var done bool
		if done, err = s.collectPack(name, load, &c, i == 0); err != nil || done {
			break
		}
	}
	if lerr := s.load(); err == nil {
		err = lerr
	}
	return c, err
}

// collectPack does one step of Collect; done means stop (busy).
func (s *Store) collectPack(name string, load func() (func(snapshot.Hash) bool, error), c *Collected, sweepTemps bool) (done bool, err error) {
	lockfd, err := unix.Openat(s.dirfd, ".", dirFlags, 0)
	if err != nil {
		return true, fmt.Errorf("locking the content store: %w", err)
	}
	defer unix.Close(lockfd)
	if err := flock(lockfd, unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
		c.Busy = true
		return true, nil
	} else if err != nil {
		return true, fmt.Errorf("locking the content store: %w", err)
	}
	if sweepTemps {
		// Under the exclusive lock no batch is open. So a temporary pack is
		// what a killed writer left.
		if err := s.sweepTemps(); err != nil {
			return true, err
		}
	}
	keep, err := load()
	if errors.Is(err, ErrBusy) {
		c.Busy = true // load never waits under the exclusive lock
		return true, nil
	}
	if err != nil {
		return true, err
	}
	entries, size, err := s.readPack(name)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, ErrCorrupt) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	var live []indexed
	for _, e := range entries {
		if keep(e.key) {
			live = append(live, e)
		}
	}
	if len(live) == len(entries) {
		return false, nil
	}
	var newSize int64
	if len(live) > 0 {
		newSize, err = s.rewrite(name, live)
		if errors.Is(err, ErrCorrupt) {
			c.Unverified++
			return false, nil
		}
		if err != nil {
			return true, err
		}
	}
	if err := unix.Unlinkat(s.dirfd, name, 0); err != nil {
		return true, fmt.Errorf("collecting %s/%s: %w", ObjectsDir, name, err)
	}
	if err := unix.Fsync(s.dirfd); err != nil {
		return true, fmt.Errorf("collecting %s/%s: %w", ObjectsDir, name, err)
	}
	c.Objects += len(entries) - len(live)
	c.Packs++
	c.Freed += size - newSize
	return false, nil
}

// rewrite copies the live objects of pack name, as they are, into a new
// pack. Each is verified first: a corrupt one fails the rewrite
// (ErrCorrupt). So a bad copy is never carried over as if good.
func (s *Store) rewrite(name string, live []indexed) (int64, error) {
	src, _, err := s.openPack(name)
	if err != nil {
		return 0, err
	}
	defer unix.Close(src)
	tmp := tmpPrefix + randomName()
	fd, err := unix.Openat(s.dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("collecting %s/%s: %w", ObjectsDir, name, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(packMagic)
	off := int64(len(packMagic))
	out := make([]indexed, 0, len(live))
	var buf []byte
	for _, e := range live {
		if cap(buf) < int(e.n) {
			buf = make([]byte, e.n)
		}
		buf = buf[:e.n]
		err := preadFull(src, buf, e.off)
		if err == nil {
			_, err = DecodeObject(e.key, buf, s.max)
		}
		if err == nil {
			_, err = w.Write(buf)
		}
		if err != nil {
			f.Close()
			unix.Unlinkat(s.dirfd, tmp, 0)
			return 0, fmt.Errorf("collecting %s/%s: %w", ObjectsDir, name, err)
		}
		out = append(out, indexed{e.key, loc{off, e.n}})
		off += int64(e.n)
	}
	return finishPack(s.dirfd, f, w, tmp, randomName()+packExt, out, off)
}

func (s *Store) sweepTemps() error {
	names, err := s.list()
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasPrefix(name, tmpPrefix) {
			if err := unix.Unlinkat(s.dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("collecting %s/%s: %w", ObjectsDir, name, err)
			}
		}
	}
	return nil
}
