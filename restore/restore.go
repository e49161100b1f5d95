// Package restore puts a kept version of a candidate back in place. It
// never writes into a tree it has not proven: the target is built beside
// the candidate under the proven root's descriptor (openat, O_EXCL,
// O_NOFOLLOW), synced, swapped in with one atomic exchange, and the
// displaced tree is moved into quarantine, never deleted. A crash at any
// step leaves the old or the new candidate whole in place and the other in
// the staging directory or in quarantine.
package restore

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/content"
	"github.com/skillwire/skillwire/history"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// Refusals (nothing was written in the watched tree) and failures.
var (
	// ErrChanged: the candidate is no longer what the preview showed.
	ErrChanged = errors.New("the candidate changed since the preview")
	// ErrNotRestorable: the target version is not restorable (an anomaly,
	// an oversize file, or content that was never kept).
	ErrNotRestorable = errors.New("the target version is not restorable")
	// ErrIncomplete: the candidate could not be fully observed, or an
	// object of the target is missing.
	ErrIncomplete = errors.New("incomplete")
	// ErrSymlink: a component of the candidate's path is a symbolic link.
	ErrSymlink = errors.New("a component of the candidate's path is a symbolic link")
	// ErrCorrupt: an object of the target failed verification.
	ErrCorrupt = errors.New("a kept object is corrupt")
	// ErrUnsupported: the system has no atomic exchange of two names.
	ErrUnsupported = errors.New("this system cannot exchange two directories atomically")
)

// Steps of a restore, in order, as the fault-injection hook names them.
const (
	StepBuilding    = "building"    // one file of the target is written in staging
	StepStaged      = "staged"      // the target is built and synced beside the candidate
	StepExchanged   = "exchanged"   // the target is in place, the old tree at the staging name
	StepQuarantined = "quarantined" // the old tree is in quarantine
)

// testHookStep, set by tests, runs after each step: a test kills the
// process there and checks the tree.
var testHookStep func(step string)

// renameat moves the displaced tree into the state directory's quarantine;
// a test makes it fail as across filesystems.
var renameat = unix.Renameat

// StagePrefix starts the name of a staging directory beside the candidate;
// one left by a crash holds the tree that was not in place.
const StagePrefix = ".skillwire-restore-"

// QuarantineDir is the quarantine inside the state directory.
const QuarantineDir = "quarantine"

// Request is one restore.
type Request struct {
	ID   string
	Root claude.Root // its Path is the candidate's parent directory
	Name []byte      // the candidate's name in Root
	// Current is the candidate as observed for the preview; Expect, when
	// set, the digest the person saw.
	Current *walker.Candidate
	Expect  *snapshot.Hash
	Target  *baseline.Version
	Content history.Content // the target's file contents
	// StateDir holds the quarantine; Walk re-observes the candidate just
	// before the exchange.
	StateDir string
	Walk     walker.Config
	Now      time.Time

	data map[snapshot.Hash][]byte // the target's content, once read
}

// Result is a finished restore.
type Result struct {
	Quarantine string // where the displaced tree is
	// Beside: the quarantine is beside the root, not in the state
	// directory (which is on another filesystem).
	Beside  bool
	Changes []snapshot.Change // from the displaced tree to the target
}

// Check refuses a request before anything is written: a changed, partial
// or linked candidate, an unrestorable target, a symbolic link on the path.
func Check(r *Request) error {
	c := r.Current
	switch {
	case !canExchange:
		return ErrUnsupported
	case r.Expect != nil && (c.Partial() || c.Digest != *r.Expect):
		return fmt.Errorf("%w: its digest is now %s", ErrChanged, c.Digest)
	case c.Partial():
		return fmt.Errorf("%w: the candidate could not be fully observed", ErrIncomplete)
	case c.Manifest.ViaLink:
		return fmt.Errorf("%w: the candidate itself", ErrSymlink)
	case !r.Target.Restorable || len(r.Target.Manifest.Anomalies()) > 0 || r.Target.Manifest.Partial:
		return fmt.Errorf("%w: %s", ErrNotRestorable, r.Target.Digest)
	case len(r.Target.Manifest.Entries) == 0:
		return fmt.Errorf("%w: %s holds nothing", ErrNotRestorable, r.Target.Digest)
	}
	return nil
}

