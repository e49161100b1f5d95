package lockfile

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Problem is something that could not be observed as plain content. It is a
// root, or a candidate that is partial or anomalous. Examples: a nested link,
// a FIFO, an unreadable file, a name that fails the display gate. It is never
// locked and never verifies as matching.
type Problem struct {
	Root    string
	Name    []byte // nil: the root itself
	Reasons []anomaly.Reason
}

// Discover lists the roots of the repository at repo ("" is the working
// directory). They are the roots the local watch covers for a project there
// (claude.Places.Discover within claude.DefaultLimits). That is the default
// roots and the nested .claude/skills and rules. It adds the folders of
// settings, .mcp.json and instruction files. Git-ignored ones are left out,
// as Claude Code leaves them. Only what lies inside the repository is a root
// of its lock. The folders above it are the runner's, not the repository's.
func Discover(repo string) ([]Root, error) {
	abs, err := filepath.Abs(topOf(repo))
	if err != nil {
		return nil, fmt.Errorf("lockfile: locating the repository: %w", err)
	}
	roots := DefaultRoots()
	for _, cr := range (claude.Places{Project: abs}).Discover(claude.DefaultLimits).Roots() {
		if cr.Scope != claude.Project {
			continue
		}
		rel := "."
		if cr.Path != abs {
			var ok bool
			if rel, ok = strings.CutPrefix(cr.Path, abs+"/"); !ok {
				continue
			}
		}
		r := Root{Path: rel, Kind: cr.Kind, names: slices.Clone(cr.Names)}
		if cr.Kind != claude.Config {
			if r, err = ParseRoot(rel); err != nil {
				continue // a folder name a lock cannot spell; the local watch tells it
			}
		} else if _, err := ParseConfigDir(rel); err != nil {
			continue
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// Scan observes roots of the repository at repo ("" is the working directory)
// and builds their lock. The roots share one budget. Two roots of one path
// and different kinds are one anomalous root, and neither is locked. An
// example is a root named on the command line that is also a folder of
// instruction files.
func Scan(ctx context.Context, repo string, roots []Root, cfg walker.Config) (*Lock, []Problem) {
	var clash []Problem
	kinds := map[string]claude.Kind{}
	for _, r := range roots {
		if k, ok := kinds[r.Path]; ok && k != r.Kind && !slices.ContainsFunc(clash, func(p Problem) bool { return p.Root == r.Path }) {
			clash = append(clash, Problem{Root: r.Path, Reasons: []anomaly.Reason{anomaly.Root}})
		}
		kinds[r.Path] = r.Kind
	}
	roots = slices.DeleteFunc(sortRoots(roots), func(r Root) bool {
		// A Config root read from a lock but no longer found holds nothing to
		// observe. Its candidates are removed.
		return r.Kind == claude.Config && r.names == nil ||
			slices.ContainsFunc(clash, func(p Problem) bool { return p.Root == r.Path })
	})
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec(repo)
	}
	observed := walker.Scan(ctx, specs, cfg)
	names := map[string]anomaly.Names{}
	for i, r := range roots {
		for j := range observed[i].Candidates {
			c := &observed[i].Candidates[j]
			if n := relScripts(r.claude(repo), topOf(repo), c); n != nil {
				names[key(r.Path, c.Name)] = n
			}
		}
	}
	l, problems := Build(roots, observed)
	for i := range l.Candidates {
		l.Candidates[i].names = names[key(l.Candidates[i].Root, l.Candidates[i].Name)]
	}
	problems = append(problems, clash...)
	slices.SortFunc(problems, compareProblems)
	return l, problems
}

// relScripts names the scripts and imports bound into a configuration
// candidate by their path below the repository top. It does not name them as
// the scan reached them (walker.ScriptEntry hashes that path). So the same
// commit locks the same from any checkout and any -C. It returns their names
// (claude.Root.BoundNames) by the entries it gave them, nil for none.
func relScripts(r claude.Root, top string, c *walker.Candidate) (names anomaly.Names) {
	if r.Kind != claude.Config || c.Canonical == nil {
		return nil
	}
	spec := r.Spec()
	i := slices.IndexFunc(spec.Names, func(n walker.NameSpec) bool { return n.Name == string(c.Name) })
	if i < 0 || spec.Names[i].Scripts == nil {
		return nil
	}
	rename := map[string][]byte{}
	names = anomaly.Names{}
	for _, p := range spec.Names[i].Scripts(c.Canonical) {
		rel, ok := strings.CutPrefix(p, top+"/")
		if !ok {
			// absolute, as the file wrote it
			if s, ok := anomaly.ShowOutside("/", []byte(strings.TrimPrefix(p, "/"))); ok && strings.HasPrefix(p, "/") {
				claude.NameBound(names, string(walker.ScriptEntry(p)), s)
			}
			continue
		}
		from, to := walker.ScriptEntry(p), walker.ScriptEntry(rel)
		rename[string(from)] = to
		rename[string(from)+walker.ScriptTargetSuffix] = append(slices.Clone(to), walker.ScriptTargetSuffix...)
		if s, ok := anomaly.ShowOutside("$CLAUDE_PROJECT_DIR/", []byte(rel)); ok {
			claude.NameBound(names, string(to), s)
		}
	}
	if len(rename) == 0 {
		return names
	}
	es := c.Manifest.Entries
	for k := range es {
		if to, ok := rename[string(es[k].Path)]; ok {
			es[k].Path = to
		}
	}
	slices.SortFunc(es, func(a, b snapshot.Entry) int { return snapshot.ComparePaths(a.Path, b.Path) })
	return names
}

// Verify observes the repository at repo and compares it with lock. It
// observes every root the lock lists, and always what Discover finds. So a
// lock edited to drop a root cannot hide what Claude Code would load.
func Verify(ctx context.Context, repo string, lock *Lock, cfg walker.Config) (*Report, error) {
	found, err := Discover(repo)
	if err != nil {
		return nil, err
	}
	observed, problems := Scan(ctx, repo, MergeRoots(found, lock.Roots), cfg)
	r := Compare(lock, observed, problems)
	r.LockVersion = lock.Version
	return r, nil
}

// Build makes the lock of what a scan observed, observed[i] being the scan of
// roots[i]. Every clean candidate goes into the lock. Every root or candidate
// that is not clean is returned as a Problem instead.
func Build(roots []Root, observed []walker.Root) (*Lock, []Problem) {
	if len(roots) != len(observed) {
		panic("lockfile: Build needs one observation per root")
	}
	l := &Lock{Version: Version, Roots: sortRoots(roots), Candidates: []Candidate{}}
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
				// The walker builds canonical manifests and gitModes changes
				// no path. So a failure is a bug, never a digest.
				panic("lockfile: " + err.Error())
			}
			lc := Candidate{Root: r.Path, Name: bytes.Clone(c.Name), Kind: c.Kind, Manifest: m, Digest: d}
			switch kind := claude.CandidateKind(r.Kind, c.Name); {
			case r.Kind == claude.Config && (kind == claude.KindSettings || kind == claude.KindMCP):
				if !utf8.Valid(c.Canonical) {
					// encoding/json would make it valid, and the lock's
					// form would then not be the file's.
					problems = append(problems, Problem{Root: r.Path, Name: bytes.Clone(c.Name), Reasons: []anomaly.Reason{anomaly.Unparsable}})
					continue
				}
				lc.Canonical = bytes.Clone(c.Canonical)
			case r.Kind != claude.Config && c.Canonical != nil:
				lc.front = bytes.Clone(c.Canonical)
			}
			l.Candidates = append(l.Candidates, lc)
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

// gitModes copies a manifest with its permission bits as git records them. A
// file is 0755 when its owner may execute it, else 0644. A directory is 0755.
// A checkout's other bits come from the checker-out's umask (0664 under umask
// 002, 0644 under 022). Locking them would make the same commit lock
// differently on a developer's machine and in CI. The copy never aliases the
// scan's buffers.
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
