// Package restore puts a kept version of a candidate back in place. It
// never writes into a tree it has not proven. The target is built beside
// the candidate, under the descriptor of its parent. That parent is
// reached from the proven root without following a link (openat, O_EXCL,
// O_NOFOLLOW). The target is synced, then swapped in with one atomic
// exchange. The displaced tree is moved into quarantine, never deleted. A
// crash at any step leaves the old or the new candidate whole in place.
// The other is in the staging directory or in quarantine.
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
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// Refusals (nothing was written in the watched tree) and failures.
var (
	// ErrChanged: the candidate is no longer what the preview showed.
	ErrChanged = errors.New("the candidate changed since the preview")
	// ErrNotRestorable: the target version is not restorable. It holds an
	// anomaly, an oversize file, or content that was never kept.
	ErrNotRestorable = errors.New("the target version is not restorable")
	// ErrIncomplete: the candidate could not be fully observed, or an
	// object of the target is missing.
	ErrIncomplete = errors.New("incomplete")
	// ErrSymlink: a component of the candidate's path is a symbolic link.
	ErrSymlink = errors.New("a component of the candidate's path is a symbolic link")
	// ErrCorrupt: an object of the target failed verification.
	ErrCorrupt = errors.New("a kept object is corrupt")
	// ErrStageReplaced: the staging name no longer holds the tree this
	// restore built. A writer in the root replaced it.
	ErrStageReplaced = errors.New("the staged tree was replaced before the exchange")
	// ErrUnsupported: the system has no atomic exchange of two names.
	ErrUnsupported = errors.New("this system cannot exchange two directories atomically")
)

// Steps of a restore, in order, as the fault-injection hook names them.
const (
	StepBuilding    = "building"    // one file of the target is written in staging
	StepStaged      = "staged"      // the target is built and synced beside the candidate
	StepExchanged   = "exchanged"   // the target is in place, the old tree at the staging name
	StepQuarantined = "quarantined" // the old tree is in quarantine
	StepProved      = "proved"      // a configuration file's folder is proved and held, not yet written
	StepWritten     = "written"     // a configuration file is written, not yet observed again
)

// testHookStep, set by tests, runs after each step. A test kills the
// process there and checks the tree.
var testHookStep func(step string)

// renameat moves the displaced tree into the state directory's quarantine.
// A test makes it fail as across filesystems.
var renameat = unix.Renameat

// StagePrefix starts the name of a staging directory beside the candidate.
// One left by a crash holds the tree that was not in place.
const StagePrefix = ".skillwire-restore-"

// QuarantineDir is the quarantine inside the state directory.
const QuarantineDir = "quarantine"

// Request is one restore.
type Request struct {
	ID   string
	Root claude.Root // its Path is the candidate's parent directory
	Name []byte      // the candidate's name in Root
	// Current is the candidate as observed for the preview; Do observes it.
	// Expect, when set, is the digest the person saw.
	Current *walker.Candidate
	Expect  *snapshot.Hash
	Target  *baseline.Version
	Content history.Content // the target's file contents
	// Forms are the candidate's canonical forms the store keeps: delivered,
	// reviewed, nil ones skipped. With the one on disk, they name in the
	// preview the files it binds by a hash of where they lie
	// (claude.Root.BoundNames).
	Forms [][]byte
	// StateDir holds the store, waited for up to LockTimeout, and the
	// quarantine. Walk observes the candidate, again just before the exchange.
	StateDir    string
	LockTimeout time.Duration
	Walk        walker.Config
	// AuditLog is the log Do appends a verified restore's rollback
	// entries to.
	AuditLog string
	Now      time.Time

	data  map[snapshot.Hash][]byte // the target's content, once read
	canon []byte                   // a configuration target's form, once read
}

