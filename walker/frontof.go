package walker

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// Front is what a candidate's front file says, read alone. Canonical nil
// with Reason 0 means the candidate has no front file.
type Front struct {
	Canonical []byte
	// Reason is why the front file could not be read whole, or the first
	// reason the spec's Front gave. It is 0 when it was read cleanly.
	Reason anomaly.Reason
	// Skipped: the file was read whole but not parsed (FrontsIf).
	Skipped bool
}

// Fronts reads only the front file of each candidate names of spec: its
// NameSpec's Front and FrontFile. It reads with a walk's arrival proof.
// The candidate's own link is followed as a walk follows it. Its FrontFile
// is never reached through a link. A regular file is read whole and proved
// unchanged. It is how candidates name themselves, learnt without walking
// them. names are single entries of spec.Path; a nested name is answered
// Root.
func Fronts(spec RootSpec, names [][]byte) []Front { return FrontsIf(spec, names, nil, nil) }

// FrontsIf is Fronts that parses the front file of names[i] only when
// parse(i, data) says so. A file read but not parsed is Skipped. The read
// is cheap beside the parse: 64 KiB of list-shaped YAML takes
// milliseconds. A nil parse parses every file. With cache, a front file
// whose identity is unchanged since a walk parsed it is not read: what
// that walk's Front made of it is its Front, parsed.
func FrontsIf(spec RootSpec, names [][]byte, parse func(i int, data []byte) bool, cache *FrontCache) []Front {
	out, _ := FrontsBy(spec, names, parse, cache, time.Time{})
	return out
}

// FrontsBy is FrontsIf that reads no front file once deadline has passed
// (none when zero). read is how many of names it answered, the first
// ones; the Fronts past them are zero. The clock is read before each
// name, and the root opened once: a deadline cut in chunks would open
// the root once a chunk.
func FrontsBy(spec RootSpec, names [][]byte, parse func(i int, data []byte) bool, cache *FrontCache, deadline time.Time) (out []Front, read int) {
	out = make([]Front, len(names))
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return out, 0
	}
	rootfd, err := openDirPath(spec.Path)
	if err != nil {
		for i := range out {
			out[i].Reason = rootReason(err)
		}
		return out, len(out)
	}
	defer closeFD(rootfd)
	var root unix.Stat_t
	if fstat(rootfd, &root) != nil {
		root.Dev = 0
	}
	var buf []byte // reused for the files not parsed
	var tags frontTags
	for i, n := range names {
		if i > 0 && !deadline.IsZero() && !time.Now().Before(deadline) {
			return out, i
		}
		if f, ok := frontAt(rootfd, uint64(root.Dev), spec.nameSpec(n), n, cache, &tags); ok {
			out[i] = f
			continue
		}
		var keep func([]byte) bool
		if parse != nil {
			keep = func(data []byte) bool { return parse(i, data) }
		}
		out[i] = frontOf(rootfd, spec.nameSpec(n), n, keep, &buf)
	}
	return out, len(out)
}

// frontAt is the Front of the directory candidate name of rootfd (on
// device dev) from one statx of name/FrontFile, when that says it: no such
// file (ENOENT: the candidate is gone, or a directory without one, or a
// link to nothing, as frontOf finds them), or a file a walk parsed,
// unchanged (FrontCache). The candidate is reached through a link as a
// walk reaches it. Else frontOf reads it. tags are the cache's tags of
// the specs asked so far.
func frontAt(rootfd int, dev uint64, ns *NameSpec, name []byte, cache *FrontCache, tags *frontTags) (Front, bool) {
	if ns == nil || ns.Front == nil || ns.FrontFile == "" || strings.Contains(ns.FrontFile, "/") || dev == 0 ||
		len(name) == 0 || string(name) == "." || string(name) == ".." || bytes.IndexByte(name, '/') >= 0 || bytes.IndexByte(name, 0) >= 0 {
		return Front{}, false
	}
	var id hashRec
	switch err := identifyErr(rootfd, znameOf([]byte(string(name)+"/"+ns.FrontFile)), &id); {
	case errors.Is(err, unix.ENOENT):
		return Front{}, true
	case err != nil:
		return Front{}, false
	}
	return cache.front(rootfd, dev, &id, ns, tags)
}

func frontOf(rootfd int, ns *NameSpec, name []byte, parse func([]byte) bool, buf *[]byte) Front {
	if ns == nil || ns.Front == nil {
		return Front{}
	}
	if len(name) == 0 || bytes.IndexByte(name, '/') >= 0 {
		return Front{Reason: anomaly.Root}
	}
	z := znameOf(name)
	var want unix.Stat_t
	nofollow, _, err := arrive(rootfd, z, &want, nil)
	switch {
	case errors.Is(err, unix.ENOENT):
		return Front{} // gone: no candidate, no name
	case err != nil:
		return Front{Reason: rootReason(err)}
	}
	switch want.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if ns.FrontFile == "" {
			return Front{}
		}
		fd, _, r := openDirAt(rootfd, z, nofollow, &want)
		if r != 0 {
			return Front{Reason: r}
		}
		defer closeFD(fd)
		return readFrontFile(fd, znameOf([]byte(ns.FrontFile)), false, nil, ns, parse, buf)
	case unix.S_IFREG:
		if ns.FrontFile != "" {
			return Front{}
		}
		return readFrontFile(rootfd, z, nofollow == 0, &want, ns, parse, buf)
	}
	return Front{Reason: anomaly.Special}
}

// readFrontFile reads name of dirfd whole (readWhole), saying why when it
// cannot. It parses what it read unless parse says not to. With parse
// set, the file is read into *buf, kept for the next one.
func readFrontFile(dirfd int, name zname, follow bool, want *unix.Stat_t, ns *NameSpec, parse func([]byte) bool, buf *[]byte) Front {
	data, missing, r := readWholeInto(dirfd, name, follow, want, maxFrontRead, *buf)
	if missing || r != 0 {
		return Front{Reason: r}
	}
	if parse != nil {
		keep := parse(data)
		*buf = data[:0]
		if !keep {
			return Front{Skipped: true}
		}
		data = bytes.Clone(data) // the parse may keep it
	}
	canon, rs := ns.Front(name.bytes(), data)
	f := Front{Canonical: canon}
	if len(rs) > 0 {
		f.Reason = rs[0]
	}
	return f
}
