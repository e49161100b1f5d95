package walker

import (
	"bytes"
	"slices"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// maxFrontRead bounds a file read whole for NameSpec.Front; a larger one is
// hashed as usual and gets no canonical form.
const maxFrontRead = 1 << 20

// frontRead is what Front made of a file read before the walk hashed it.
type frontRead struct {
	path    []byte // the file's manifest path
	hash    snapshot.Hash
	canon   []byte
	reasons []snapshot.Found
}

// readFront reads the regular file name of dirfd whole, with the arrival
// proof (want, when set, is what was looked at; else it is looked at
// here, never through a link unless follow), and keeps what Front makes of
// it for settleFront.
func (w *cwalk) readFront(dirfd int, name zname, follow bool, want *unix.Stat_t, path []byte) {
	if i := bytes.LastIndexByte(name.bytes(), '/'); i >= 0 {
		// A file below the candidate (hooks/hooks.json): its directories
		// are reached as the walk reaches them, never through a link.
		for comp := range bytes.SplitSeq(name.bytes()[:i], []byte{'/'}) {
			fd, _, r := openDirAt(dirfd, znameOf(comp), unix.O_NOFOLLOW, nil)
			if r != 0 {
				return
			}
			defer closeFD(fd)
			dirfd = fd
		}
		name = znameOf(name.bytes()[i+1:])
	}
	data, missing, r := readWhole(dirfd, name, follow, want, maxFrontRead)
	if missing || r != 0 {
		return
	}
	canon, rs := w.spec.Front(name.bytes(), data)
	fr := &frontRead{path: path, hash: blake3.Sum256(data), canon: canon}
	for _, r := range rs {
		fr.reasons = append(fr.reasons, snapshot.Found{Reason: r, Path: path})
	}
	w.front = fr
}

// settleFront keeps the front read's form only if the walk hashed the
// very bytes it was made of: a file that changed in between gets none.
func (w *cwalk) settleFront(c *Candidate) {
	fr := w.front
	if fr == nil {
		return
	}
	ents := c.Manifest.Entries
	i, ok := slices.BinarySearchFunc(ents, fr.path, func(e snapshot.Entry, p []byte) int { return snapshot.ComparePaths(e.Path, p) })
	if ok && ents[i].Kind == snapshot.File && ents[i].Hash == fr.hash {
		c.Canonical, c.Front = fr.canon, fr.reasons
	}
}
