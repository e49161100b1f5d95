package walker

import (
	"crypto/sha256"
	"hash"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// maxReadBuf is the most a reader asks of one read.
const maxReadBuf = 256 << 10

// reader reads files whole and hashes them; each goroutine has its own.
// The walker's readers hash with BLAKE3, the manifest's hash. SHA256's
// hash with SHA-256, the audit log's, through the same reads and proofs.
type reader struct {
	buf []byte
	h   hash.Hash
	sum func([]byte) [32]byte // one call for a file read in one read
	out []byte                // h.Sum's destination: a sum costs no allocation
	// also, when set, hashes every byte read as well: SHA256Observed's
	// BLAKE3. It proves the SHA-256 is of the content the manifest holds.
	also hash.Hash
}

// newReader's buffer grows to what its files need, up to maxReadBuf for
// a hash. A walk makes a reader for each traversal and helper, and most
// read a few small files or none: a gate hook's discovery lists folders
// and reads nothing. Each had 256 KiB zeroed up front, 3 MiB of a Skill
// call's 4 (issue 34).
func newReader() *reader {
	return &reader{h: blake3.New(), sum: blake3.Sum256, out: make([]byte, 0, 32)}
}

// grow makes the buffer hold at least n bytes. It at least doubles, up to
// maxReadBuf, so a walk of growing files reallocates a few times, not at
// each file.
func (r *reader) grow(n int64) {
	if int64(len(r.buf)) < n {
		r.buf = make([]byte, max(n, min(2*int64(len(r.buf)), maxReadBuf)))
	}
}

// newSHA256Reader's buffer grows to what its file needs, up to
// maxReadBuf. It reads one file, not a tree.
func newSHA256Reader() *reader {
	return &reader{h: sha256.New(), sum: sha256.Sum256, out: make([]byte, 0, 32)}
}

// testHookRead, when set by a test, runs after a file's content was read
// and before the second fstat. That is the window in which a writer makes
// it unstable.
var testHookRead func(path []byte)

// openRegular opens name of dirfd and proves its arrival. The descriptor
// is a regular file and, when want is set, the very file that was listed.
// A FIFO swapped in is opened non-blocking, never read, and is Swapped.
// follow is set only for a top-level candidate that is itself a link,
// observed through on purpose. Every other open refuses a link
// (O_NOFOLLOW). So a file swapped for a link is Swapped, never followed.
// On a reason the descriptor is already closed.
func openRegular(dirfd int, name zname, follow bool, want *unix.Stat_t) (int, unix.Stat_t, anomaly.Reason) {
	var st unix.Stat_t
	flags := openFile | unix.O_NOFOLLOW
	if follow {
		flags = openFile
	}
	fd, err := openatZ(dirfd, name, flags)
	if err != nil {
		return -1, st, openReason(err)
	}
	if err := fstat(fd, &st); err != nil {
		closeFD(fd)
		return -1, st, anomaly.Unreadable
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || want != nil && !sameFile(want, &st) {
		closeFD(fd)
		return -1, st, anomaly.Swapped
	}
	return fd, st, 0
}

// file observes the regular file name of dirfd into e (whose Path is set).
// Five syscalls for a small file: openat, fstat, read, fstat, close. want
// and follow are openRegular's. On a byte budget cut e.Kind is left 0.
// id, when set, is the file as a walk with Config.Reuse identified it: the
// hash is recorded there.
func (r *reader) file(w *cwalk, dirfd int, name zname, follow bool, want *unix.Stat_t, e *snapshot.Entry, id *hashRec, sink *[]byte) {
	path := e.Path
	fd, st, reason := openRegular(dirfd, name, follow, want)
	if reason != 0 {
		*e = anomalyEntry(path, reason)
		return
	}
	defer closeFD(fd)
	if st.Size > w.s.cfg.MaxFileBytes {
		*e = anomalyEntry(path, anomaly.Oversize)
		return
	}
	if !w.reserve(st.Size) {
		e.Kind = 0
		return
	}
	var sum [32]byte
	keep := w.s.cfg.Keep
	if keep != nil && st.Size <= w.s.keepMax || sink != nil {
		var data []byte
		if data, sum, reason = r.wholeKept(fd, &st, path); reason == 0 {
			if keep != nil && st.Size <= w.s.keepMax {
				keep.Keep(sum, data)
			}
			if sink != nil {
				*sink = slices.Clone(data) // the bytes hashed, never a second read
			}
		}
	} else {
		sum, reason = r.whole(fd, &st, path)
	}
	if reason != 0 {
		*e = anomalyEntry(path, reason) // the hash is discarded: never a partial hash
		return
	}
	*e = snapshot.Entry{Path: path, Kind: snapshot.File, Size: st.Size, Mode: uint32(st.Mode) & 07777, Hash: sum}
	if id != nil {
		// What was hashed is what fstat saw before and after the read. The
		// mount is the one statx named, the arrival proof says.
		*id = hashRec{mnt: id.mnt, dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mode: uint32(st.Mode),
			mtime: [2]int64{int64(st.Mtim.Sec), int64(st.Mtim.Nsec)}, ctime: [2]int64{int64(st.Ctim.Sec), int64(st.Ctim.Nsec)}}
		w.s.reuse.record(id, sum, w.s.start)
	}
}

// wholeKept is whole for a file to keep. The file is read into one
// buffer, the reader's, grown to the file. It is hashed in one call. The
// buffer is returned, so the caller keeps exactly the bytes that were
// hashed.
func (r *reader) wholeKept(fd int, st *unix.Stat_t, path []byte) ([]byte, [32]byte, anomaly.Reason) {
	var sum [32]byte
	// One byte more than the file: a file that grew fills it and is caught.
	r.grow(st.Size + 1)
	var total int64
	for total <= st.Size {
		want := st.Size + 1 - total
		n, err := read(fd, r.buf[total:st.Size+1])
		if err != nil {
			return nil, sum, anomaly.Unreadable
		}
		total += int64(n)
		// A read short of the spare byte at the size ends the file, as in
		// hash. No extra read: the second fstat proves the size.
		if n == 0 || total == st.Size && int64(n) < want {
			break
		}
	}
	if total != st.Size {
		return nil, sum, anomaly.Unstable
	}
	data := r.buf[:total]
	sum = r.sum(data)
	if reason := r.stable(fd, st, path); reason != 0 {
		return nil, [32]byte{}, reason
	}
	return data, sum, 0
}

// whole hashes the open regular file fd, which fstat described as st,
// whole or not at all. It reads exactly st.Size bytes. Then a second fstat
// proves the file did not change while it was read. Else it is Unstable,
// and no hash.
func (r *reader) whole(fd int, st *unix.Stat_t, path []byte) ([32]byte, anomaly.Reason) {
	sum, reason := r.hash(fd, st.Size)
	if reason != 0 {
		return [32]byte{}, reason
	}
	if reason := r.stable(fd, st, path); reason != 0 {
		return [32]byte{}, reason
	}
	return sum, 0
}

// stable is the second fstat: the file must not have changed while it
// was read. Else it is Unstable and what was read is discarded.
func (r *reader) stable(fd int, st *unix.Stat_t, path []byte) anomaly.Reason {
	if testHookRead != nil {
		testHookRead(path)
	}
	var after unix.Stat_t
	if err := fstat(fd, &after); err != nil {
		return anomaly.Unreadable
	}
	if after.Size != st.Size || after.Mtim != st.Mtim || after.Ctim != st.Ctim {
		return anomaly.Unstable
	}
	return 0
}

// hash reads exactly size bytes. It asks for one byte more than remains, so
// a file that grew is noticed without an extra read; one that shrank ends
// early. Either is Unstable.
func (r *reader) hash(fd int, size int64) ([32]byte, anomaly.Reason) {
	var sum [32]byte
	if r.also != nil {
		r.also.Reset()
	}
	if size == 0 {
		return r.sum(nil), 0
	}
	r.grow(min(size+1, maxReadBuf))
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
		if r.also != nil {
			r.also.Write(r.buf[:n])
		}
		if total == size && int64(n) == size {
			// The whole file in one read: hash it in one call.
			return r.sum(r.buf[:n]), 0
		}
		h.Write(r.buf[:n])
	}
	copy(sum[:], h.Sum(r.out[:0]))
	return sum, 0
}
