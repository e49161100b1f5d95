package walker

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// ErrNotFile is returned by SHA256 for a path that is a directory: it has
// no content to hash. A missing path is an error that matches
// fs.ErrNotExist.
var ErrNotFile = errors.New("walker: not a regular file")

// SHA256 returns the SHA-256 of the regular file path inside the candidate
// name of directory dir, for the audit log, which speaks SHA-256 where the
// manifest speaks BLAKE3. The file is reached exactly as Observe reaches
// it: the candidate opened relative to dir (a top-level link followed on
// purpose, its target proven), every component below it opened relative to
// its parent's descriptor with O_NOFOLLOW, and the file read only when its
// descriptor proves it regular and the same file that was listed. An empty
// path is the candidate itself.
//
// What cannot be hashed as content is a reason, never a guess: Symlink for
// a link anywhere below the candidate, Special, Oversize, Swapped, Depth,
// Unreadable, and Unstable when the file changed while it was read (the
// hash is then discarded).
func SHA256(dir string, name, path []byte, lim Limits) (sum [32]byte, r anomaly.Reason, err error) {
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
	if err := fstatat(dirfd, name, &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statFailed(err)
	}
	follow := unix.O_NOFOLLOW
	if want.Mode&unix.S_IFMT == unix.S_IFLNK {
		follow = 0
		if err := fstatat(dirfd, name, &want, 0); err != nil {
			return statFailed(err)
		}
	}
	if len(comps) == 0 {
		return hashFile(dirfd, name, follow, &want, lim)
	}
	if want.Mode&unix.S_IFMT != unix.S_IFDIR {
		return sum, 0, notExist(unix.ENOTDIR)
	}
	fd, err := openat(dirfd, name, openDir|follow)
	if err != nil {
		return sum, openReason(err), nil
	}
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil || !sameFile(&want, &st) {
		closeFD(fd)
		return sum, anomaly.Swapped, nil
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
		next, err := openat(fd, c, openDir|unix.O_NOFOLLOW)
		closeFD(fd)
		if err != nil {
			return sum, openReason(err), nil
		}
		fd = next
		if err := fstat(fd, &st); err != nil || !sameFile(&want, &st) {
			closeFD(fd)
			return sum, anomaly.Swapped, nil
		}
	}
	defer closeFD(fd)
	last := comps[len(comps)-1]
	if err := fstatat(fd, last, &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statFailed(err)
	}
	return hashFile(fd, last, unix.O_NOFOLLOW, &want, lim)
}

func validComps(comps [][]byte) bool {
	for _, c := range comps {
		if len(c) == 0 || string(c) == "." || string(c) == ".." || bytes.IndexByte(c, 0) >= 0 {
			return false
		}
	}
	return true
}

// statFailed: a missing path is an error matching fs.ErrNotExist; any
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

// hashFile hashes name of dirfd, listed as want, whole or not at all.
func hashFile(dirfd int, name []byte, flags int, want *unix.Stat_t, lim Limits) (sum [32]byte, r anomaly.Reason, err error) {
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		return sum, 0, ErrNotFile
	case unix.S_IFLNK:
		return sum, anomaly.Symlink, nil
	default:
		return sum, anomaly.Special, nil // a FIFO is never opened
	}
	fd, err := openat(dirfd, name, openFile|flags)
	if err != nil {
		return sum, openReason(err), nil
	}
	defer closeFD(fd)
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		return sum, anomaly.Unreadable, nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || !sameFile(want, &st) {
		return sum, anomaly.Swapped, nil
	}
	if st.Size > lim.MaxFileBytes {
		return sum, anomaly.Oversize, nil
	}
	h := sha256.New()
	buf := make([]byte, min(st.Size+1, 256<<10))
	var total int64
	for total <= st.Size {
		n, err := read(fd, buf[:min(int64(len(buf)), st.Size-total+1)])
		if err != nil {
			return sum, anomaly.Unreadable, nil
		}
		if n == 0 {
			break
		}
		total += int64(n)
		h.Write(buf[:n])
	}
	if total != st.Size { // it shrank or grew while read
		return sum, anomaly.Unstable, nil
	}
	if testHookRead != nil {
		testHookRead(name)
	}
	var after unix.Stat_t
	if err := fstat(fd, &after); err != nil {
		return sum, anomaly.Unreadable, nil
	}
	if after.Size != st.Size || after.Mtim != st.Mtim || after.Ctim != st.Ctim {
		return sum, anomaly.Unstable, nil
	}
	h.Sum(sum[:0])
	return sum, 0, nil
}
