package walker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// scanner holds what one scan shares: the configuration, the deadline and
// the file-reading pool.
type scanner struct {
	ctx context.Context
	cfg Config
	// keepMax is cfg's bound of a kept file, 0 when nothing is kept.
	keepMax int64
	pool    *pool
	main    *wstate // the calling goroutine's
	// reuse is cfg.Reuse when this system can reuse hashes. start is when the
	// scan began, the reference of the racy rule.
	reuse  *Hashes
	start  time.Time
	fronts *FrontCache
	// walking counts the goroutines of parallel that walk a candidate.
	walking atomic.Int32
}

// wstate is one traversal goroutine's buffers and file reader.
type wstate struct {
	rd   *reader
	dbuf []byte // getdents
	lbuf []byte // readlink
	// ents and names are readDir's scratch. A listing grows there and is
	// copied out once, at its size. Growing each listing's own slices cost a
	// session start 1,100 page faults on 2,700 directories.
	ents  []dirent
	names []byte
}

func newWState() *wstate {
	return &wstate{rd: newReader(), dbuf: make([]byte, 32<<10), lbuf: make([]byte, unix.PathMax+1)}
}

func newScanner(ctx context.Context, cfg Config) *scanner {
	s := &scanner{ctx: ctx, cfg: cfg, keepMax: cfg.keepMax(), main: newWState(), start: now()}
	if cfg.Reuse != nil && cfg.Reuse.ok {
		s.reuse = cfg.Reuse
	}
	s.fronts = cfg.Fronts // read at its first use (FrontCache.usable)
	s.pool = newPool(s.cfg.workers() - 1)
	return s
}

func (s *scanner) close() { s.pool.close() }

func (s *scanner) done() bool {
	select {
	case <-s.ctx.Done():
		return true
	default:
		return false
	}
}

// dirent is one listed name and its type. fs.ModeIrregular is a type the
// listing did not give.
type dirent struct {
	name zname
	typ  fs.FileMode
}

// direntType is the type of a d_type. A d_type is its stat mode's type
// bits shifted right by 12 (DTTOIF), so safefile's one table reads both.
// DT_UNKNOWN is fs.ModeIrregular.
func direntType(t uint8) fs.FileMode { return safefile.ModeType(uint32(t) << 12) }

var errFanout = errors.New("walker: too many entries")

// errListing: a listing named one entry twice, which no directory holds at
// one time. The directory changed while it was read in several calls. On
// macOS, x/sys re-opens the directory at each call and skips the names it
// already returned by counting them. Its listing is not trusted.
var errListing = errors.New("walker: the directory changed while it was listed")

// listingReason is the anomaly a directory that could not be listed
// records. It is Fanout for too many entries, Unstable for a listing that
// changed under it, else Unreadable.
func listingReason(err error) anomaly.Reason {
	switch err {
	case errFanout:
		return anomaly.Fanout
	case errListing:
		return anomaly.Unstable
	}
	return anomaly.Unreadable
}

// readDir lists the open directory fd, sorted by name. It stops reading at
// limit+1 names (errFanout), so a huge directory costs bounded memory.
// Names keep their NUL terminators, in one arena.
func (st *wstate) readDir(fd int, limit int) ([]dirent, error) {
	ents, arena := st.ents[:0], st.names[:0]
	defer func() { st.ents, st.names = ents[:0], arena[:0] }()
	for {
		n, err := unix.ReadDirent(fd, st.dbuf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		over := false
		perr := parseDirents(st.dbuf[:n], func(name []byte, typ uint8) bool {
			if len(ents) >= limit {
				over = true
				return false
			}
			arena = append(arena, name...)
			arena = append(arena, 0)
			ents = append(ents, dirent{name: zname(arena[len(arena)-len(name)-1:]), typ: direntType(typ)})
			return true
		})
		if perr != nil {
			return nil, perr
		}
		if over {
			return nil, errFanout
		}
	}
	// Copied out of the scratch at their size. Every name is re-sliced from
	// the copy, since the scratch may also have moved while growing.
	out, names := slices.Clone(ents), slices.Clone(arena)
	off := 0
	for i := range out {
		l := len(out[i].name)
		out[i].name = zname(names[off : off+l : off+l])
		off += l
	}
	return out, sortNames(out)
}

// sortNames sorts a listing by name. It refuses one that names an entry
// twice (errListing): a manifest must never hold one path twice.
func sortNames(ents []dirent) error {
	slices.SortFunc(ents, func(a, b dirent) int { return bytes.Compare(a.name.bytes(), b.name.bytes()) })
	for i := 1; i < len(ents); i++ {
		if bytes.Equal(ents[i-1].name, ents[i].name) {
			return errListing
		}
	}
	return nil
}

// openRoot opens a root and lists it. It returns fd < 0 when there is
// nothing to walk, with the reason recorded in r.
func (s *scanner) openRoot(r *Root) (int, []dirent) {
	fd, err := openDirPath(r.Spec.Path)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT):
			r.Missing = true
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			r.Anomalies = append(r.Anomalies, anomaly.Unreadable)
		default:
			r.Anomalies = append(r.Anomalies, anomaly.Root)
		}
		return -1, nil
	}
	if r.Spec.Names != nil {
		return fd, lookup(fd, r.Spec.Names)
	}
	names, err := s.main.readDir(fd, s.cfg.MaxDirEntries)
	if err != nil {
		closeFD(fd)
		switch err {
		case errFanout:
			r.Anomalies = append(r.Anomalies, anomaly.Fanout)
		case errListing:
			r.Anomalies = append(r.Anomalies, anomaly.Unstable)
		default:
			r.Anomalies = append(r.Anomalies, anomaly.Unreadable)
		}
		return -1, nil
	}
	return fd, names
}