// Result is a restore that made the exchange: the tree in place changed,
// whatever else happened. What it says is what was checked, never assumed.
type Result struct {
	// InPlace is the candidate's digest observed through the root's
	// descriptor right after the exchange. Verified: it is the target's,
	// whole. Unverified: a writer changed the staged tree. It is not the
	// target, and must not be recorded as restored.
	InPlace  snapshot.Hash
	Verified bool
	// Quarantine is where the displaced tree is, when it was quarantined.
	Quarantine string
	// Beside: the quarantine is beside the root, not in the state directory.
	// The state directory is on another filesystem.
	Beside bool
	// Stranded, when quarantine failed (for QuarantineErr): the displaced
	// tree is still in the root at this path, under the staging name.
	Stranded      string
	QuarantineErr error
	Changes       []snapshot.Change // from the displaced tree to the target
	// Backup is the settings editor's copy of a configuration file as it
	// was before the restore wrote it.
	Backup  string
	written []byte // a configuration file's bytes, as written
}

// check refuses a request before anything is written. It refuses a
// changed, partial or linked candidate, and one with any anomaly. A link
// on the way to a nested candidate is one. It refuses an unrestorable
// target: a link in it is an anomaly.
func check(r *Request) error {
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
	case len(c.Manifest.Anomalies()) > 0:
		return fmt.Errorf("%w: the candidate is not fully observable (%s)", ErrIncomplete, c.Manifest.Anomalies()[0].Reason)
	case !r.Target.Restorable || len(r.Target.Manifest.Anomalies()) > 0 || r.Target.Manifest.Partial:
		return fmt.Errorf("%w: %s", ErrNotRestorable, r.Target.Digest)
	case len(r.Target.Manifest.Entries) == 0:
		return fmt.Errorf("%w: %s holds nothing", ErrNotRestorable, r.Target.Digest)
	}
	return nil
}

