package walker

import (
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// ScriptsPath is the manifest directory of the scripts a configuration
// runs (NameSpec.Scripts). Each is bound as ScriptsPath/<hash of its path>.
const ScriptsPath = "scripts"

// MaxScripts bounds the scripts bound into one candidate. Past it the
// candidate has a Fanout anomaly at ScriptsPath.
const MaxScripts = 64

// ScriptEntry is the manifest path of the script at path.
func ScriptEntry(path string) []byte {
	sum := blake3.Sum256([]byte(path))
	return []byte(ScriptsPath + "/" + hex.EncodeToString(sum[:16]))
}

// scripts binds the local files canon runs into the candidate. Each is
// reached as a root is: its directory through links, since it comes from
// the configuration. Then it is opened without following a link, with the
// arrival proof, and read and hashed whole. A missing one is no entry:
// when it appears, the digest changes. With NameSpec.Imports, the files
// each bound file names are bound in turn, to ImportDepth levels. Each
// file is bound once, so a cycle ends. All stay within MaxScripts.
func (w *cwalk) scripts(canon []byte) {
	w.out = append(w.out, w.bind(w.spec.Scripts(canon))...)
}

// bind observes the files level names (absolute paths) as scripts
// describes. With NameSpec.Imports it observes the files they name in
// turn. It returns their entries sorted.
func (w *cwalk) bind(level []string) []snapshot.Entry {
	seen := map[string]bool{}
	var ents []snapshot.Entry
	bound := 0
walk:
	for depth := 0; len(level) > 0; depth++ {
		var next []string
		for _, p := range slices.Compact(slices.Sorted(slices.Values(level))) {
			if seen[p] {
				continue
			}
			seen[p] = true
			if bound == MaxScripts {
				ents = append(ents, anomalyEntry([]byte(ScriptsPath), anomaly.Fanout))
				break walk
			}
			bound++
			if !w.take() {
				break walk
			}
			var data []byte
			var sink *[]byte
			if w.spec.Imports != nil && depth+1 < w.spec.ImportDepth {
				sink = &data
			}
			ents = append(ents, w.script(p, sink)...)
			if data != nil {
				next = append(next, w.spec.Imports(p, data)...)
			}
		}
		level = next
	}
	slices.SortFunc(ents, func(a, b snapshot.Entry) int { return snapshot.ComparePaths(a.Path, b.Path) })
	return ents
}

// outside binds the files NameSpec.Outside names into the sorted entries
// ents of the directory candidate name. They go at their ScriptEntry
// paths; with NameSpec.OutsideExtract, by their forms. An entry of the
// tree at one of those paths poses as the bound file. Both give way to a
// Badname anomaly there, so neither silently stands for the other.
func (w *cwalk) outside(name []byte, ents []snapshot.Entry, paths []string) []snapshot.Entry {
	bound := w.bindOutside(name, paths)
	if len(bound) == 0 {
		return ents
	}
	out := make([]snapshot.Entry, 0, len(ents)+len(bound))
	i, j := 0, 0
	for i < len(ents) || j < len(bound) {
		switch {
		case j == len(bound):
			out, i = append(out, ents[i]), i+1
		case i == len(ents):
			out, j = append(out, bound[j]), j+1
		default:
			switch c := snapshot.ComparePaths(ents[i].Path, bound[j].Path); {
			case c < 0:
				out, i = append(out, ents[i]), i+1
			case c > 0:
				out, j = append(out, bound[j]), j+1
			default:
				out = append(out, anomalyEntry(bound[j].Path, anomaly.Badname))
				i, j = i+1, j+1
			}
		}
	}
	return out
}

// ScriptTargetSuffix marks the entry of what a script that is a link
// points at. ScriptEntry(p) holds the link text, ScriptEntry(p)+suffix the
// target's content.
const ScriptTargetSuffix = "-target"

// script observes the file at the absolute path p. A link is followed
// once, as a top-level candidate is: its text is bound, and the file it
// reaches is opened with the arrival proof and hashed. sink, when set,
// receives the bytes hashed.
func (w *cwalk) script(p string, sink *[]byte) []snapshot.Entry {
	path := ScriptEntry(p)
	i := strings.LastIndexByte(p, '/')
	dir, base := p[:i+1], p[i+1:]
	if i < 0 || base == "" || base == "." || base == ".." {
		return nil
	}
	fd, err := openDirPath(dir)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		// Nothing is there to run or read: a missing folder, or a file where
		// a folder of the path would be. The client, reaching for it, finds
		// nothing either. When it appears, the digest changes.
		return nil
	}
	if err != nil {
		return []snapshot.Entry{anomalyEntry(path, rootReason(err))}
	}
	defer closeFD(fd)
	name := znameOf([]byte(base))
	var want unix.Stat_t
	if err := fstatat(fd, name.bytes(), &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return []snapshot.Entry{anomalyEntry(path, openReason(err))}
	}
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e := snapshot.Entry{Path: path, Kind: snapshot.File}
		w.known(w.st.rd, fd, devOf(fd), name, false, &want, &e, sink)
		if e.Kind == 0 {
			return nil
		}
		return []snapshot.Entry{e}
	case unix.S_IFLNK:
		target, err := readlinkatZ(fd, name, w.st.lbuf)
		if err != nil {
			return []snapshot.Entry{anomalyEntry(path, openReason(err))}
		}
		out := []snapshot.Entry{{Path: path, Kind: snapshot.Symlink, Target: target}}
		if e, ok := w.scriptTarget(fd, name, append(slices.Clip(path), ScriptTargetSuffix...), sink); ok {
			out = append(out, e)
		}
		return out
	}
	return []snapshot.Entry{anomalyEntry(path, anomaly.Special)}
}

// scriptTarget hashes what the link name of fd reaches. It looks through
// the link, then opens through it and proves the same file. A dangling
// link is no entry: when its target appears, the digest changes.
func (w *cwalk) scriptTarget(fd int, name zname, path []byte, sink *[]byte) (snapshot.Entry, bool) {
	if !w.take() {
		return snapshot.Entry{}, false
	}
	var want unix.Stat_t
	if err := fstatat(fd, name.bytes(), &want, 0); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return snapshot.Entry{}, false
		}
		return anomalyEntry(path, openReason(err)), true
	}
	if want.Mode&unix.S_IFMT != unix.S_IFREG {
		return anomalyEntry(path, anomaly.Special), true
	}
	e := snapshot.Entry{Path: path, Kind: snapshot.File}
	w.st.rd.file(w, fd, name, true, &want, &e, nil, sink)
	return e, e.Kind != 0
}