// Run restores r.Target in place of the candidate. Before the exchange it
// writes only the staging directory, which it removes on failure; after
// the exchange nothing is ever removed.
func Run(r *Request) (*Result, error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	// Every object is read and verified before anything is written.
	data := make(map[snapshot.Hash][]byte)
	r.data = data
	for _, e := range r.Target.Manifest.Entries {
		if e.Kind != snapshot.File {
			continue
		}
		if _, ok := data[e.Hash]; ok {
			continue
		}
		b, ok, err := r.Content(e.Hash)
		switch {
		case errors.Is(err, content.ErrCorrupt):
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		case err != nil:
			return nil, err
		case !ok:
			return nil, fmt.Errorf("%w: the content of %s is not kept", ErrIncomplete, e.Hash)
		}
		data[e.Hash] = b
	}
	rootfd, err := openNoLinks(r.Root.Path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(rootfd)
	name := string(r.Name)
	stage := StagePrefix + random()
	if err := build(rootfd, stage, &r.Target.Manifest, data); err != nil {
		removeStage(rootfd, stage)
		return nil, err
	}
	step(StepStaged)
	// The last look: the candidate must still be what was previewed.
	now := walker.Observe(context.Background(), r.Root.Path, r.Name, r.Walk)
	if now.Partial() || now.Digest != r.Current.Digest {
		removeStage(rootfd, stage)
		return nil, fmt.Errorf("%w: its digest is now %s", ErrChanged, now.Digest)
	}
	if err := exchange(rootfd, stage, name); err != nil {
		removeStage(rootfd, stage)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return nil, fmt.Errorf("restore: exchanging %s: %w", stage, err)
	}
	if err := unix.Fsync(rootfd); err != nil {
		return nil, fmt.Errorf("restore: syncing the root after the exchange: %w", err)
	}
	step(StepExchanged)
	res := &Result{Changes: snapshot.Diff(&r.Current.Manifest, &r.Target.Manifest)}
	qname := r.ID + "-" + r.Now.UTC().Format("20060102T150405Z") + "-" + random()[:8]
	res.Quarantine, res.Beside, err = quarantine(rootfd, r.Root.Path, stage, r.StateDir, qname)
	if err != nil {
		return res, fmt.Errorf("restore: the target is in place; the displaced tree stays at %s/%s: %w", r.Root.Path, stage, err)
	}
	step(StepQuarantined)
	return res, nil
}

func step(s string) {
	if testHookStep != nil {
		testHookStep(s)
	}
}

func random() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openNoLinks opens the absolute directory path one component at a time,
// refusing any component that is a symbolic link (ErrSymlink).
func openNoLinks(path string) (int, error) {
	if !strings.HasPrefix(path, "/") {
		return -1, fmt.Errorf("restore: the root %q is not absolute", path)
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(path[1:], "/") {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			var st unix.Stat_t
			if unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = fmt.Errorf("%w: %q", ErrSymlink, c)
			} else {
				err = fmt.Errorf("restore: opening %q: %w", path, err)
			}
			unix.Close(fd)
			return -1, err
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// build writes m as the entry stage of rootfd: directories 0700 while they
// are filled (their modes last, deepest first), files created with O_EXCL,
// written, given their mode and synced (by a few goroutines: concurrent
// fsyncs share the journal's commits); then every directory is synced.
func build(rootfd int, stage string, m *snapshot.Manifest, data map[snapshot.Hash][]byte) error {
	dirs := map[string]int{}
	defer func() {
		for _, fd := range dirs {
			unix.Close(fd)
		}
	}()
	var order []string // directories, parents first
	var modes []uint32
	syncer := newSyncer()
	defer syncer.wait()
	for i := range m.Entries {
		e := &m.Entries[i]
		rel := string(e.Path)
		parentfd, base := rootfd, stage
		if rel != "" {
			dir, leaf := "", rel
			if j := strings.LastIndexByte(rel, '/'); j >= 0 {
				dir, leaf = rel[:j], rel[j+1:]
			}
			fd, ok := dirs[dir]
			if !ok {
				return fmt.Errorf("restore: %q comes before its directory", rel)
			}
			parentfd, base = fd, leaf
		}
		switch e.Kind {
		case snapshot.Dir:
			if err := unix.Mkdirat(parentfd, base, 0o700); err != nil {
				return fmt.Errorf("restore: building %q: %w", rel, err)
			}
			fd, err := unix.Openat(parentfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("restore: building %q: %w", rel, err)
			}
			dirs[rel] = fd
			order = append(order, rel)
			modes = append(modes, e.Mode)
		case snapshot.File:
			if err := writeFile(parentfd, base, e, data[e.Hash], syncer); err != nil {
				return fmt.Errorf("restore: building %q: %w", rel, err)
			}
			step(StepBuilding)
		default:
			return fmt.Errorf("%w: it holds a %s", ErrNotRestorable, e.Kind)
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if err := unix.Fchmod(dirs[order[i]], modes[i]); err != nil {
			return fmt.Errorf("restore: building %q: %w", order[i], err)
		}
	}
	for _, fd := range dirs {
		if err := unix.Fsync(fd); err != nil {
			return fmt.Errorf("restore: syncing the staged tree: %w", err)
		}
	}
	if err := syncer.wait(); err != nil {
		return fmt.Errorf("restore: syncing the staged tree: %w", err)
	}
	return unix.Fsync(rootfd)
}

func writeFile(dirfd int, name string, e *snapshot.Entry, b []byte, syncer *syncer) error {
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	for len(b) > 0 && err == nil {
		var n int
		if n, err = unix.Write(fd, b); err == nil {
			b = b[n:]
		}
		if errors.Is(err, unix.EINTR) {
			err = nil
		}
	}
	if err == nil {
		err = unix.Fchmod(fd, e.Mode&0o7777)
	}
	if err != nil {
		unix.Close(fd)
		return err
	}
	syncer.add(fd)
	return nil
}

// syncer fsyncs and closes descriptors on a few goroutines; at most
// syncDepth are open at once.
type syncer struct {
	fds  chan int
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	done bool
}

const syncWorkers, syncDepth = 16, 64

func newSyncer() *syncer {
	s := &syncer{fds: make(chan int, syncDepth)}
	for range syncWorkers {
		s.wg.Go(func() {
			for fd := range s.fds {
				err := unix.Fsync(fd)
				if cerr := unix.Close(fd); err == nil {
					err = cerr
				}
				if err != nil {
					s.mu.Lock()
					s.err = cmp.Or(s.err, err)
					s.mu.Unlock()
				}
			}
		})
	}
	return s
}

func (s *syncer) add(fd int) { s.fds <- fd }

// wait syncs and closes everything added, once, and returns the first error.
func (s *syncer) wait() error {
	if !s.done {
		s.done = true
		close(s.fds)
		s.wg.Wait()
	}
	return s.err
}

// removeStage removes a staging directory this restore made and never
// exchanged: it holds only what build wrote. Failing, it is left for a
// person to see.
func removeStage(rootfd int, stage string) {
	fd, err := unix.Openat(rootfd, stage, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Unlinkat(rootfd, stage, 0) // a file candidate's stage
		return
	}
	removeAll(fd)
	unix.Close(fd)
	unix.Unlinkat(rootfd, stage, unix.AT_REMOVEDIR)
}

func removeAll(dirfd int) {
	f := os.NewFile(uintptr(dirfd), "")
	unix.Fchmod(dirfd, 0o700)
	unix.Seek(dirfd, 0, 0)
	names, _ := f.Readdirnames(-1)
	for _, n := range names {
		if fd, err := unix.Openat(dirfd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			removeAll(fd)
			unix.Close(fd)
			unix.Unlinkat(dirfd, n, unix.AT_REMOVEDIR)
			continue
		}
		unix.Unlinkat(dirfd, n, 0)
	}
}

// quarantine moves the displaced tree (at stage) into <stateDir>/quarantine
// as qname. Across filesystems it goes to a quarantine directory beside the
// root instead (the root's parent, which no root is), and says so.
func quarantine(rootfd int, root, stage, stateDir, qname string) (string, bool, error) {
	qdir := strings.TrimSuffix(stateDir, "/") + "/" + QuarantineDir
	if err := os.Mkdir(qdir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", false, err
	}
	qfd, err := openNoLinks(qdir)
	if err != nil {
		return "", false, err
	}
	defer unix.Close(qfd)
	err = renameat(rootfd, stage, qfd, qname)
	if err == nil {
		if err := unix.Fsync(qfd); err != nil {
			return "", false, err
		}
		return qdir + "/" + qname, false, unix.Fsync(rootfd)
	}
	if !errors.Is(err, unix.EXDEV) {
		return "", false, err
	}
	beside := parentOf(root) + "/.skillwire-quarantine"
	if err := os.Mkdir(beside, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", true, err
	}
	bfd, err := openNoLinks(beside)
	if err != nil {
		return "", true, err
	}
	defer unix.Close(bfd)
	if err := unix.Renameat(rootfd, stage, bfd, qname); err != nil {
		return "", true, err
	}
	unix.Fsync(bfd)
	return beside + "/" + qname, true, unix.Fsync(rootfd)
}

func parentOf(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// SHA256 is the hex SHA-256 of b: the audit log's hash of a restored file.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