// run restores r.Target in place of the candidate. Before the exchange it
// writes only the staging directory. A refusal moves that into quarantine,
// never removed: a writer may have put something else there. Once the
// exchange is made, run returns a Result, never an error. What followed
// (verification, quarantine) is data in it.
func run(r *Request) (*Result, error) {
	if err := check(r); err != nil {
		return nil, err
	}
	target, current, targetDigest, err := r.outside()
	if err != nil {
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
		b, ok, err := r.object(&e)
		switch {
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
	// A nested candidate is built, exchanged and quarantined inside its
	// own parent, reached without following a link. The kernel never
	// resolves a component of its name.
	dirfd, dir, leaf, err := openParent(rootfd, string(r.Name))
	if err != nil {
		return nil, err
	}
	defer unix.Close(dirfd)
	where := r.Root.Path + dir
	stage := StagePrefix + random()
	qname := r.ID + "-" + r.Now.UTC().Format("20060102T150405Z") + "-" + random()[:8]
	// The stage's descriptor is held until after the exchange. So its
	// inode cannot be reused by a replacement with the same number.
	stagefd, err := build(dirfd, stage, target, data)
	if err != nil {
		return nil, r.refuse(dirfd, where, stage, qname, err)
	}
	defer unix.Close(stagefd)
	step(StepStaged)
	// The last look, through the proven parent. The candidate must still
	// be what was previewed, and the parent still at its name in the root.
	// The staging name must still be the tree built.
	now := walker.ObserveAt(context.Background(), dirfd, []byte(leaf), r.Walk)
	if now.Partial() || now.Digest != current {
		return nil, r.refuse(dirfd, where, stage, qname, fmt.Errorf("%w: its digest is now %s", ErrChanged, now.Digest))
	}
	if err := stillParent(rootfd, string(r.Name), dirfd); err != nil {
		return nil, r.refuse(dirfd, where, stage, qname, err)
	}
	if err := sameAt(dirfd, stage, stagefd); err != nil {
		return nil, r.refuse(dirfd, where, stage, qname, err)
	}
	if err := exchange(dirfd, stage, leaf); err != nil {
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			err = fmt.Errorf("%w: %v", ErrUnsupported, err)
		} else {
			err = fmt.Errorf("restore: exchanging %s: %w", stage, err)
		}
		return nil, r.refuse(dirfd, where, stage, qname, err)
	}
	step(StepExchanged)
	res := &Result{Changes: snapshot.Diff(&r.Current.Manifest, &r.Target.Manifest)}
	// The stage could have been edited or swapped up to the exchange.
	// Only a walk of what is now in place says whether the target is.
	in := walker.ObserveAt(context.Background(), dirfd, []byte(leaf), r.Walk)
	res.InPlace, res.Verified = in.Digest, !in.Partial() && in.Digest == targetDigest
	var qerr error
	res.Quarantine, res.Beside, qerr = quarantine(dirfd, r.Root.Path, stage, r.StateDir, qname)
	if qerr != nil {
		res.QuarantineErr = qerr
		if res.Quarantine == "" { // not moved (else moved, not synced)
			res.Stranded = where + "/" + stage
			// The exchange must still be durable. quarantine syncs the parent
			// only once it moved the displaced tree.
			if err := unix.Fsync(dirfd); err != nil {
				res.QuarantineErr = errors.Join(qerr, fmt.Errorf("syncing the root: %w", err))
			}
		}
		return res, nil
	}
	step(StepQuarantined)
	return res, nil
}

// object is the kept content of the target's file entry e. A corrupt
// object is ErrCorrupt.
func (r *Request) object(e *snapshot.Entry) ([]byte, bool, error) {
	b, ok, err := r.Content(e.Hash, e.Size)
	if errors.Is(err, content.ErrCorrupt) {
		return nil, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return b, ok, err
}

// refuse moves the unexchanged staging name of dirfd (the directory at
// path dir) into quarantine, whatever now holds it. If a writer replaced
// it, that is evidence. It returns err saying where it went.
func (r *Request) refuse(dirfd int, dir, stage, qname string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, stage, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return err // never created
	}
	where, _, qerr := quarantine(dirfd, r.Root.Path, stage, r.StateDir, qname+"-unused")
	if qerr != nil {
		return fmt.Errorf("%w (the staged tree stays at %s/%s: %v)", err, dir, stage, qerr)
	}
	return fmt.Errorf("%w (the unused staged tree is in %s)", err, where)
}

// sameAt proves that name of dirfd is the file open as fd, not a
// replacement: same device and inode.
func sameAt(dirfd int, name string, fd int) error {
	var held, now unix.Stat_t
	if err := unix.Fstat(fd, &held); err != nil {
		return fmt.Errorf("restore: checking the staged tree: %w", err)
	}
	if err := unix.Fstatat(dirfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%w: %v", ErrStageReplaced, err)
	}
	if held.Dev != now.Dev || held.Ino != now.Ino {
		return ErrStageReplaced
	}
	return nil
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

// openNoLinks opens the absolute directory path one component at a time.
// It refuses any component that is a symbolic link (ErrSymlink).
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
		next, err := openDir(fd, c)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("restore: opening %q: %w", path, err)
		}
		fd = next
	}
	return fd, nil
}

// openDir opens the directory c of dirfd without following a link. It
// proves it arrived where it looked. What fstatat saw at c, a directory
// and not a link, is the file it opened.
func openDir(dirfd int, c string) (int, error) {
	var at, held unix.Stat_t
	if err := unix.Fstatat(dirfd, c, &at, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return -1, err
	}
	switch at.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return -1, fmt.Errorf("%w: %q", ErrSymlink, c)
	default:
		return -1, fmt.Errorf("%q: %w", c, unix.ENOTDIR)
	}
	fd, err := unix.Openat(dirfd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return -1, fmt.Errorf("%w: %q", ErrSymlink, c)
	}
	if err != nil {
		return -1, err
	}
	if err := unix.Fstat(fd, &held); err != nil || held.Dev != at.Dev || held.Ino != at.Ino {
		unix.Close(fd)
		return -1, fmt.Errorf("%w: %q was replaced while it was opened", ErrChanged, c)
	}
	return fd, nil
}

