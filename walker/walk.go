package walker

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// testHookListed, when set by a test, runs after a directory was listed and
// before any of its entries is opened: the window of a mid-scan swap.
var testHookListed func(dir []byte)

// dir walks the open directory fd at path, depth components below the
// candidate, and appends its entry and everything under it in canonical
// order (depth first, siblings sorted). It lists the directory first, then
// reads its files (in parallel), then descends: descriptors in use are
// bounded by depth, never by fanout.
func (w *cwalk) dir(fd int, path []byte, depth int, mode uint32) {
	// Never list more names than the quota could take: past it the walk is
	// partial anyway, and a hostile directory costs bounded time and memory.
	limit := w.s.cfg.MaxDirEntries
	budgetLimited := false
	if left := w.q.entries - w.entries; left < int64(limit) {
		limit, budgetLimited = int(max(left, 0)), true
	}
	ents, err := w.st.readDir(fd, limit)
	if err == errFanout && budgetLimited {
		w.partial.Store(true)
		return
	}
	if err != nil {
		r := anomaly.Unreadable
		if err == errFanout {
			r = anomaly.Fanout
		}
		w.out = append(w.out, anomalyEntry(path, r))
		return
	}
	if testHookListed != nil {
		testHookListed(path)
	}
	w.out = append(w.out, snapshot.Entry{Path: path, Kind: snapshot.Dir, Mode: mode})

	// Classify every name before anything is opened; the entry budget is
	// spent here, in name order, so where a cut falls is deterministic.
	res := make([]snapshot.Entry, len(ents))
	paths := pathArena(path, ents)
	var files []int
	for i := range ents {
		if !w.take() {
			ents, res = ents[:i], res[:i]
			break
		}
		d := &ents[i]
		e := &res[i]
		e.Path = paths[i]
		// Path bytes are memory the observation keeps: they count against
		// the byte budget like file contents.
		if !w.reserve(int64(len(e.Path))) {
			ents, res = ents[:i], res[:i]
			break
		}
		typ := d.typ
		if typ == unix.DT_UNKNOWN { // some filesystems do not fill d_type
			var st unix.Stat_t
			if err := fstatat(fd, d.name.bytes(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				*e = anomalyEntry(e.Path, openReason(err))
				continue
			}
			typ = typeOf(st.Mode)
		}
		switch typ {
		case unix.DT_REG:
			e.Kind = snapshot.File
			files = append(files, i)
		case unix.DT_DIR:
			e.Kind = snapshot.Dir
		case unix.DT_LNK:
			target, err := readlinkatZ(fd, d.name, w.st.lbuf)
			if err != nil {
				// EINVAL: no longer a link.
				*e = anomalyEntry(e.Path, openReason(err))
				continue
			}
			e.Kind, e.Target = snapshot.Symlink, target
			w.reserve(int64(len(target)))
		default:
			*e = anomalyEntry(e.Path, anomaly.Special)
		}
	}

	w.readFiles(fd, ents, res, files)

	for i := range res {
		e := &res[i]
		switch e.Kind {
		case 0: // not read: the byte budget ran out
		case snapshot.Dir:
			w.subdir(fd, ents[i].name, e.Path, depth+1)
		default:
			w.out = append(w.out, *e)
		}
	}
}

// subdir opens and walks one child directory. Opening with O_DIRECTORY and
// O_NOFOLLOW relative to the parent's descriptor is the arrival proof: the
// descriptor is a directory that was at that name, never a link's target.
func (w *cwalk) subdir(parent int, name zname, path []byte, depth int) {
	// Too deep, or so long that a child's path could pass PATH_MAX: not
	// opened. Bounds the bytes of every path the walker keeps.
	if depth >= w.s.cfg.MaxDepth || len(path)+1+maxNameLen > maxPathLen {
		w.out = append(w.out, anomalyEntry(path, anomaly.Depth))
		return
	}
	if w.stopped() {
		return
	}
	fd, err := openatZ(parent, name, openDir|unix.O_NOFOLLOW)
	if err != nil {
		w.out = append(w.out, anomalyEntry(path, openReason(err)))
		return
	}
	defer closeFD(fd)
	var st unix.Stat_t
	if err := fstat(fd, &st); err != nil {
		w.out = append(w.out, anomalyEntry(path, anomaly.Unreadable))
		return
	}
	w.dir(fd, path, depth, st.Mode&07777)
}

// Linux's limits: a name is at most 255 bytes, a path PATH_MAX.
const (
	maxNameLen = 255
	maxPathLen = unix.PathMax
)

// pathArena builds the paths of a directory's entries in one allocation.
func pathArena(dir []byte, ents []dirent) [][]byte {
	size := 0
	for _, d := range ents {
		size += len(dir) + len(d.name) // the NUL's byte pays for the '/'
	}
	arena := make([]byte, 0, size)
	paths := make([][]byte, len(ents))
	for i, d := range ents {
		start := len(arena)
		if len(dir) > 0 {
			arena = append(arena, dir...)
			arena = append(arena, '/')
		}
		arena = append(arena, d.name.bytes()...)
		paths[i] = arena[start:len(arena):len(arena)]
	}
	return paths
}
