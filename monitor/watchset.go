package monitor

import (
	"errors"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// The reasons watching is not whole, as the heartbeat tells them.
const (
	degradedOverflow = "event queue overflow"
	degradedLimit    = "watch limit reached: periodic rescans instead of events"
	degradedDotPath  = "a root path has . or .. components: watches by path may land elsewhere, periodic rescans instead"
)

// watchSet is the directories watched, each with the identity it had
// when its watch was added.
type watchSet struct {
	w       Watcher
	log     zerolog.Logger
	ids     map[string]fileID // what each watch was added on, by path
	shared  map[fileID]bool   // directories watched under several paths
	limited bool              // the last sync hit the watch limits
}

func newWatchSet(w Watcher, log zerolog.Logger) watchSet {
	return watchSet{w: w, log: log, ids: map[string]fileID{}}
}

// rewatch makes the watch set exactly what the roots need (wanted). A
// directory is watched only after the walk that proved it. So a candidate
// with a newly watched directory is walked again after the debounce. The
// result says whether a root or a directory above one was newly watched:
// the caller then walks everything again.
func (d *daemon) rewatch() (rootsNew bool) {
	for _, p := range d.watches.sync(d.wanted()) {
		ks := d.candidatesOf(p)
		for _, k := range ks {
			d.schedule(k)
		}
		if len(ks) == 0 || d.rootAt(p) != nil {
			rootsNew = true
		}
	}
	switch {
	case slices.ContainsFunc(d.roots, func(r claude.Root) bool { return dotted(r.Path) }):
		d.degraded = degradedDotPath
	case d.watches.limited:
		d.degraded = degradedLimit
	case d.degraded == degradedLimit || d.degraded == degradedDotPath:
		d.degraded = ""
	}
	return rootsNew
}

// wanted is the watch set the roots need. It holds the nearest existing
// directory above each root: a root, or the folders leading to it, can be
// created or deleted. Each root observed without a root anomaly is in it,
// with every directory the walker proved there.
func (d *daemon) wanted() map[string]bool {
	want := map[string]bool{}
	for _, r := range d.roots {
		want[existingAbove(r.Path)] = true
		o := d.obs[r.Path]
		if o == nil || o.Missing || len(o.Anomalies) > 0 {
			continue
		}
		want[r.Path] = true
		for _, c := range o.Candidates {
			for _, e := range c.Manifest.Entries {
				if e.Kind != snapshot.Dir {
					continue
				}
				p := r.Path + "/" + string(c.Name)
				if len(e.Path) > 0 {
					p += "/" + string(e.Path)
				}
				want[p] = true
			}
		}
		// A new plugin version appears in the directories above nested
		// candidates (a plugin's marketplace and plugin).
		for _, dir := range o.Dirs {
			want[r.Path+"/"+string(dir)] = true
		}
	}
	for f := range d.bindOutside() {
		want[f[:strings.LastIndexByte(f, '/')]] = true
	}
	return want
}

// bindOutside maps each file bound into a candidate from outside it to
// those candidates, in d.bound. It returns d.bound. A walk reads them as
// part of the candidate, so the daemon watches their folders: an edit of
// a plugin's marketplace.json entry is that plugin's walk, as a walk by
// the hook sees it (TestTheDaemonAndAWalkAreTheSameObservation).
func (d *daemon) bindOutside() map[string][]candKey {
	d.bound = map[string][]candKey{}
	for _, r := range d.roots {
		o := d.obs[r.Path]
		if o == nil {
			continue
		}
		for _, c := range o.Candidates {
			for _, f := range r.BoundOutside(c.Name) {
				if strings.LastIndexByte(f, '/') > 0 {
					d.bound[f] = append(d.bound[f], candKey{root: r.Path, name: string(c.Name)})
				}
			}
		}
	}
	return d.bound
}

// scheduleAliases walks the candidates that see an event's directory
// under another path. inotify keeps one watch per directory, and fsnotify
// names its events after only one of its paths
// (TestDaemonWalksEveryCandidateThatNamesAChangedDirectory).
func (d *daemon) scheduleAliases(name string) {
	for _, p := range d.watches.aliases(name) {
		for _, k := range d.candidatesOf(p) {
			d.schedule(k)
		}
	}
}

// sync makes the watch set exactly want. It returns the paths newly
// watched.
func (s *watchSet) sync(want map[string]bool) (added []string) {
	s.prune(want)
	s.limited = false
	added = s.add(want)
	s.shared = sharedIDs(s.ids)
	return added
}

// aliases are the other paths under which the directory name, or its
// parent, is watched.
func (s *watchSet) aliases(name string) []string {
	if len(s.shared) == 0 {
		return nil
	}
	var out []string
	for _, dir := range []string{name, pathname.Parent(name)} {
		id, ok := s.ids[dir]
		if !ok || !s.shared[id] {
			continue
		}
		for p, pid := range s.ids {
			if pid == id && p != dir {
				out = append(out, p)
			}
		}
	}
	return out
}

// prune drops every watch that is no longer wanted or no longer watches
// what is at its path. fsnotify drops the watch of a directory deleted or
// moved. A path can come to name another directory: a swap, a retargeted
// symlinked root (TestDaemonWatchesARootSwappedForAnotherDirectory).
func (s *watchSet) prune(want map[string]bool) {
	// fsnotify lists one path per watched directory. Two paths of one
	// directory (skills/a -> b) share its watch, and neither is stale.
	live := map[string]bool{}
	liveIDs := map[fileID]bool{}
	for _, p := range s.w.WatchList() {
		live[p] = true
		if id, ok := s.ids[p]; ok {
			liveIDs[id] = true
		}
	}
	for p, id := range s.ids {
		if now, err := idOf(p); !want[p] || !liveIDs[id] || err != nil || now != id {
			if live[p] {
				s.w.Remove(p)
			}
			delete(s.ids, p)
		}
	}
}

// add watches every wanted path not watched yet and returns those it
// watched. Hitting the watch limit sets s.limited.
func (s *watchSet) add(want map[string]bool) (added []string) {
	for p := range want {
		if _, ok := s.ids[p]; ok {
			continue
		}
		// The identity is taken before the watch. If the path changes in
		// between, the next sync sees a mismatch and watches again.
		id, err := idOf(p)
		if err == nil {
			err = s.w.Add(p)
		}
		switch {
		case err == nil:
			s.ids[p] = id
			added = append(added, p)
		case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EMFILE):
			if !s.limited {
				s.log.Warn().Err(err).Msg("watch limit reached: falling back to periodic rescans (raise fs.inotify.max_user_watches)")
			}
			s.limited = true
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			// Gone since the walk: the event that removed it, or the
			// watch above it, brings a rescan.
		default:
			s.log.Warn().Err(err).Msg("cannot watch a directory")
			s.limited = true
		}
	}
	return added
}

// sharedIDs are the directories watched under several paths.
func sharedIDs(watched map[string]fileID) map[fileID]bool {
	seen := map[fileID]bool{}
	shared := map[fileID]bool{}
	for _, id := range watched {
		if seen[id] {
			shared[id] = true
		}
		seen[id] = true
	}
	return shared
}

// fileID is a directory's identity as a watch on its path sees it.
// Symbolic links are followed, as inotify follows them.
type fileID struct{ dev, ino uint64 }

func idOf(p string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileID{}, err
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// existingAbove is the nearest existing directory above root. That is
// its parent, or further up while the parent does not exist yet
// (TestDaemonSeesARootMadeUnderAProjectWithoutClaudeDir).
func existingAbove(root string) string {
	p := pathname.Parent(root)
	for p != "/" {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return p
		}
		p = pathname.Parent(p)
	}
	return p
}

// dotted reports whether a path has a "." or ".." component. fsnotify
// cleans its paths lexically, which through a symlink is not where the
// walker went. Such a root is never whole
// (TestARootWithDotComponentsIsNeverWhole).
func dotted(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == "." || c == ".." {
			return true
		}
	}
	return false
}
