// Package walker observes candidate trees without trusting them. Every
// component is opened relative to its parent's descriptor with O_NOFOLLOW.
// Arrival is proven with fstat on the opened descriptor. Only regular files
// are ever read. Nothing else in skillwire opens a file inside a watched
// tree. Whatever cannot be observed as content becomes an anomaly entry in
// the candidate's manifest. An error return means the walk itself could
// not run.
package walker

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// Limits are structural, per candidate. Breaching one marks that candidate
// anomalous and never touches the shared budget.
type Limits struct {
	// MaxDepth: a directory this many components below the candidate is
	// not opened. It is recorded as a Depth anomaly.
	MaxDepth int
	// MaxDirEntries: a directory with more entries is a Fanout anomaly and
	// its contents are not walked. Reading stops at MaxDirEntries+1 names.
	MaxDirEntries int
	// MaxFileBytes: a larger regular file is Oversize and never hashed.
	MaxFileBytes int64
}

// Budget is a resource shared by all candidates of one scan. Exhausting it
// makes the candidates it cut short Partial.
type Budget struct {
	MaxEntries int64
	MaxBytes   int64
}

// Config configures a scan.
type Config struct {
	Limits
	Budget
	// Workers read and hash files in parallel; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, counts entries as they are observed.
	Progress *atomic.Int64
	// Keep, when set, receives the content of every regular file observed
	// whole. Anomalies, oversize files and files over KeepMaxBytes never
	// reach it.
	Keep Keeper
	// KeepMaxBytes bounds a kept file, as it is read into one buffer. A
	// larger one is hashed as usual and not kept. 0 means DefaultKeepMaxBytes.
	KeepMaxBytes int64
	// Reuse, when set, gives a file whose identity is unchanged since it
	// was hashed the hash it had (see Hashes). It learns what this walk
	// hashes. Only the session start sets one that reuses; the daemon
	// sets Identities, for Idents.
	Reuse *Hashes
	// Fronts, when set, gives a front file whose identity is unchanged since
	// it was parsed what its NameSpec's Front made of it (FrontCache). It
	// learns what this walk parses when Reuse is set too.
	Fronts *FrontCache
	// Idents, with Reuse, keeps each entry's identity (Candidate.Idents).
	// A stamp of the candidate is then made from what the walk stated, not
	// by stating each file again.
	Idents bool
}

// Keeper receives kept content: exactly the bytes that were hashed into
// hash. It gets them after the arrival proof and the second fstat. data is
// the reader's buffer, valid only during the call. Keep runs on several
// goroutines at once.
type Keeper interface {
	Keep(hash snapshot.Hash, data []byte)
}

// DefaultKeepMaxBytes is the largest file kept by default. Skills are
// text, and keeping must not hold a huge file in memory during a walk.
const DefaultKeepMaxBytes = 8 << 20

// keepMax is the bound of a kept file, 0 when nothing is kept.
func (c *Config) keepMax() int64 {
	switch {
	case c.Keep == nil:
		return 0
	case c.KeepMaxBytes > 0:
		return c.KeepMaxBytes
	}
	return DefaultKeepMaxBytes
}

// DefaultLimits and DefaultBudget are sized on real trees (issue 23). A
// plugin that ships a node_modules of 54,000 files is about 62,000 entries
// and 585 MB. An npm install of jest, typescript, eslint and webpack is
// 10,014 files, 1,491 directories and 108 MB. It is 7 deep, its widest
// directory 584. The budget holds four such plugins' entries and three of
// their bytes. A first walk of all of it takes about a second on two
// cores. A session start that reuses hashes (Hashes) pays one statx per
// unchanged file.
var (
	DefaultLimits = Limits{MaxDepth: 24, MaxDirEntries: 4096, MaxFileBytes: 256 << 20}
	DefaultBudget = Budget{MaxEntries: 250_000, MaxBytes: 2 << 30}
)

// DefaultConfig returns the default limits and budget.
func DefaultConfig() Config { return Config{Limits: DefaultLimits, Budget: DefaultBudget} }

func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Kind says what a candidate is.
type Kind uint8

const (
	KindOther Kind = iota // not observable as a directory or file (see its anomalies)
	KindDir
	KindFile
)

func (k Kind) String() string {
	switch k {
	case KindDir:
		return "dir"
	case KindFile:
		return "file"
	}
	return "other"
}