// selectCandidate decides whether a root entry is a candidate. Directories
// and links to them always are. Regular files and links to them are only
// in roots of files. A link that leads nowhere and a special file are
// candidates too. They are reported, never silently passed over.
func (s *scanner) selectCandidate(rootfd int, d dirent, files bool) (Kind, bool) {
	typ := d.typ
	if typ == fs.ModeSymlink || typ == fs.ModeIrregular {
		var st unix.Stat_t
		if err := fstatat(rootfd, d.name.bytes(), &st, 0); err != nil {
			return KindOther, true
		}
		typ = safefile.ModeType(uint32(st.Mode))
	}
	switch typ {
	case fs.ModeDir:
		return KindDir, true
	case 0:
		return KindFile, files
	}
	return KindOther, true
}

// quota is a candidate's share of the budget; used reports what it took.
type quota struct{ entries, bytes int64 }

// candidate observes the entry leaf of dirfd as one candidate within q.
// leaf is c.Name, or its last component for a nested candidate. It
// replaces c.Manifest and c.Kind, and reports what it used. st is the
// calling goroutine's state.
func (s *scanner) candidate(c *Candidate, dirfd int, dev uint64, leaf []byte, spec *NameSpec, q quota, st *wstate) quota {
	w := &cwalk{s: s, st: st, q: q, spec: spec, leaf: leaf, dirDev: dev}
	c.Manifest = snapshot.Manifest{}
	c.Canonical, c.Front, c.Idents = nil, nil, nil
	c.Kind = KindOther
	w.observe(c, dirfd)
	w.drain()
	if w.top != nil {
		// Every entry taken is at most one slot. So one allocation, exact or
		// nearly, instead of doublings that leave copies behind.
		out := make([]snapshot.Entry, 0, len(w.out)+int(w.entries))
		var ids []Ident
		if s.cfg.Idents && len(w.out) == 1 {
			ids = append(make([]Ident, 0, cap(out)), w.outID)
		}
		w.out, ids = w.top.flatten(append(out, w.out...), ids)
		if ids != nil && len(ids) == len(w.out) {
			c.Idents = ids
		}
		w.top = nil
	}
	c.Manifest.Entries = w.out
	if c.Kind == KindDir && spec != nil && spec.Outside != nil {
		c.Manifest.Entries = w.outside(c.Name, c.Manifest.Entries, spec.Outside(c.Name))
		c.Idents = nil // the files outside were not stated
	}
	c.Manifest.Partial = w.partial.Load()
	w.settleFront(c)
	return quota{entries: w.entries, bytes: w.bytes.Load()}
}

// cwalk is one walk of one candidate. The traversal runs in one goroutine.
// The file readers touch only bytes, partial and the entries they fill.
type cwalk struct {
	s    *scanner
	st   *wstate
	spec *NameSpec
	leaf []byte // the candidate's name in the directory it is walked from
	// dirDev is the device of that directory, 0 when not known.
	dirDev uint64
	front  []*frontRead
	// loadsUnloaded: a front file names one of NameSpec.Unloaded, or
	// could not be read. Those entries are then content.
	loadsUnloaded bool
	q             quota
	entries       int64
	bytes         atomic.Int64
	partial       atomic.Bool
	out           []snapshot.Entry // the candidate's own entry, then top flattened
	outID         Ident            // the candidate directory's identity (Config.Idents)
	top           *seg             // what is under a directory candidate
	inflight      []*batch         // handed to the readers, oldest first
}

// take spends one entry of the quota; false means the walk must stop.
func (w *cwalk) take() bool {
	if w.entries >= w.q.entries || w.s.done() {
		w.partial.Store(true)
		return false
	}
	w.entries++
	if p := w.s.cfg.Progress; p != nil {
		p.Add(1)
	}
	return true
}

