package walker

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Extract reduces a configuration file's exact bytes to what the
// candidate's digest covers, a canonical form. The bytes are as the walker
// read them, with its arrival proof. Or it gives the reasons it could not;
// at most the first is recorded. It never opens anything itself.
type Extract func(name, data []byte) (canon []byte, reasons []anomaly.Reason)

// NameSpec says how one candidate is observed.
type NameSpec struct {
	// Name is the candidate looked up in a root of Names.
	Name string
	// NoFollow: a candidate that is a link is recorded as one, never
	// followed. The record is its text and a Symlink anomaly. A configuration
	// file is read where it is, never through a link out of its directory.
	NoFollow bool
	// Extract, when set, reads a regular file whole, within Limit bytes
	// (0: MaxFileBytes). The manifest holds its canonical form.
	Extract Extract
	Limit   int64
	// Front, when set, reads the candidate's FrontFile whole: the candidate
	// itself when it is a file. Its canonical form becomes the candidate's.
	// Its reasons become anomalies at that file. The digest still covers the
	// file's bytes. This is the frontmatter of skills, agents and commands.
	Front     Extract
	FrontFile string
	// FrontMore are more files below a directory candidate, read as FrontFile
	// is. FrontRefs names, from a front file's path and form, files below the
	// candidate it configures. Those are read too: one level, never their
	// refs. FrontJoin makes the candidate's form of every front file read, in
	// the order read. nil keeps FrontFile's alone. Front is called with the
	// file's path below the candidate.
	FrontMore []string
	FrontRefs func(path string, canon []byte) []string
	FrontJoin func(paths []string, canons [][]byte) []byte
	// FrontTag, when set, names Front: what it made of a front file's bytes
	// depends on them alone (and on the path it is given and Unloaded).
	// Then a walk with Config.Fronts reuses what it made of a file whose
	// identity is unchanged. Two Fronts that differ never share a tag.
	FrontTag string
	// Scripts, when set, lists the absolute paths of the local files the
	// canonical form runs. Their content is bound into the candidate.
	Scripts func(canon []byte) []string
	// Outside, when set, lists the absolute paths of files outside a
	// directory candidate that the client reads as part of it. The candidate
	// is named by its name in the root. An example is a plugin's
	// marketplace.json entry. Their content is bound into the candidate as
	// Scripts' files are.
	Outside func(name []byte) []string
	// OutsideExtract, when set, reduces a file Outside named to what the
	// candidate name reads of it. It gets the path and the bytes hashed. An
	// example is a plugin's own entry of a marketplace.json. The manifest
	// holds the form's hash. So what the candidate does not read is no change
	// of it. The form joins the candidate's as a front file at the bound path
	// (FrontJoin). ok false binds the file's bytes.
	OutsideExtract func(name []byte, path string, data []byte) (canon []byte, ok bool)
	// Imports, when set, lists the files a bound file at path names in turn:
	// an instruction file's imports' own imports. Those are bound too, to
	// ImportDepth levels of Scripts' files (1: Scripts' alone).
	Imports     func(path string, data []byte) []string
	ImportDepth int
	// Noise are paths in a directory candidate left out of its manifest:
	// "tsconfig.json", ".claude-plugin/types/tsconfig.json". They are
	// bookkeeping the client writes there and never loads. It is a named,
	// justified list; anything else there is content.
	Noise []string
	// Unloaded are entries at the top of a directory candidate the client
	// never loads unless the candidate names them: ".git" of a plugin.
	// They are left out of its manifest unless a front file read holds one
	// of their names, or could not be read. Then they are content. So a
	// hook running a script under .git/ binds it.
	Unloaded []string
}

// noise reports whether the entry name of the directory at path, below
// the candidate, is one of Noise.
func (n *NameSpec) noise(path, name []byte) bool {
	for _, p := range n.Noise {
		if len(p) == len(path)+len(name)+min(len(path), 1) && strings.HasSuffix(p, string(name)) &&
			(len(path) == 0 || p[len(path)] == '/' && strings.HasPrefix(p, string(path))) {
			return true
		}
	}
	return false
}

// ContentPath is the manifest path of the raw bytes of a file whose
// Extract failed. The digest then covers every byte of it.
const ContentPath = "content"

// nameSpec is how the candidate name of the root is observed.
func (r *RootSpec) nameSpec(name []byte) *NameSpec {
	for i := range r.Names {
		if r.Names[i].Name == string(name) {
			return &r.Names[i]
		}
	}
	return r.Each
}

