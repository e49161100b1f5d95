package walker

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// ErrNotFile is returned by SHA256 for a path that is a directory: it has
// no content to hash. A missing path is an error that matches
// fs.ErrNotExist.
var ErrNotFile = errors.New("walker: not a regular file")

// SHA256 returns the SHA-256 of the regular file path inside the candidate
// name of directory dir. It is for the audit log, which speaks SHA-256
// where the manifest speaks BLAKE3. The file is reached exactly as Observe
// reaches it. The candidate is opened relative to dir: a top-level link is
// followed on purpose, its target proven. Every component below it is
// opened relative to its parent's descriptor with O_NOFOLLOW. The file is
// read only when its descriptor proves it regular and the same file that
// was listed. An empty path is the candidate itself.
//
// What cannot be hashed as content is a reason, never a guess. Symlink is
// a link anywhere below the candidate. The others are Special, Oversize,
// Swapped, Depth and Unreadable. Unstable is a file that changed while it
// was read; the hash is then discarded.
func SHA256(dir string, name, path []byte, lim Limits) (sum [32]byte, r anomaly.Reason, err error) {
	return sha256Of(dir, name, path, lim, newSHA256Reader())
}

// SHA256Observed is SHA256 that also returns the BLAKE3 of the very bytes
// it hashed. So a caller can prove the SHA-256 is of the content a
// manifest observed before trusting it. The file may have been rewritten
// since.
func SHA256Observed(dir string, name, path []byte, lim Limits) (sum [32]byte, b3 snapshot.Hash, r anomaly.Reason, err error) {
	rd := newSHA256Reader()
	rd.also = blake3.New()
	if sum, r, err = sha256Of(dir, name, path, lim, rd); err == nil && r == 0 {
		copy(b3[:], rd.also.Sum(nil))
	}
	return sum, b3, r, err
}

func sha256Of(dir string, name, path []byte, lim Limits, rd *reader) (sum [32]byte, r anomaly.Reason, err error) {
	var comps [][]byte
	if len(path) > 0 {
		comps = bytes.Split(path, []byte{'/'})
	}
	if bytes.IndexByte(name, '/') >= 0 || !validComps([][]byte{name}) || !validComps(comps) {
		return sum, 0, fmt.Errorf("walker: SHA256: malformed path")
	}
	if len(comps) > lim.MaxDepth {
		return sum, anomaly.Depth, nil
	}
	dirfd, err := openDirPath(dir)
	if err != nil {
		return sum, 0, fmt.Errorf("walker: opening %s: %w", anomaly.QuoteBytes([]byte(dir)), err)
	}
	defer closeFD(dirfd)

	// The candidate: a top-level link is followed, as Observe follows it.
	var want unix.Stat_t
	zn := znameOf(name)
	nofollow, _, err := arrive(dirfd, zn, &want, nil)
	if err != nil {
		return statFailed(err)
	}
	if len(comps) == 0 {
		return hashFile(rd, dirfd, name, nofollow == 0, &want, lim)
	}
	if want.Mode&unix.S_IFMT != unix.S_IFDIR {
		return sum, 0, notExist(unix.ENOTDIR)
	}
	fd, _, r := openDirAt(dirfd, zn, nofollow, &want)
	if r != 0 {
		return sum, r, nil
	}

	// Below the candidate nothing is followed.
	for _, c := range comps[:len(comps)-1] {
		if err := fstatat(fd, c, &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			closeFD(fd)
			return statFailed(err)
		}
		switch want.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
		case unix.S_IFLNK:
			closeFD(fd)
			return sum, anomaly.Symlink, nil
		default: // nothing lies below a file
			closeFD(fd)
			return sum, 0, notExist(unix.ENOTDIR)
		}
		next, _, r := openDirAt(fd, znameOf(c), unix.O_NOFOLLOW, &want)
		closeFD(fd)
		if r != 0 {
			return sum, r, nil
		}
		fd = next
	}
	defer closeFD(fd)
	last := comps[len(comps)-1]
	if err := fstatat(fd, last, &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statFailed(err)
	}
	return hashFile(rd, fd, last, false, &want, lim)
}

func validComps(comps [][]byte) bool {
	for _, c := range comps {
		if len(c) == 0 || string(c) == "." || string(c) == ".." || bytes.IndexByte(c, 0) >= 0 {
			return false
		}
	}
	return true
}

// statFailed: a missing path is an error matching fs.ErrNotExist. Any
// other failure to look at it is Unreadable.
func statFailed(err error) (sum [32]byte, r anomaly.Reason, _ error) {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return sum, 0, notExist(err)
	}
	return sum, anomaly.Unreadable, nil
}

// notExist: nothing is at the path (a component is missing or not a
// directory).
func notExist(err error) error { return fmt.Errorf("walker: SHA256: %w (%v)", fs.ErrNotExist, err) }

// hashFile hashes name of dirfd, listed as want, whole or not at all. It
// goes through the walker's own open and read.
func hashFile(rd *reader, dirfd int, name []byte, follow bool, want *unix.Stat_t, lim Limits) (sum [32]byte, r anomaly.Reason, err error) {
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		return sum, 0, ErrNotFile
	case unix.S_IFLNK:
		return sum, anomaly.Symlink, nil
	default:
		return sum, anomaly.Special, nil // a FIFO is never opened
	}
	fd, st, r := openRegular(dirfd, znameOf(name), follow, want)
	if r != 0 {
		return sum, r, nil
	}
	defer closeFD(fd)
	if st.Size > lim.MaxFileBytes {
		return sum, anomaly.Oversize, nil
	}
	sum, r = rd.whole(fd, &st, name)
	return sum, r, nil
}