// openParent opens the directory holding the candidate name of rootfd,
// one component at a time through openDir. It returns that directory's
// descriptor, its own even for a flat name. It also returns its path below
// the root ("" or "/a/b") and the name's last component.
func openParent(rootfd int, name string) (fd int, dir, leaf string, err error) {
	if fd, err = dup(rootfd); err != nil {
		return -1, "", "", fmt.Errorf("restore: opening the root: %w", err)
	}
	leaf = name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, leaf = "/"+name[:i], name[i+1:]
		for c := range strings.SplitSeq(name[:i], "/") {
			next, err := openDir(fd, c)
			unix.Close(fd)
			if err != nil {
				return -1, "", "", fmt.Errorf("restore: opening the candidate's directory %q: %w", c, err)
			}
			fd = next
		}
	}
	return fd, dir, leaf, nil
}

// stillParent proves that the parent dirfd of the candidate name is still
// what name reaches from rootfd. A directory moved out of the root since
// it was opened is never written.
func stillParent(rootfd int, name string, dirfd int) error {
	fd, _, _, err := openParent(rootfd, name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrChanged, err)
	}
	defer unix.Close(fd)
	var a, b unix.Stat_t
	if err := errors.Join(unix.Fstat(fd, &a), unix.Fstat(dirfd, &b)); err != nil {
		return fmt.Errorf("restore: checking the candidate's directory: %w", err)
	}
	if a.Dev != b.Dev || a.Ino != b.Ino {
		return fmt.Errorf("%w: the directory holding it moved", ErrChanged)
	}
	return nil
}

// build writes m as the entry stage of dirfd. Directories are 0700 while
// they are filled; their modes come last, deepest first. Files are created
// with O_EXCL, written, given their mode and synced. A few goroutines
// sync, since concurrent fsyncs share the journal's commits. Then every
// directory is synced. build returns a descriptor of the stage itself,
// which the caller closes.
func build(dirfd int, stage string, m *snapshot.Manifest, data map[snapshot.Hash][]byte) (stagefd int, err error) {
	stagefd = -1
	defer func() {
		if err != nil && stagefd >= 0 {
			unix.Close(stagefd)
			stagefd = -1
		}
	}()
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
		parentfd, base := dirfd, stage
		if rel != "" {
			dir, leaf := "", rel
			if j := strings.LastIndexByte(rel, '/'); j >= 0 {
				dir, leaf = rel[:j], rel[j+1:]
			}
			fd, ok := dirs[dir]
			if !ok {
				return stagefd, fmt.Errorf("restore: %q comes before its directory", rel)
			}
			parentfd, base = fd, leaf
		}
		switch e.Kind {
		case snapshot.Dir:
			if err := unix.Mkdirat(parentfd, base, 0o700); err != nil {
				return stagefd, fmt.Errorf("restore: building %q: %w", rel, err)
			}
			fd, err := unix.Openat(parentfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return stagefd, fmt.Errorf("restore: building %q: %w", rel, err)
			}
			dirs[rel] = fd
			if rel == "" {
				if stagefd, err = dup(fd); err != nil {
					return stagefd, fmt.Errorf("restore: building the stage: %w", err)
				}
			}
			order = append(order, rel)
			modes = append(modes, e.Mode)
		case snapshot.File:
			fd, err := writeFile(parentfd, base, e, data[e.Hash], syncer, rel == "")
			if err != nil {
				return stagefd, fmt.Errorf("restore: building %q: %w", rel, err)
			}
			if rel == "" {
				stagefd = fd
			}
			step(StepBuilding)
		default:
			return stagefd, fmt.Errorf("%w: it holds a %s", ErrNotRestorable, e.Kind)
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if err := unix.Fchmod(dirs[order[i]], modes[i]); err != nil {
			return stagefd, fmt.Errorf("restore: building %q: %w", order[i], err)
		}
	}
	for _, fd := range dirs {
		if err := unix.Fsync(fd); err != nil {
			return stagefd, fmt.Errorf("restore: syncing the staged tree: %w", err)
		}
	}
	if err := syncer.wait(); err != nil {
		return stagefd, fmt.Errorf("restore: syncing the staged tree: %w", err)
	}
	return stagefd, unix.Fsync(dirfd)
}

