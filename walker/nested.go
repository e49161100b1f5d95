package walker

import (
	"bytes"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// maxNestedDirs bounds the directories a scan keeps open to reach nested
// candidates (RootSpec.Depth). Past it the root has a Fanout anomaly.
const maxNestedDirs = 1024

// nested lists the candidates depth levels below the open directory fd,
// listed as names, named prefix/…. Each directory on the way is opened
// relative to its parent, without following a link. It is kept open for
// the walks. A link or special file on the way is a candidate of its own,
// recorded and never followed. A regular file there is not a candidate.
func (s *scanner) nested(r *Root, ri, fd int, names []dirent, prefix []byte, depth int, jobs *[]job, fds *[]int) {
	for _, d := range names {
		name := d.name.bytes()
		if prefix != nil {
			name = append(append(append([]byte{}, prefix...), '/'), name...)
		}
		if slices.Contains(r.Spec.Skip, string(name)) {
			continue
		}
		if depth == 0 {
			if kind, ok := s.selectCandidate(fd, d, false); ok {
				r.Candidates = append(r.Candidates, Candidate{Name: name, Kind: kind, InnerLinks: r.Spec.InnerLinks})
				*jobs = append(*jobs, job{dirfd: fd, root: ri, idx: len(r.Candidates) - 1, nested: d.name.bytes(), spec: r.Spec.nameSpec(name)})
			}
			continue
		}
		var want unix.Stat_t
		if err := fstatat(fd, d.name.bytes(), &want, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			r.Candidates = append(r.Candidates, unobserved(name, anomalyEntry([]byte{}, openReason(err))))
			continue
		}
		switch want.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
		case unix.S_IFREG:
			continue
		case unix.S_IFLNK:
			e := anomalyEntry([]byte{}, anomaly.Unstable)
			if target, err := readlinkatZ(fd, d.name, s.main.lbuf); err == nil {
				e = snapshot.Entry{Path: []byte{}, Kind: snapshot.Symlink, Target: target}
			}
			r.Candidates = append(r.Candidates, unobserved(name, e))
			continue
		default:
			r.Candidates = append(r.Candidates, unobserved(name, anomalyEntry([]byte{}, anomaly.Special)))
			continue
		}
		if len(*fds) >= maxNestedDirs {
			r.Anomalies = append(r.Anomalies, anomaly.Fanout)
			return
		}
		sub, _, reason := openDirAt(fd, d.name, unix.O_NOFOLLOW, &want)
		if reason != 0 {
			r.Candidates = append(r.Candidates, unobserved(name, anomalyEntry([]byte{}, reason)))
			continue
		}
		subnames, err := s.main.readDir(sub, s.cfg.MaxDirEntries)
		if err != nil {
			closeFD(sub)
			r.Candidates = append(r.Candidates, unobserved(name, anomalyEntry([]byte{}, listingReason(err))))
			continue
		}
		*fds = append(*fds, sub)
		r.Dirs = append(r.Dirs, name)
		s.nested(r, ri, sub, subnames, name, depth-1, jobs, fds)
	}
}

// unobserved is a candidate that is its one entry. It is a directory on
// the way to nested candidates that could not be walked into.
func unobserved(name []byte, e snapshot.Entry) Candidate {
	c := Candidate{Name: name, Manifest: snapshot.Manifest{Entries: []snapshot.Entry{e}}}
	finish(&c)
	return c
}

// gateName: every '/'-separated component of a (nested) name passes the
// display gate.
func gateName(name []byte) bool {
	for comp := range bytes.SplitSeq(name, []byte{'/'}) {
		if !anomaly.Gate(comp) {
			return false
		}
	}
	return true
}

// innerLink reports whether the link entry at path is relative and cannot
// leave the candidate. Its ".." components all lead, at most as many as
// the link is deep. They resolve from a directory the walk proved real.
// Nothing after them climbs. Each link passing this lands inside, so a
// chain of them does too.
func (c *Candidate) innerLink(path []byte) bool {
	var target []byte
	ents := c.Manifest.Entries
	if i, ok := slices.BinarySearchFunc(ents, path, func(e snapshot.Entry, p []byte) int { return snapshot.ComparePaths(e.Path, p) }); ok && ents[i].Kind == snapshot.Symlink {
		target = ents[i].Target
	}
	if len(target) == 0 || target[0] == '/' || len(path) == 0 {
		return false
	}
	up := bytes.Count(path, []byte{'/'}) // how deep the link's directory is
	climbing := true
	for comp := range bytes.SplitSeq(target, []byte{'/'}) {
		switch {
		case string(comp) == "..":
			if !climbing || up == 0 {
				return false
			}
			up--
		case len(comp) > 0 && string(comp) != ".":
			climbing = false
		}
	}
	return true
}
