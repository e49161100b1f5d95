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
// runs (NameSpec.Scripts): each is bound as ScriptsPath/<hash of its path>.
const ScriptsPath = "scripts"

// maxScripts bounds the scripts bound into one candidate; past it the
// candidate has a Fanout anomaly at ScriptsPath.
const maxScripts = 64

// ScriptEntry is the manifest path of the script at path.
func ScriptEntry(path string) []byte {
	sum := blake3.Sum256([]byte(path))
	return []byte(ScriptsPath + "/" + hex.EncodeToString(sum[:16]))
}

// scripts binds the local files canon runs into the candidate: each is
// reached as a root is (its directory through links: it comes from the
// configuration), then opened without following a link, with the arrival
// proof, read and hashed whole. A missing one is no entry: when it
// appears, the digest changes.
func (w *cwalk) scripts(canon []byte) {
	paths := slices.Compact(slices.Sorted(slices.Values(w.spec.Scripts(canon))))
	var ents []snapshot.Entry
	if len(paths) > maxScripts {
		paths = paths[:maxScripts]
		ents = append(ents, anomalyEntry([]byte(ScriptsPath), anomaly.Fanout))
	}
	for _, p := range paths {
		if !w.take() {
			break
		}
		if e, ok := w.script(p); ok {
			ents = append(ents, e)
		}
	}
	slices.SortFunc(ents, func(a, b snapshot.Entry) int { return snapshot.ComparePaths(a.Path, b.Path) })
	w.out = append(w.out, ents...)
}

// script observes the file at the absolute path p.
func (w *cwalk) script(p string) (snapshot.Entry, bool) {
	path := ScriptEntry(p)
	i := strings.LastIndexByte(p, '/')
	dir, base := p[:i+1], p[i+1:]
	if i < 0 || base == "" || base == "." || base == ".." {
		return snapshot.Entry{}, false
	}
	fd, err := openDirPath(dir)
	if errors.Is(err, unix.ENOENT) {
		return snapshot.Entry{}, false
	}
	if err != nil {
		return anomalyEntry(path, rootReason(err)), true
	}
	defer closeFD(fd)
	name := znameOf([]byte(base))
	var want unix.Stat_t
	if err := fstatat(fd, name.bytes(), &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return snapshot.Entry{}, false
		}
		return anomalyEntry(path, openReason(err)), true
	}
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e := snapshot.Entry{Path: path, Kind: snapshot.File}
		w.st.rd.file(w, fd, name, false, &want, &e)
		return e, e.Kind != 0
	case unix.S_IFLNK:
		target, err := readlinkatZ(fd, name, w.st.lbuf)
		if err != nil {
			return anomalyEntry(path, openReason(err)), true
		}
		return snapshot.Entry{Path: path, Kind: snapshot.Symlink, Target: target}, true
	}
	return anomalyEntry(path, anomaly.Special), true
}
