package walker

import (
	"bytes"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// maxFrontRead bounds a file read whole for NameSpec.Front. A larger one
// is hashed as usual and gets no canonical form.
const maxFrontRead = 1 << 20

// frontRead is what Front made of a file read before the walk hashed it.
type frontRead struct {
	path    []byte // the file's manifest path
	hash    snapshot.Hash
	canon   []byte
	reasons []snapshot.Found
}

// readFront reads the regular file name of dirfd whole, with the arrival
// proof. want, when set, is what was looked at. Else it is looked at here,
// never through a link unless follow. It keeps what Front makes of it for
// settleFront.
func (w *cwalk) readFront(dirfd int, name zname, follow bool, want *unix.Stat_t, path []byte) {
	w.readFrontOn(dirfd, 0, name, follow, want, path)
}

// readFrontOn is readFront of a file of the candidate directory dirfd on
// device dev (0: not known). There a front file whose identity is
// unchanged takes what Front made of it from Config.Fronts, and one
// parsed here is kept there.
func (w *cwalk) readFrontOn(dirfd int, dev uint64, name zname, follow bool, want *unix.Stat_t, path []byte) {
	cache := w.s.fronts
	var id hashRec
	var tag [16]byte
	if dev != 0 && want == nil && w.spec.FrontTag != "" && cache.usable() && bytes.IndexByte(name.bytes(), '/') < 0 &&
		identify(dirfd, name, &id) && id.dev == dev && localCtime(&cache.classes, dirfd, dev) {
		tag = frontTag(w.spec, path)
		if r, ok := cache.get(&id, tag); ok {
			w.loadsUnloaded = w.loadsUnloaded || r.unloaded
			w.front = append(w.front, &frontRead{path: path, hash: r.hash, canon: r.canon, reasons: found(r.reasons, path)})
			return
		}
		want = new(unix.Stat_t)
		*want = id.stat()
	} else {
		id = hashRec{}
	}
	if i := bytes.LastIndexByte(name.bytes(), '/'); i >= 0 {
		// A file below the candidate (hooks/hooks.json). Its directories
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
	if !missing && r != 0 {
		w.loadsUnloaded = true // unread: it may name them
	}
	if missing || r != 0 {
		return
	}
	unloaded := false
	for _, u := range w.spec.Unloaded {
		unloaded = unloaded || bytes.Contains(data, []byte(u))
	}
	w.loadsUnloaded = w.loadsUnloaded || unloaded
	canon, rs := w.spec.Front(path, data)
	fr := &frontRead{path: path, hash: blake3.Sum256(data), canon: canon, reasons: found(rs, path)}
	w.front = append(w.front, fr)
	// Kept only when the file is still what it was before the read: any
	// write in between moves its ctime.
	var after hashRec
	if id.mnt != 0 && w.s.reuse != nil && identify(dirfd, name, &after) && after == id {
		cache.put(&id, tag, fr.hash, canon, rs, unloaded, w.s.start)
	}
}

// found places reasons at path.
func found(rs []anomaly.Reason, path []byte) []snapshot.Found {
	var out []snapshot.Found
	for _, r := range rs {
		out = append(out, snapshot.Found{Reason: r, Path: path})
	}
	return out
}

// readFronts reads the front files of the directory candidate dirfd:
// FrontFile, FrontMore, then the files their forms name (FrontRefs). ents
// is the candidate's listing, sorted. A front file whose first component
// it does not hold is not there, and is not looked for. So a skill without
// hooks/ or .claude-plugin/ costs no failed open (issue 23). The form is
// kept only for files the walk then hashes from this listing
// (settleFront). So it never says more than the listing did.
func (w *cwalk) readFronts(dirfd int, dev uint64, ents []dirent) {
	paths := append([]string{w.spec.FrontFile}, w.spec.FrontMore...)
	read := func(p string) {
		if p != "" && listed(ents, p) && !slices.ContainsFunc(w.front, func(fr *frontRead) bool { return string(fr.path) == p }) {
			w.readFrontOn(dirfd, dev, znameOf([]byte(p)), false, nil, []byte(p))
		}
	}
	for _, p := range paths {
		read(p)
	}
	if w.spec.FrontRefs == nil {
		return
	}
	for _, fr := range slices.Clone(w.front) {
		for _, ref := range w.spec.FrontRefs(string(fr.path), fr.canon) {
			if validRef(ref) {
				read(ref)
			}
		}
	}
}

// listed reports whether the sorted listing ents holds the first
// component of the path p.
func listed(ents []dirent, p string) bool {
	first, _, _ := strings.Cut(p, "/")
	_, ok := slices.BinarySearchFunc(ents, first, func(e dirent, n string) int { return strings.Compare(string(e.name.bytes()), n) })
	return ok
}

// validRef: a path below the candidate, each component a name, never "",
// "." or "..". So reaching it never leaves the candidate.
func validRef(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == "" || c == "." || c == ".." || strings.IndexByte(c, 0) >= 0 {
			return false
		}
	}
	return p != ""
}

// settleFront keeps the front reads' form only if the walk hashed the
// very bytes each was made of. A file that changed in between leaves the
// candidate without one.
func (w *cwalk) settleFront(c *Candidate) {
	if len(w.front) == 0 {
		return
	}
	ents := c.Manifest.Entries
	var paths []string
	var canons [][]byte
	var reasons []snapshot.Found
	for _, fr := range w.front {
		i, ok := slices.BinarySearchFunc(ents, fr.path, func(e snapshot.Entry, p []byte) int { return snapshot.ComparePaths(e.Path, p) })
		if !ok || ents[i].Kind != snapshot.File || ents[i].Hash != fr.hash {
			return
		}
		paths, canons = append(paths, string(fr.path)), append(canons, fr.canon)
		reasons = append(reasons, fr.reasons...)
	}
	c.Canonical, c.Front = canons[0], reasons
	if w.spec.FrontJoin != nil {
		c.Canonical = w.spec.FrontJoin(paths, canons)
	}
}