// Candidate is one observed top-level entry of a root, or the target of
// `digest`.
type Candidate struct {
	Name     []byte // raw bytes; show only through anomaly.Gate
	Kind     Kind
	Manifest snapshot.Manifest
	// Digest is the manifest's digest. When Manifest.Partial it describes
	// the scan, not the tree: never store, compare or present it as the
	// candidate's digest.
	Digest snapshot.Hash
	// Front are the reasons NameSpec.Front could not read the candidate's
	// frontmatter. They derive from bytes the digest covers.
	Front []snapshot.Found
	// InnerLinks is RootSpec.InnerLinks.
	InnerLinks bool
	// Fixed: the name is one the root's spec named (RootSpec.Names). skillwire
	// chose it, not the tree's author, so it needs no display gate. Or the
	// spec's Shown passed it: the client loads it under that name.
	Fixed bool
	// Canonical is what an Extract made of the file's bytes. It is nil when
	// the candidate has no Extract, or its file could not be reduced.
	Canonical []byte
	// Idents are the identities of Manifest.Entries, in order, when the
	// walk kept them (Config.Idents). Nil when it did not, or for a
	// candidate that is a file or has files outside it.
	Idents []Ident
}

// Partial reports whether the budget cut the observation short.
func (c *Candidate) Partial() bool { return c.Manifest.Partial }

// Anomalies lists the candidate's anomalies: its manifest's, and Badname
// for a name that fails the display gate.
func (c *Candidate) Anomalies() []snapshot.Found {
	found := c.Manifest.Anomalies()
	if c.InnerLinks {
		found = slices.DeleteFunc(found, func(f snapshot.Found) bool { return f.Reason == anomaly.Symlink && c.innerLink(f.Path) })
	}
	found = append(found, c.Front...)
	if !c.Fixed && !gateName(c.Name) {
		found = append(found, snapshot.Found{Reason: anomaly.Badname})
	}
	return found
}

// Reasons lists the distinct reasons of Anomalies, in first-seen order.
func Reasons(found []snapshot.Found) []anomaly.Reason {
	var seen [256]bool
	var out []anomaly.Reason
	for _, f := range found {
		if !seen[f.Reason] {
			seen[f.Reason] = true
			out = append(out, f.Reason)
		}
	}
	return out
}

// RootSpec names a root: a directory whose top-level entries are candidates.
type RootSpec struct {
	// Path is opened as given, following symbolic links. It comes from the
	// user's configuration, not from a watched tree.
	Path string
	// Files: top-level regular files are candidates too (agents, commands).
	// In a skills root only directories are.
	Files bool
	// Names, when set, are the only candidates. Each is looked up by name,
	// and the root is never listed (see NameSpec).
	Names []NameSpec
	// Each, when set, applies to every candidate of a listed root.
	Each *NameSpec
	// Depth, when set, makes the candidates the directories this many
	// levels below the root. They are named by their path ("m/p/v"). The
	// directories above them are reached without following a link.
	Depth int
	// InnerLinks: a relative link that cannot leave the candidate is content,
	// bound into the digest. It is not an anomaly (plugins).
	InnerLinks bool
	// NamesFromTree: Names were read from a watched tree, a marketplace's
	// entries. skillwire did not choose them, so they pass the display gate as
	// a listed name does.
	NamesFromTree bool
	// Shown, when set, passes a name the display gate refuses. The client
	// loads that name as it is: a skill folder ".hidden-tools" (claude.DotName).
	Shown func(name []byte) bool
	// Skip, of a root with Depth, are directories above its candidates
	// that are not listed: "m/p" leaves out every "m/p/v". The client
	// loads that plugin from elsewhere, never from its copy there.
	Skip []string
}

// fixed reports whether the candidates of r are named by skillwire.
func (r *RootSpec) fixed() bool { return r.Names != nil && !r.NamesFromTree }

// named reports whether name needs no display gate: skillwire chose it,
// or the spec's Shown passes it.
func (r *RootSpec) named(name []byte) bool { return r.fixed() || r.Shown != nil && r.Shown(name) }

// Root is the observation of one root.
type Root struct {
	Spec RootSpec
	// Missing: the root does not exist, so there is nothing to watch there.
	Missing bool
	// Anomalies of the root itself: Root (not a directory), Unreadable,
	// Fanout. Fanout is too many candidates to observe: none were walked.
	Anomalies  []anomaly.Reason
	Candidates []Candidate
	// Dirs are the directories above nested candidates (RootSpec.Depth)
	// that the walk opened, relative to the root. New ones appear there.
	Dirs [][]byte
}

func finish(c *Candidate) {
	d, err := c.Manifest.Digest()
	if err != nil {
		// The walker builds manifests in canonical order. A failure here is a
		// bug, and a digest must never be made up for it.
		panic("walker: non-canonical manifest: " + err.Error())
	}
	c.Digest = d
}

