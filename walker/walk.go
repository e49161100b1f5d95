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
	ents, err := w.s.readDir(fd)
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
	var files []int
	for i := range ents {
		if !w.take() {
			ents, res = ents[:i], res[:i]
			break
		}
		d := &ents[i]
		e := &res[i]
		e.Path = join(path, d.name)
		typ := d.typ
		if typ == unix.DT_UNKNOWN { // some filesystems do not fill d_type
			var st unix.Stat_t
			if err := fstatat(fd, d.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
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
			target, err := readlinkat(fd, d.name, w.s.lbuf)
			if err != nil {
				// EINVAL: no longer a link.
				*e = anomalyEntry(e.Path, openReason(err))
				continue
			}
			e.Kind, e.Target = snapshot.Symlink, target
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
func (w *cwalk) subdir(parent int, name, path []byte, depth int) {
	if depth >= w.s.cfg.MaxDepth {
		w.out = append(w.out, anomalyEntry(path, anomaly.Depth))
		return
	}
	if w.stopped() {
		return
	}
	fd, err := openat(parent, name, openDir|unix.O_NOFOLLOW)
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

func join(dir, name []byte) []byte {
	if len(dir) == 0 {
		return append(make([]byte, 0, len(name)), name...)
	}
	p := make([]byte, 0, len(dir)+1+len(name))
	p = append(p, dir...)
	p = append(p, '/')
	return append(p, name...)
}
