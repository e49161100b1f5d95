package lockfile

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Problem is something that could not be observed as plain content: a
// root, or a candidate that is partial or anomalous (a nested link, a
// FIFO, an unreadable file, a name that fails the display gate...). It is
// never locked and never verifies as matching.
type Problem struct {
	Root    string
	Name    []byte // nil: the root itself
	Reasons []anomaly.Reason
}

// Scan observes roots of the repository at repo ("" is the working
// directory) under one shared budget and builds their lock.
func Scan(ctx context.Context, repo string, roots []Root, cfg walker.Config) (*Lock, []Problem) {
	roots = sortRoots(roots)
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec(repo)
	}
	return Build(roots, walker.Scan(ctx, specs, cfg))
}

// Verify observes the repository at repo and compares it with lock. It
// observes every root the lock lists and always the default roots, so a
// lock edited to drop a root cannot hide what Claude Code would load.
func Verify(ctx context.Context, repo string, lock *Lock, cfg walker.Config) *Report {
	observed, problems := Scan(ctx, repo, MergeRoots(lock.Roots, DefaultRoots()), cfg)
	return Compare(lock, observed, problems)
}

// Build makes the lock of what a scan observed, observed[i] being the
// scan of roots[i]. Every clean candidate goes into the lock; every root
// or candidate that is not clean is returned as a Problem instead.
func Build(roots []Root, observed []walker.Root) (*Lock, []Problem) {
	if len(roots) != len(observed) {
		panic("lockfile: Build needs one observation per root")
	}
	l := &Lock{Roots: sortRoots(roots), Candidates: []Candidate{}}
	var problems []Problem
	for i, r := range roots {
		o := &observed[i]
		if len(o.Anomalies) > 0 {
			problems = append(problems, Problem{Root: r.Path, Reasons: slices.Clone(o.Anomalies)})
			continue
		}
		for j := range o.Candidates {
			c := &o.Candidates[j]
			// A partial candidate's anomalies include Budget.
			if reasons := walker.Reasons(c.Anomalies()); len(reasons) > 0 {
				problems = append(problems, Problem{Root: r.Path, Name: bytes.Clone(c.Name), Reasons: reasons})
				continue
			}
			m := gitModes(&c.Manifest)
			d, err := m.Digest()
			if err != nil {
				// The walker builds canonical manifests and gitModes
				// changes no path: a failure is a bug, never a digest.
				panic("lockfile: " + err.Error())
			}
			l.Candidates = append(l.Candidates, Candidate{Root: r.Path, Name: bytes.Clone(c.Name),
				Kind: c.Kind, Manifest: m, Digest: d})
		}
	}
	slices.SortFunc(l.Candidates, func(a, b Candidate) int { return compareCandidates(&a, &b) })
	slices.SortFunc(problems, compareProblems)
	return l, problems
}

func compareProblems(a, b Problem) int {
	// A root's own problem (no name) sorts before its candidates'.
	return cmp.Or(strings.Compare(a.Root, b.Root), bytes.Compare(a.Name, b.Name))
}

// gitModes copies a manifest with its permission bits as git records
// them: a file is 0755 when its owner may execute it, else 0644, and a
// directory is 0755. A checkout's other bits come from the umask of
// whoever checked it out (0664 under umask 002, 0644 under 022), so
// locking them would make the same commit lock differently on a
// developer's machine and in CI. The copy never aliases the scan's
// buffers.
func gitModes(m *snapshot.Manifest) snapshot.Manifest {
	out := snapshot.Manifest{ViaLink: m.ViaLink, Link: bytes.Clone(m.Link), Partial: m.Partial,
		Entries: make([]snapshot.Entry, len(m.Entries))}
	for i, e := range m.Entries {
		e.Path, e.Target = bytes.Clone(e.Path), bytes.Clone(e.Target)
		e.Mode = gitMode(e.Kind, e.Mode)
		out.Entries[i] = e
	}
	return out
}

func gitMode(k snapshot.Kind, mode uint32) uint32 {
	switch {
	case k == snapshot.Dir:
		return 0o755
	case k == snapshot.File && mode&0o100 != 0:
		return 0o755
	case k == snapshot.File:
		return 0o644
	}
	return mode
}