// lookup finds the named candidates of the open directory fd without
// listing it. A missing name is no candidate. Any other failure to look is
// one, reported when it is observed.
func lookup(fd int, names []NameSpec) []dirent {
	var out []dirent
	for _, n := range names {
		var st unix.Stat_t
		z := znameOf([]byte(n.Name))
		err := fstatat(fd, z.bytes(), &st, unix.AT_SYMLINK_NOFOLLOW)
		switch {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			continue
		case err != nil:
			out = append(out, dirent{name: z, typ: fs.ModeIrregular})
		default:
			out = append(out, dirent{name: z, typ: safefile.ModeType(uint32(st.Mode))})
		}
	}
	slices.SortFunc(out, func(a, b dirent) int { return bytes.Compare(a.name.bytes(), b.name.bytes()) })
	return slices.CompactFunc(out, func(a, b dirent) bool { return bytes.Equal(a.name, b.name) })
}

// link records the candidate as a link when it is one. It reports whether
// it was.
func (w *cwalk) link(dirfd int, name zname) bool {
	var st unix.Stat_t
	if err := fstatat(dirfd, name.bytes(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return false
	}
	target, err := readlinkatZ(dirfd, name, w.st.lbuf)
	if err != nil {
		w.out = append(w.out, anomalyEntry([]byte{}, openReason(err)))
		return true
	}
	w.out = append(w.out, snapshot.Entry{Path: []byte{}, Kind: snapshot.Symlink, Target: target})
	return true
}

// extract observes the regular file candidate name of dirfd through
// w.spec.Extract. The manifest holds the canonical form's hash. So a
// change the extract does not keep is no change: a theme, a reordered key.
// When the extract fails, the candidate has its reason. The raw bytes are
// then bound at ContentPath.
func (w *cwalk) extract(c *Candidate, dirfd int, name zname, follow bool, want *unix.Stat_t) {
	root := []byte{}
	fd, st, reason := openRegular(dirfd, name, follow, want)
	if reason != 0 {
		w.out = append(w.out, anomalyEntry(root, reason))
		return
	}
	defer closeFD(fd)
	c.Kind = KindFile
	limit := w.s.cfg.MaxFileBytes
	if w.spec.Limit > 0 {
		limit = min(limit, w.spec.Limit)
	}
	if st.Size > limit {
		w.out = append(w.out, anomalyEntry(root, anomaly.Oversize))
		return
	}
	if !w.reserve(st.Size) {
		return
	}
	data, reason := readAll(fd, &st)
	if reason != 0 {
		w.out = append(w.out, anomalyEntry(root, reason))
		return
	}
	canon, rs := w.spec.Extract(c.Name, data)
	mode := uint32(st.Mode) & 07777
	c.Canonical = canon
	if len(rs) == 0 && canon != nil {
		sum := blake3.Sum256(canon)
		// The form is the entry's content: kept, a restore can write it back.
		if keep := w.s.cfg.Keep; keep != nil && int64(len(canon)) <= w.s.keepMax {
			keep.Keep(sum, canon)
		}
		w.out = append(w.out, snapshot.Entry{Path: root, Kind: snapshot.File, Size: int64(len(canon)), Mode: mode, Hash: sum})
	} else {
		r := anomaly.Unparsable
		if len(rs) > 0 && rs[0].Valid() {
			r = rs[0]
		}
		w.out = append(w.out, anomalyEntry(root, r),
			snapshot.Entry{Path: []byte(ContentPath), Kind: snapshot.File, Size: int64(len(data)), Mode: mode, Hash: blake3.Sum256(data)})
	}
	if canon != nil && w.spec.Scripts != nil {
		w.scripts(canon)
	}
}

// readAll reads the open regular file fd, which fstat described as st,
// whole. It reads exactly st.Size bytes. A second fstat proves it did not
// change meanwhile, else Unstable.
func readAll(fd int, st *unix.Stat_t) ([]byte, anomaly.Reason) { return readAllInto(fd, st, nil) }

// readAllInto is readAll into buf when it is large enough.
func readAllInto(fd int, st *unix.Stat_t, buf []byte) ([]byte, anomaly.Reason) {
	if int64(cap(buf)) < st.Size+1 {
		buf = make([]byte, st.Size+1)
	}
	buf = buf[:st.Size+1]
	n := 0
	for n < len(buf) {
		m, err := read(fd, buf[n:])
		if err != nil {
			return nil, anomaly.Unreadable
		}
		if m == 0 {
			break
		}
		n += m
	}
	var after unix.Stat_t
	if int64(n) != st.Size || fstat(fd, &after) != nil {
		return nil, anomaly.Unstable
	}
	if after.Size != st.Size || after.Mtim != st.Mtim || after.Ctim != st.Ctim {
		return nil, anomaly.Unstable
	}
	return buf[:n], 0
}