// writeFile writes one file of the stage. With held, it returns a second
// descriptor of it (the stage of a file candidate), else -1.
func writeFile(dirfd int, name string, e *snapshot.Entry, b []byte, syncer *syncer, held bool) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
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
	heldfd := -1
	if err == nil && held {
		heldfd, err = dup(fd)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	syncer.add(fd)
	return heldfd, nil
}

func dup(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) }

// syncer fsyncs and closes descriptors on a few goroutines. At most
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

// quarantine moves the displaced tree (at stage) into <stateDir>/quarantine
// as qname. Across filesystems it goes to a fresh quarantine directory
// beside the root instead, and says so. A path is returned once the tree
// was moved, even with an error (a failed sync).
func quarantine(dirfd int, root, stage, stateDir, qname string) (string, bool, error) {
	qdir := strings.TrimSuffix(stateDir, "/") + "/" + QuarantineDir
	if err := os.Mkdir(qdir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", false, err
	}
	qfd, err := openNoLinks(qdir)
	if err != nil {
		return "", false, err
	}
	defer unix.Close(qfd)
	err = renameat(dirfd, stage, qfd, qname)
	if err == nil {
		return qdir + "/" + qname, false, errors.Join(unix.Fsync(qfd), unix.Fsync(dirfd))
	}
	if !errors.Is(err, unix.EXDEV) {
		return "", false, err
	}
	return besideRoot(dirfd, root, stage, qname)
}

// BesidePrefix starts the name of a quarantine directory beside the root.
// Each is made fresh, never reused. The root's parent is the watched
// project's, and what already has a name there may be anyone's.
const BesidePrefix = ".skillwire-quarantine-"

// besideRoot moves stage into a new directory beside the root: in the
// root's parent, which no root is.
func besideRoot(dirfd int, root, stage, qname string) (string, bool, error) {
	parent := besideParent(root)
	pfd, err := openNoLinks(parent + "/")
	if err != nil {
		return "", true, err
	}
	defer unix.Close(pfd)
	bname := BesidePrefix + random()
	if err := unix.Mkdirat(pfd, bname, 0o700); err != nil {
		return "", true, fmt.Errorf("restore: making a quarantine beside the root: %w", err)
	}
	bfd, err := unix.Openat(pfd, bname, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", true, fmt.Errorf("restore: opening the quarantine beside the root: %w", err)
	}
	defer unix.Close(bfd)
	var st unix.Stat_t
	if err := unix.Fstat(bfd, &st); err != nil {
		return "", true, err
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return "", true, fmt.Errorf("restore: the quarantine made beside the root is not ours alone (uid %d, mode %04o)", st.Uid, st.Mode&0o7777)
	}
	if err := unix.Renameat(dirfd, stage, bfd, qname); err != nil {
		return "", true, err
	}
	err = errors.Join(unix.Fsync(bfd), unix.Fsync(pfd), unix.Fsync(dirfd))
	return parent + "/" + bname + "/" + qname, true, err
}

// besideParent is pathname.Parent of the root without its trailing
// slashes. It is "" for a child of "/", and for no parent at all. So
// parent + "/" + name is the path beside the root with one slash.
func besideParent(root string) string {
	p := strings.TrimRight(root, "/")
	if strings.LastIndexByte(p, '/') <= 0 {
		return ""
	}
	return pathname.Parent(p)
}

// SHA256 is the hex SHA-256 of b: the audit log's hash of a restored file.
func SHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
