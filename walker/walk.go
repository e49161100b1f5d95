package walker

import (
	"io/fs"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// testHookListed, when set by a test, runs after a directory was listed
// and before any of its entries is opened. That is the window of a
// mid-scan swap.
var testHookListed func(dir []byte)

// testHookFronts, when set by a test, runs after a candidate's front
// files were read. It runs before any of its files is hashed.
var testHookFronts func()

// seg is one directory's entries in name order, allocated once when the
// directory is listed. File readers fill their entries in place. So the
// traversal never waits for them before it descends. sub[i] is what was
// under entry i when it is a directory. An entry left with Kind 0 was not
// observed, as the walk was cut short. It is left out of the manifest.
type seg struct {
	ents []snapshot.Entry
	ids  []Ident // ents' identities, when the walk keeps them
	sub  []*seg
}

// flatten appends s depth first: the manifest's canonical order. ids,
// when the walk keeps identities, gets each appended entry's.
func (s *seg) flatten(out []snapshot.Entry, ids []Ident) ([]snapshot.Entry, []Ident) {
	for i := range s.ents {
		if s.ents[i].Kind != 0 {
			out = append(out, s.ents[i])
			if s.ids != nil {
				ids = append(ids, s.ids[i])
			}
		}
		if s.sub != nil && s.sub[i] != nil {
			out, ids = s.sub[i].flatten(out, ids)
		}
	}
	return out, ids
}

// dirRef is an open directory shared by the traversal and the batches
// reading its files. The last to let go closes it. Only the traversal's
// goroutine takes and releases references.
type dirRef struct {
	fd   int
	refs int
	dev  uint64 // the directory's device: its files on it share its filesystem
}

func newDirRef(fd int, st *unix.Stat_t) *dirRef { return &dirRef{fd: fd, refs: 1, dev: uint64(st.Dev)} }

func (d *dirRef) release() {
	if d.refs--; d.refs == 0 {
		closeFD(d.fd)
	}
}

// dir walks the open directory d at path, depth components below the
// candidate. It returns the directory's own entry and what is under it.
// That entry has Kind 0 when the walk was cut short before it. dir lists
// the directory, hands its files to the readers, then descends. So
// descriptors in use are bounded by depth plus the readers' window, never
// by fanout.
func (w *cwalk) dir(d *dirRef, path []byte, depth int, mode uint32) (snapshot.Entry, *seg) {
	// Never list more names than the quota could take. Past it the walk is
	// partial anyway, and a hostile directory costs bounded time and memory.
	limit := w.s.cfg.MaxDirEntries
	budgetLimited := false
	if left := w.q.entries - w.entries; left < int64(limit) {
		limit, budgetLimited = int(max(left, 0)), true
	}
	ents, err := w.st.readDir(d.fd, limit)
	if err == errFanout && budgetLimited {
		w.partial.Store(true)
		return snapshot.Entry{}, nil
	}
	if err != nil {
		return anomalyEntry(path, listingReason(err)), nil
	}
	if testHookListed != nil {
		testHookListed(path)
	}
	if w.spec != nil && len(w.spec.Noise) > 0 {
		ents = slices.DeleteFunc(ents, func(e dirent) bool { return w.spec.noise(path, e.name.bytes()) })
	}
	if depth == 0 && w.spec != nil && w.spec.Front != nil && w.spec.FrontFile != "" {
		w.readFronts(d.fd, d.dev, ents)
		if testHookFronts != nil {
			testHookFronts()
		}
	}
	if depth == 0 && w.spec != nil && len(w.spec.Unloaded) > 0 && !w.loadsUnloaded {
		ents = slices.DeleteFunc(ents, func(e dirent) bool { return slices.Contains(w.spec.Unloaded, string(e.name.bytes())) })
	}

	// Classify every name before anything is opened. The entry budget is
	// spent here, in name order, so where a cut falls is deterministic.
	s := &seg{ents: make([]snapshot.Entry, len(ents))}
	if w.s.cfg.Idents {
		s.ids = make([]Ident, len(ents))
	}
	paths := pathArena(path, ents)
	// The indexes of the files fill idx from the front, the directories'
	// from the back: one allocation per directory.
	idx := make([]int, len(ents))
	nf, nd := 0, len(idx)
	for i := range ents {
		if !w.take() {
			ents, s.ents = ents[:i], s.ents[:i]
			break
		}
		dt := &ents[i]
		e := &s.ents[i]
		e.Path = paths[i]
		// Path bytes are memory the observation keeps. They count against
		// the byte budget like file contents.
		if !w.reserve(int64(len(e.Path))) {
			ents, s.ents = ents[:i], s.ents[:i]
			break
		}
		typ := dt.typ
		if typ == fs.ModeIrregular { // some filesystems do not fill d_type
			var st unix.Stat_t
			if err := fstatat(d.fd, dt.name.bytes(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				*e = anomalyEntry(e.Path, openReason(err))
				continue
			}
			typ = safefile.ModeType(uint32(st.Mode))
		}
		switch typ {
		case 0:
			idx[nf], nf = i, nf+1 // Kind stays 0 until a reader fills it
		case fs.ModeDir:
			nd--
			idx[nd] = i
		case fs.ModeSymlink:
			target, err := readlinkatZ(d.fd, dt.name, w.st.lbuf)
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

	files, dirs := idx[:nf:nf], idx[nd:]
	slices.Reverse(dirs) // descended in name order
	if len(files) > 0 {
		w.submit(&batch{w: w, dir: d, ents: ents, files: files, out: s.ents, ids: s.ids})
	}
	if len(dirs) > 0 {
		s.sub = make([]*seg, len(s.ents))
		for _, i := range dirs {
			var id Ident
			s.ents[i], s.sub[i], id = w.subdir(d, ents[i].name, s.ents[i].Path, depth+1)
			if s.ids != nil {
				s.ids[i] = id
			}
		}
	}
	return snapshot.Entry{Path: path, Kind: snapshot.Dir, Mode: mode}, s
}

// subdir opens and walks one child directory. openDirAt opens it relative
// to the parent's descriptor and proves its arrival.
// Its identity is the one its open stated.
func (w *cwalk) subdir(parent *dirRef, name zname, path []byte, depth int) (snapshot.Entry, *seg, Ident) {
	// Too deep, or so long that a child's path could pass PATH_MAX: not
	// opened. Bounds the bytes of every path the walker keeps.
	if depth >= w.s.cfg.MaxDepth || len(path)+1+maxNameLen > maxPathLen {
		return anomalyEntry(path, anomaly.Depth), nil, Ident{}
	}
	if w.stopped() {
		return snapshot.Entry{}, nil, Ident{}
	}
	fd, st, r := openDirAt(parent.fd, name, unix.O_NOFOLLOW, nil)
	if r != 0 {
		return anomalyEntry(path, r), nil, Ident{}
	}
	d := newDirRef(fd, &st)
	defer d.release()
	id := w.dirIdent(fd, &st)
	e, s := w.dir(d, path, depth, uint32(st.Mode)&07777)
	return e, s, id
}

// openDirAt opens the directory name of dirfd and proves its arrival. It
// opens with O_DIRECTORY and nofollow: O_NOFOLLOW, or 0 only through a
// top-level candidate link. So the descriptor is a directory that was at
// that name, never a link's target. When want is set, fstat proves it is
// the one that was looked at. On a reason the descriptor is already
// closed.
func openDirAt(dirfd int, name zname, nofollow int, want *unix.Stat_t) (int, unix.Stat_t, anomaly.Reason) {
	var st unix.Stat_t
	fd, err := openatZ(dirfd, name, openDir|nofollow)
	if err != nil {
		return -1, st, openReason(err)
	}
	if err := fstat(fd, &st); err != nil {
		closeFD(fd)
		return -1, st, anomaly.Unreadable
	}
	if want != nil && !sameFile(want, &st) {
		closeFD(fd)
		return -1, st, anomaly.Swapped
	}
	return fd, st, 0
}

// maxPathLen bounds the candidate-relative paths the walker keeps. It is
// Linux's PATH_MAX, on every system. The walker opens one component at a
// time, so the kernel's own limit never applies to these paths.
// maxNameLen, the longest name a listing can hold, is per system.
const maxPathLen = 4096

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