// Scan observes every candidate of roots under one shared budget, with
// fair shares. Every candidate is observed up to an equal part of the
// budget before any gets more. So a huge or hostile candidate cannot blind
// its siblings. What ends partial is the candidate that needed more. When
// ctx ends, the candidates not yet observed are partial.
func Scan(ctx context.Context, roots []RootSpec, cfg Config) []Root {
	s := newScanner(ctx, cfg)
	defer s.close()
	out, jobs, fds := s.discover(roots)
	defer closeAll(fds)
	devsOf(jobs)
	s.fairShares(jobs, func(j job) *Candidate { return &out[j.root].Candidates[j.idx] })
	return out
}

// Discover lists the candidates of roots (name and kind) without observing
// them. It is the cheap way to learn which candidates exist.
func Discover(roots []RootSpec, cfg Config) []Root {
	s := newScanner(context.Background(), cfg)
	defer s.close()
	out, _, fds := s.discover(roots)
	closeAll(fds)
	return out
}

// discover opens and lists every root. The returned descriptors stay open
// for the walks of the returned jobs.
func (s *scanner) discover(roots []RootSpec) ([]Root, []job, []int) {
	out := make([]Root, len(roots))
	var jobs []job
	var fds []int
	for i, spec := range roots {
		out[i].Spec = spec
		fd, names := s.openRoot(&out[i])
		if fd < 0 {
			continue
		}
		fds = append(fds, fd)
		if spec.Depth > 0 {
			s.nested(&out[i], i, fd, names, nil, spec.Depth, &jobs, &fds)
			continue
		}
		// One allocation each, of the most the listing can give: a root of
		// hundreds of candidates grew these by doublings (issue 34).
		out[i].Candidates = make([]Candidate, 0, len(names))
		jobs = slices.Grow(jobs, len(names))
		for _, d := range names {
			if kind, ok := s.selectCandidate(fd, d, spec.Files || spec.Names != nil); ok {
				out[i].Candidates = append(out[i].Candidates, Candidate{Name: d.name.bytes(), Kind: kind, Fixed: spec.named(d.name.bytes()), InnerLinks: spec.InnerLinks})
				jobs = append(jobs, job{dirfd: fd, root: i, idx: len(out[i].Candidates) - 1, spec: spec.nameSpec(d.name.bytes())})
			}
		}
	}
	return out, jobs, fds
}

// devsOf sets each job's dev: one fstat of each directory the jobs are
// walked from, not one per candidate. The jobs of a directory are listed
// together.
func devsOf(jobs []job) {
	for i := range jobs {
		if i > 0 && jobs[i].dirfd == jobs[i-1].dirfd {
			jobs[i].dev = jobs[i-1].dev
		} else {
			jobs[i].dev = devOf(jobs[i].dirfd)
		}
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		closeFD(fd)
	}
}

type job struct {
	dirfd     int
	dev       uint64 // dirfd's device, 0 when not known
	root, idx int
	spec      *NameSpec // how to observe the candidate; nil: as any other
	nested    []byte    // a nested candidate's last component, in dirfd
}

// leaf is the candidate's name in the directory dirfd.
func (j job) leaf(c *Candidate) []byte {
	if j.nested != nil {
		return j.nested
	}
	return c.Name
}

// maxWork bounds the re-walks of fair sharing, in budgets. However the
// sizes are chosen, a scan walks at most this many times its budget.
const maxWork = 4

// fairShares gives every candidate a fair share of the budget before any
// gets more. Round one walks all candidates in parallel, each within a
// static share. So what any one observes never depends on timing. The
// budget is split equally among roots, then among a root's candidates. The
// candidates cut short are walked again, from scratch, in further rounds.
// Those share what the completed ones left, recomputing shares as
// candidates finish. Rounds go on as long as one completes anything. When
// everything fits in the budget, everything completes. Each round's share
// is at least the smallest pending size.
func (s *scanner) fairShares(jobs []job, cand func(job) *Candidate) {
	if len(jobs) == 0 {
		return
	}
	left := quota{entries: s.cfg.MaxEntries, bytes: s.cfg.MaxBytes}
	// Round one shares the budget equally among the roots first, then
	// among each root's candidates. So a project that ships thousands of
	// candidates cannot shrink the share of the user's global skills. Found
	// in review: 4,096 links in a project made every global skill partial.
	perRoot := map[int]int64{}
	for _, j := range jobs {
		perRoot[j.root]++
	}
	roots := int64(len(perRoot))
	used := make([]quota, len(jobs))
	s.parallel(len(jobs), func(i int, st *wstate) {
		n := roots * perRoot[jobs[i].root]
		share := quota{entries: left.entries / n, bytes: left.bytes / n}
		used[i] = s.candidate(cand(jobs[i]), jobs[i].dirfd, jobs[i].dev, jobs[i].leaf(cand(jobs[i])), jobs[i].spec, share, st)
	})
	var pending []job
	var work int64
	for i, j := range jobs {
		work += used[i].entries
		if cand(j).Manifest.Partial {
			pending = append(pending, j)
			continue
		}
		left.entries -= used[i].entries
		left.bytes -= used[i].bytes
	}
	for len(pending) > 0 && work <= maxWork*s.cfg.MaxEntries {
		var cut []job
		for i, j := range pending {
			n := int64(len(pending) - i + len(cut))
			c := cand(j)
			u := s.candidate(c, j.dirfd, j.dev, j.leaf(c), j.spec, quota{entries: left.entries / n, bytes: left.bytes / n}, s.main)
			work += u.entries
			if c.Manifest.Partial {
				cut = append(cut, j)
				continue
			}
			left.entries -= u.entries
			left.bytes -= u.bytes
		}
		if len(cut) == len(pending) {
			break
		}
		pending = cut
	}
	for _, j := range jobs {
		finish(cand(j))
	}
}

