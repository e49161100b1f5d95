package walker

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// reader reads and hashes regular files; each goroutine has its own.
type reader struct {
	buf []byte
	h   *blake3.Hasher
}

func newReader() *reader { return &reader{buf: make([]byte, 256<<10), h: blake3.New()} }

// testHookRead, when set by a test, runs after a file's content was read
// and before the second fstat: the window in which a writer makes it
// unstable.
var testHookRead func(path []byte)

// file observes the regular file name of dirfd into e (whose Path is set).
// Five syscalls for a small file: openat, fstat, read, fstat, close. The
// listing said "regular file"; the fstat of the opened descriptor proves it
// (a FIFO swapped in is opened non-blocking, never read, and is Swapped).
// want, when set, is the identity the descriptor must have. follow is set
// only for a top-level candidate that is itself a link, observed through
// on purpose; every other open refuses a link (O_NOFOLLOW), so a file
// swapped for a link after listing is Swapped, never followed. On a byte
// budget cut e.Kind is left 0.
func (r *reader) file(w *cwalk, dirfd int, name zname, follow bool, want *unix.Stat_t, e *snapshot.Entry) {
	path := e.Path
	flags := openFile | unix.O_NOFOLLOW
	if follow {
		flags = openFile
	}
	fd, err := openatZ(dirfd, name, flags)
	if err != nil {
		*e = anomalyEntry(path, openReason(err))
		return
	}
	defer closeFD(fd)
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		*e = anomalyEntry(path, anomaly.Unreadable)
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || want != nil && !sameFile(want, &st) {
		*e = anomalyEntry(path, anomaly.Swapped)
		return
	}
	if st.Size > w.s.cfg.MaxFileBytes {
		*e = anomalyEntry(path, anomaly.Oversize)
		return
	}
	if !w.reserve(st.Size) {
		e.Kind = 0
		return
	}
	sum, reason := r.hash(fd, st.Size)
	if reason == 0 {
		if testHookRead != nil {
			testHookRead(path)
		}
		var after unix.Stat_t
		if err := fstat(fd, &after); err != nil {
			reason = anomaly.Unreadable
		} else if after.Size != st.Size || after.Mtim != st.Mtim || after.Ctim != st.Ctim {
			reason = anomaly.Unstable
		}
	}
	if reason != 0 {
		*e = anomalyEntry(path, reason) // the hash is discarded: never a partial hash
		return
	}
	*e = snapshot.Entry{Path: path, Kind: snapshot.File, Size: st.Size, Mode: uint32(st.Mode) & 07777, Hash: sum}
}

// hash reads exactly size bytes. It asks for one byte more than remains, so
// a file that grew is noticed without an extra read; one that shrank ends
// early. Either is Unstable.
func (r *reader) hash(fd int, size int64) (snapshot.Hash, anomaly.Reason) {
	var sum snapshot.Hash
	if size == 0 {
		return snapshot.Hash(blake3.Sum256(nil)), 0
	}
	h := r.h
	h.Reset()
	var total int64
	for total < size {
		want := min(int64(len(r.buf)), size-total+1)
		n, err := read(fd, r.buf[:want])
		if err != nil {
			return sum, anomaly.Unreadable
		}
		if n == 0 {
			return sum, anomaly.Unstable
		}
		total += int64(n)
		if total > size {
			return sum, anomaly.Unstable
		}
		if total == size && int64(n) == size {
			// The whole file in one read: hash it in one call.
			return snapshot.Hash(blake3.Sum256(r.buf[:n])), 0
		}
		h.Write(r.buf[:n])
	}
	h.Sum(sum[:0])
	return sum, 0
}
