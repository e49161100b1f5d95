package walker

import (
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// FileRead is one file ReadFiles read: its bytes, or why not.
type FileRead struct {
	Data []byte
	// Missing: there is no such file (nothing to read, nothing wrong).
	Missing bool
	// Reason is why the file could not be read whole: Symlink, Special,
	// Oversize, Swapped, Unstable, Unreadable. It is 0 when it was.
	Reason anomaly.Reason
}

// ReadFiles reads the named regular files of the directory sub of dir. It
// serves the few configuration files of a watched tree read outside a
// walk: a project's .claude settings. dir is opened as given: it comes
// from the caller, not from the tree. sub and each name are never reached
// through a link. A file is read as a walk reads it (readWhole), at most
// limit bytes. A missing dir or sub is nil: every name missing. An error
// means dir or sub could not be opened.
func ReadFiles(dir, sub string, names []string, limit int64) ([]FileRead, error) {
	dfd, err := openDirPath(dir)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("walker: opening %s: %w", dir, err)
	}
	defer closeFD(dfd)
	sfd, err := openatZ(dfd, znameOf([]byte(sub)), openDir|unix.O_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("walker: %s: %w", sub, err)
	}
	defer closeFD(sfd)
	out := make([]FileRead, len(names))
	for i, n := range names {
		data, missing, r := readWhole(sfd, znameOf([]byte(n)), false, nil, limit)
		out[i] = FileRead{Data: data, Missing: missing, Reason: r}
	}
	return out, nil
}

// readWhole reads the regular file name of dirfd whole, at most limit
// bytes, with the arrival proof. want, when set, is what was looked at.
// Else it is looked at here, never through a link unless follow. What is
// opened must be that file, regular, and unchanged while read. missing:
// there is no such file.
func readWhole(dirfd int, name zname, follow bool, want *unix.Stat_t, limit int64) (data []byte, missing bool, r anomaly.Reason) {
	return readWholeInto(dirfd, name, follow, want, limit, nil)
}

// readWholeInto is readWhole into buf when it is large enough.
func readWholeInto(dirfd int, name zname, follow bool, want *unix.Stat_t, limit int64, buf []byte) (data []byte, missing bool, r anomaly.Reason) {
	if want == nil {
		want = new(unix.Stat_t)
		err := fstatat(dirfd, name.bytes(), want, unix.AT_SYMLINK_NOFOLLOW)
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, true, 0
		case err != nil:
			return nil, false, openReason(err)
		}
	}
	switch {
	case want.Mode&unix.S_IFMT == unix.S_IFLNK:
		return nil, false, anomaly.Symlink
	case want.Mode&unix.S_IFMT != unix.S_IFREG:
		return nil, false, anomaly.Special
	case want.Size > limit:
		return nil, false, anomaly.Oversize
	}
	fd, st, r := openRegular(dirfd, name, follow, want)
	if r != 0 {
		return nil, false, r
	}
	defer closeFD(fd)
	if st.Size > limit {
		// Grown since it was looked at: still never read past limit.
		return nil, false, anomaly.Oversize
	}
	if testHookWhole != nil {
		testHookWhole()
	}
	data, r = readAllInto(fd, &st, buf)
	return data, false, r
}

// testHookWhole, when set by a test, runs as readWholeInto reads a file.
var testHookWhole func()