// reserve spends n bytes of the quota before a file is read. So a file is
// hashed whole or not at all.
func (w *cwalk) reserve(n int64) bool {
	if w.bytes.Add(n) > w.q.bytes {
		w.partial.Store(true)
		return false
	}
	return true
}

// stopped reports whether the walk must stop. Whatever stops it makes the
// observation partial. Work skipped because the deadline passed must never
// leave a manifest that looks complete. Found in review: subdirectories
// were skipped after a timeout with Partial unset. The hook then advised a
// change that had not happened, and stored the cut manifest.
func (w *cwalk) stopped() bool {
	if w.s.done() {
		w.partial.Store(true)
	}
	return w.partial.Load()
}

func anomalyEntry(path []byte, r anomaly.Reason) snapshot.Entry {
	return snapshot.Entry{Path: path, Kind: snapshot.Anomaly, Reason: r}
}

// observe classifies the candidate itself and walks it. A top-level link is
// followed on purpose (see arrive); its text is bound into the digest.
func (w *cwalk) observe(c *Candidate, dirfd int) {
	root := []byte{}
	if !w.take() {
		return
	}
	var want unix.Stat_t
	name := znameOf(w.leaf)
	if w.spec != nil && w.spec.NoFollow && w.link(dirfd, name) {
		return
	}
	nofollow, link, err := arrive(dirfd, name, &want, w.st.lbuf)
	if link != nil {
		c.Manifest.ViaLink, c.Manifest.Link = true, link
	}
	if err != nil {
		r := rootReason(err)
		if errors.Is(err, errLinkText) {
			r = openReason(err)
		}
		w.out = append(w.out, anomalyEntry(root, r))
		return
	}
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fd, st, r := openDirAt(dirfd, name, nofollow, &want)
		if r != 0 {
			w.out = append(w.out, anomalyEntry(root, r))
			return
		}
		d := newDirRef(fd, &st)
		defer d.release()
		c.Kind = KindDir
		if nofollow != 0 { // a candidate linked is stated through its link: no stamp of its own
			w.outID = w.dirIdent(fd, &st)
		}
		e, s := w.dir(d, root, 0, uint32(st.Mode)&07777)
		if e.Kind != 0 {
			w.out = append(w.out, e)
		}
		w.top = s
	case unix.S_IFREG:
		if w.spec != nil && w.spec.Extract != nil {
			w.extract(c, dirfd, name, nofollow == 0, &want)
			return
		}
		// A file candidate not reached through a link is taken from the
		// caches as a file of a directory candidate is: agents and
		// commands are hundreds of them (issue 34).
		var dev uint64
		if nofollow != 0 && (w.s.reuse != nil || w.s.fronts != nil) {
			dev = w.dirDev
			if dev == 0 {
				dev = devOf(dirfd)
			}
		}
		if w.spec != nil && w.spec.Front != nil && w.spec.FrontFile == "" {
			if dev != 0 {
				w.readFrontOn(dirfd, dev, name, false, nil, root)
			} else {
				w.readFront(dirfd, name, nofollow == 0, &want, root)
			}
		}
		e := snapshot.Entry{Path: root, Kind: snapshot.File}
		w.known(w.st.rd, dirfd, dev, name, nofollow == 0, &want, &e, nil)
		if e.Kind != 0 {
			if e.Kind == snapshot.File {
				c.Kind = KindFile
			}
			w.out = append(w.out, e)
		}
	default:
		w.out = append(w.out, anomalyEntry(root, anomaly.Special))
	}
}

// errLinkText: the candidate was a link when looked at, and its text
// could not be read. It changed in between.
var errLinkText = errors.New("walker: reading the candidate's link")

// arrive looks at the candidate name of dirfd, into want. Everything that
// reads a candidate reaches it so. A top-level link is followed on
// purpose: users link skills from a checkout, and Claude Code follows
// them. want is then its target, and nofollow is 0. The open that follows
// must prove its descriptor is want. Anything else is opened with
// nofollow, O_NOFOLLOW. With lbuf, a link's text is read into link before
// its target is looked at. A failure then wraps errLinkText.
func arrive(dirfd int, name zname, want *unix.Stat_t, lbuf []byte) (nofollow int, link []byte, err error) {
	if err := fstatat(dirfd, name.bytes(), want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, nil, err
	}
	if want.Mode&unix.S_IFMT != unix.S_IFLNK {
		return unix.O_NOFOLLOW, nil, nil
	}
	if lbuf != nil {
		if link, err = readlinkatZ(dirfd, name, lbuf); err != nil {
			return 0, nil, fmt.Errorf("%w: %w", errLinkText, err)
		}
	}
	return 0, link, fstatat(dirfd, name.bytes(), want, 0)
}