// parallel runs f for 0..n-1 on up to Workers goroutines, each with its
// own walk state. The calling goroutine's is one of them.
func (s *scanner) parallel(n int, f func(i int, st *wstate)) {
	var next atomic.Int64
	run := func(st *wstate) {
		s.walking.Add(1)
		defer s.walking.Add(-1)
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			f(i, st)
		}
	}
	var wg sync.WaitGroup
	for range min(s.cfg.workers(), n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(newWState())
		}()
	}
	run(s.main)
	wg.Wait()
}

// Observe observes one candidate: the entry name of directory path, with
// the whole budget. It is the engine of `digest`.
func Observe(ctx context.Context, dir string, name []byte, cfg Config) Candidate {
	return ObserveIn(ctx, RootSpec{Path: dir}, name, cfg)
}

// ObserveIn observes the one candidate name of the root spec, as Scan
// would, with the whole budget. A nested candidate's directories are
// reached one component at a time, never through a link.
func ObserveIn(ctx context.Context, spec RootSpec, name []byte, cfg Config) Candidate {
	if spec.Depth > 0 && bytes.Count(name, []byte{'/'}) < spec.Depth {
		// A link, special file or unreadable directory on the way is
		// recorded as the listing found it. It is never opened as a candidate.
		for _, c := range Scan(ctx, []RootSpec{spec}, cfg)[0].Candidates {
			if bytes.Equal(c.Name, name) {
				return c
			}
		}
		return unobserved(bytes.Clone(name), anomalyEntry([]byte{}, anomaly.Root))
	}
	fd, err := openDirPath(spec.Path)
	if err != nil {
		c := Candidate{Name: bytes.Clone(name), Fixed: spec.named(name), InnerLinks: spec.InnerLinks}
		c.Manifest.Entries = []snapshot.Entry{anomalyEntry(nil, rootReason(err))}
		finish(&c)
		return c
	}
	return observeFrom(ctx, fd, &spec, name, cfg)
}

// ObserveAt observes the candidate name (as Observe names it) of the open
// directory dirfd, which it does not close. A caller holding a proven
// descriptor observes through it. It never observes through a path that
// may have changed since.
func ObserveAt(ctx context.Context, dirfd int, name []byte, cfg Config) Candidate {
	c := Candidate{Name: bytes.Clone(name)}
	fd, err := unix.FcntlInt(uintptr(dirfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		c.Manifest.Entries = []snapshot.Entry{anomalyEntry(nil, rootReason(err))}
		finish(&c)
		return c
	}
	return observeFrom(ctx, fd, &RootSpec{}, name, cfg)
}

// observeFrom observes name of fd, which it closes, under spec.
func observeFrom(ctx context.Context, fd int, spec *RootSpec, name []byte, cfg Config) Candidate {
	s := newScanner(ctx, cfg)
	defer s.close()
	c := Candidate{Name: bytes.Clone(name), Fixed: spec.named(name), InnerLinks: spec.InnerLinks}
	fail := func(r anomaly.Reason) Candidate {
		c.Manifest.Entries = []snapshot.Entry{anomalyEntry(nil, r)}
		finish(&c)
		return c
	}
	leaf := c.Name
	if i := bytes.LastIndexByte(c.Name, '/'); i >= 0 {
		for comp := range bytes.SplitSeq(c.Name[:i], []byte{'/'}) {
			sub, _, r := openDirAt(fd, znameOf(comp), unix.O_NOFOLLOW, nil)
			closeFD(fd)
			if r != 0 {
				return fail(r)
			}
			fd = sub
		}
		leaf = c.Name[i+1:]
	}
	defer closeFD(fd)
	s.candidate(&c, fd, 0, leaf, spec.nameSpec(c.Name), quota{entries: cfg.MaxEntries, bytes: cfg.MaxBytes}, s.main)
	finish(&c)
	return c
}
