package lockfile

import (
	"bytes"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Ref names a candidate in a report.
type Ref struct {
	Root    string
	Name    []byte
	Kind    walker.Kind
	Digest  snapshot.Hash
	Verdict Verdict
	// Facts are what an added or changed settings or MCP file now makes
	// Claude Code run, load or allow. They are config.Facts against the
	// locked form, then its standing facts, as the local watch tells them.
	// For an added skill, agent or command, they are what its frontmatter
	// allows. Attacker text, escaped by config.Fact.String.
	Facts []config.Fact
}

// Label is root/name with the name shown through NameLabel. A file at the
// repository's top is its name.
func (r Ref) Label() string {
	if r.Root == "." {
		return NameLabel(r.Root, r.Name)
	}
	return r.Root + "/" + NameLabel(r.Root, r.Name)
}

// Change is what happened to one path of a changed candidate.
type Change uint8

const (
	FileAdded Change = iota + 1
	FileRemoved
	FileModified
)

func (c Change) String() string {
	switch c {
	case FileAdded:
		return "added"
	case FileRemoved:
		return "removed"
	case FileModified:
		return "modified"
	}
	return "change?"
}

// FileChange is one path of a changed candidate that differs from the lock.
// Its content, mode or kind differs. At the candidate itself, it may be the
// text of the link it was observed through.
type FileChange struct {
	Path   []byte
	Kind   snapshot.Kind // as observed; as locked when removed
	Change Change
	// Shown is where a script or import a configuration candidate binds lies,
	// as every command shows it. An example is
	// "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh". It is set when the observed
	// candidate names it, and Path is then its entry (scripts/<hash>). It is
	// "" for every other path.
	Shown string
}

// Label shows the path: Shown when set, else FileLabel(Path).
func (f FileChange) Label() string {
	if f.Shown != "" {
		return f.Shown
	}
	return FileLabel(f.Path)
}

// Changed is a candidate whose digest differs from its locked digest.
type Changed struct {
	Ref    // as observed
	Locked snapshot.Hash
	Files  []FileChange
}

// Report is the outcome of verifying a tree against a lock.
type Report struct {
	Roots   []Root // every root that was checked
	Added   []Ref  // observed, not in the lock
	Removed []Ref  // in the lock, not observed
	Changed []Changed
	// Anomalous roots and candidates could not be observed as plain content.
	// They never match, whatever the lock says.
	Anomalous []Problem
	// Adverse candidates match the lock, which holds a BLOCK or SUSPECT
	// verdict for them.
	Adverse []Ref
	Matched int
	// LockVersion is the lock's format version. A version 1 lock locks no
	// configuration file, and each is reported added.
	LockVersion int
}

// OK reports whether the tree matches the lock: nothing added, removed,
// changed, anomalous or adversely judged.
func (r *Report) OK() bool {
	return len(r.Added) == 0 && len(r.Removed) == 0 && len(r.Changed) == 0 &&
		len(r.Anomalous) == 0 && len(r.Adverse) == 0
}

// Findings counts what keeps the tree from matching.
func (r *Report) Findings() int {
	return len(r.Added) + len(r.Removed) + len(r.Changed) + len(r.Anomalous) + len(r.Adverse)
}

// Compare verifies an observation (observed and problems, from Build) against
// a lock. A candidate that is anomalous now, or whose root is, is reported
// only as anomalous. It is not reported as removed, and never as a match.
func Compare(lock, observed *Lock, problems []Problem) *Report {
	r := &Report{Roots: observed.Roots, Anomalous: problems}
	badRoot := map[string]bool{}
	badCand := map[string]bool{}
	for _, p := range problems {
		if p.Name == nil {
			badRoot[p.Root] = true
		} else {
			badCand[key(p.Root, p.Name)] = true
		}
	}
	rootOf := make(map[string]Root, len(observed.Roots))
	for _, o := range observed.Roots {
		rootOf[o.Path] = o
	}
	tell := func(ref Ref, old []byte, o *Candidate) Ref {
		switch {
		case o.Canonical != nil:
			ref.Facts = append(config.Facts(old, o.Canonical), rootOf[o.Root].claude("").StandingFacts(o.Name, o.Canonical)...)
		case o.front != nil && old == nil:
			ref.Facts = append(config.Facts(nil, o.front), modFacts(rootOf[o.Root], o)...)
		}
		return ref
	}
	seen := make(map[string]*Candidate, len(observed.Candidates))
	for i := range observed.Candidates {
		c := &observed.Candidates[i]
		seen[key(c.Root, c.Name)] = c
	}
	locked := make(map[string]bool, len(lock.Candidates))
	for i := range lock.Candidates {
		l := &lock.Candidates[i]
		k := key(l.Root, l.Name)
		locked[k] = true
		o, ok := seen[k]
		switch {
		case !ok && (badRoot[l.Root] || badCand[k]):
			// Reported among the anomalous: it is there, but not seen whole.
		case !ok:
			r.Removed = append(r.Removed, l.ref())
		case o.Digest == l.Digest && o.Kind == l.Kind:
			r.Matched++
			if l.Verdict.Adverse() {
				r.Adverse = append(r.Adverse, l.ref())
			}
		default:
			ref := o.ref()
			if l.Canonical != nil {
				ref = tell(ref, l.Canonical, o)
			} else if o.Canonical != nil {
				ref = tell(ref, nil, o)
			} else {
				ref.Facts = modFacts(rootOf[o.Root], o) // a mod is told whenever its plugin changes
			}
			files := DiffFiles(&l.Manifest, &o.Manifest)
			for k := range files {
				files[k].Shown = o.names[string(files[k].Path)]
			}
			r.Changed = append(r.Changed, Changed{Ref: ref, Locked: l.Digest, Files: files})
		}
	}
	for i := range observed.Candidates {
		c := &observed.Candidates[i]
		if !locked[key(c.Root, c.Name)] {
			r.Added = append(r.Added, tell(c.ref(), nil, c))
		}
	}
	return r
}

// modFacts are the hooks modules a plugin's form lists (issue 30).
func modFacts(r Root, o *Candidate) []config.Fact {
	if o.front == nil {
		return nil
	}
	return r.claude("").StandingFacts(o.Name, o.front)
}

// key identifies a candidate; neither a root nor a name holds a NUL.
func key(root string, name []byte) string { return root + "\x00" + string(name) }

// DiffFiles lists the paths that differ between two manifests of one
// candidate, in path order.
func DiffFiles(old, cur *snapshot.Manifest) []FileChange {
	var out []FileChange
	a, b := old.Entries, cur.Entries
	for len(a) > 0 || len(b) > 0 {
		var c int
		switch {
		case len(b) == 0:
			c = -1
		case len(a) == 0:
			c = 1
		default:
			c = snapshot.ComparePaths(a[0].Path, b[0].Path)
		}
		switch {
		case c < 0:
			out = append(out, FileChange{Path: a[0].Path, Kind: a[0].Kind, Change: FileRemoved})
			a = a[1:]
		case c > 0:
			out = append(out, FileChange{Path: b[0].Path, Kind: b[0].Kind, Change: FileAdded})
			b = b[1:]
		default:
			if !sameEntry(&a[0], &b[0]) {
				out = append(out, FileChange{Path: b[0].Path, Kind: b[0].Kind, Change: FileModified})
			}
			a, b = a[1:], b[1:]
		}
	}
	if old.ViaLink != cur.ViaLink || !bytes.Equal(old.Link, cur.Link) {
		// The link is bound to the candidate itself: show it as a change
		// there, once.
		if len(out) == 0 || len(out[0].Path) != 0 {
			self := FileChange{Path: []byte{}, Kind: snapshot.Dir, Change: FileModified}
			if len(cur.Entries) > 0 && len(cur.Entries[0].Path) == 0 {
				self.Kind = cur.Entries[0].Kind
			}
			out = append([]FileChange{self}, out...)
		}
	}
	return out
}

func sameEntry(a, b *snapshot.Entry) bool {
	return a.Kind == b.Kind && a.Mode == b.Mode && a.Size == b.Size && a.Hash == b.Hash &&
		a.Reason == b.Reason && bytes.Equal(a.Target, b.Target)
}
