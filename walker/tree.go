package walker

import (
	"errors"
	"fmt"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// TreeFile is one file ReadTree read: a regular file's bytes. For a link
// its caller asked for, it is the link's target text.
type TreeFile struct {
	Path string // relative to the tree, "/"-separated
	Data []byte
	Link bool
}

// TreeLimits bound what ReadTree reads. Past any of them it stops with a
// reason, having read nothing more.
type TreeLimits struct {
	MaxFiles int   // files and links, all told
	MaxBytes int64 // their bytes, all told
	MaxDepth int   // directories below the tree
}

// TreeConfig says what ReadTree passes over and which links it reads.
type TreeConfig struct {
	Limits TreeLimits
	// Skip drops a name (a file's or a directory's, by its path) unread.
	Skip func(path string) bool
	// SkipDir drops a directory, by its path, unread. A file of that path
	// is read.
	SkipDir func(path string) bool
	// Link says whether a symbolic link at path is read as its target. Any
	// other link is a Symlink reason.
	Link func(path string) bool
}

// ReadTree reads every regular file below the directory dir. It serves a
// digest another program computes over a folder's files: Claude Code's
// copyHash. dir is opened as given; below it nothing is followed. Each
// directory is opened relative to its parent's descriptor with O_NOFOLLOW,
// and proven the one listed. Each file is read as a walk reads it
// (readWhole). Some names are a reason, and the files are then nil. Such
// is a name that is not a directory, a regular file or a link Link admits
// (Symlink, Special). So is a limit passed: Fanout for files, Oversize for
// bytes, Depth. So are a file that changed while read (Unstable, Swapped)
// and one that cannot be read (Unreadable). The files come in the order
// they were listed. An error means dir could not be opened.
func ReadTree(dir string, cfg TreeConfig) ([]TreeFile, anomaly.Reason, error) {
	fd, err := openDirPath(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("walker: opening %s: %w", anomaly.QuoteBytes([]byte(dir)), err)
	}
	t := &tree{cfg: cfg, st: newWState()}
	r := t.dir(fd, "", 0)
	closeFD(fd)
	if r != 0 {
		return nil, r, nil
	}
	return t.files, 0, nil
}

type tree struct {
	cfg   TreeConfig
	st    *wstate
	files []TreeFile
	bytes int64
}

func (t *tree) dir(fd int, prefix string, depth int) anomaly.Reason {
	ents, err := t.st.readDir(fd, t.cfg.Limits.MaxFiles+1)
	switch {
	case errors.Is(err, errFanout):
		return anomaly.Fanout
	case err != nil:
		return anomaly.Unreadable
	}
	for _, e := range ents {
		path := string(e.name.bytes())
		if prefix != "" {
			path = prefix + "/" + path
		}
		if t.cfg.Skip != nil && t.cfg.Skip(path) {
			continue
		}
		var st unix.Stat_t
		if err := fstatat(fd, e.name.bytes(), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return openReason(err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if t.cfg.SkipDir != nil && t.cfg.SkipDir(path) {
				continue
			}
			if depth >= t.cfg.Limits.MaxDepth {
				return anomaly.Depth
			}
			sub, _, r := openDirAt(fd, e.name, unix.O_NOFOLLOW, &st)
			if r != 0 {
				return r
			}
			r = t.dir(sub, path, depth+1)
			closeFD(sub)
			if r != 0 {
				return r
			}
			continue
		case unix.S_IFLNK:
			if t.cfg.Link == nil || !t.cfg.Link(path) {
				return anomaly.Symlink
			}
			target, err := readlinkatZ(fd, e.name, t.st.lbuf)
			if err != nil {
				return anomaly.Unreadable
			}
			if r := t.add(TreeFile{Path: path, Data: target, Link: true}); r != 0 {
				return r
			}
			continue
		case unix.S_IFREG:
		default:
			return anomaly.Special
		}
		if st.Size > t.cfg.Limits.MaxBytes-t.bytes {
			return anomaly.Oversize
		}
		data, missing, r := readWhole(fd, e.name, false, &st, t.cfg.Limits.MaxBytes-t.bytes)
		switch {
		case missing:
			return anomaly.Unstable
		case r != 0:
			return r
		}
		if r := t.add(TreeFile{Path: path, Data: data}); r != 0 {
			return r
		}
	}
	return 0
}

func (t *tree) add(f TreeFile) anomaly.Reason {
	t.bytes += int64(len(f.Data))
	switch {
	case len(t.files) >= t.cfg.Limits.MaxFiles:
		return anomaly.Fanout
	case t.bytes > t.cfg.Limits.MaxBytes:
		return anomaly.Oversize
	}
	t.files = append(t.files, f)
	return 0
}
