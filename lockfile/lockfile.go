// Package lockfile owns skillwire.lock: the reviewed state of what Claude
// Code loads from a repository. That is its skills, agents, commands, rules,
// output styles and workflows, and nested .claude/skills. It is also its
// settings, .mcp.json and instruction files. `skillwire lock` writes it and
// `skillwire verify` checks it in CI, the way go.sum guards modules.
//
// A lock is versioned JSON, sorted and pure ASCII. It holds no host data: no
// timestamps, no absolute paths, no owners. The same tree gives the same
// bytes on any machine and from any working directory. It holds only
// candidates fully observed as plain content (directories and regular files).
// So a lock can never vouch for a tree that was not seen whole. Parsing is
// strict. Every field must be in its one canonical spelling, and every digest
// must match its listed files.
package lockfile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

// Version is the lock format version Marshal writes. Version 2 added the
// configuration candidates (settings, .mcp.json, instruction files) and their
// canonical forms. A version 1 lock is still read. It locks none of them, so
// verify reports each as added. A lock of any other version is refused, never
// read as if it were one of these.
const Version = 2

// DefaultName is the lock's file name at the top of a repository.
const DefaultName = "skillwire.lock"

// Errors of ParseRoot, Parse, ReadFile and WriteFile. Every parse error
// wraps ErrMalformed or ErrVersion; the more specific ones wrap
// ErrMalformed too. Messages show a root only through anomaly.QuoteBytes.
var (
	ErrMalformed  = errors.New("lockfile: malformed lock")
	ErrVersion    = errors.New("lockfile: unknown lock version")
	ErrDuplicate  = fmt.Errorf("%w: duplicate candidate", ErrMalformed)
	ErrDigest     = fmt.Errorf("%w: a digest does not match its listed files", ErrMalformed)
	ErrRoot       = errors.New("lockfile: not a root")
	ErrNotRegular = errors.New("lockfile: not a regular file")
	ErrTooLarge   = errors.New("lockfile: lock file too large")
)

// Root is a directory of candidates, named relative to the repository.
type Root struct {
	// Path is relative to the repository: components of [A-Za-z0-9._-],
	// none "." or "..", joined by single '/'. Never absolute, so a lock
	// says nothing about where the repository was checked out.
	Path string
	// Kind comes from the last component of Path. So the two never disagree,
	// and a hand-edited lock cannot relabel a root. Or it is claude.Config
	// for a folder of configuration and instruction files. Those are the
	// lock's "config" list, "." being the repository's top.
	Kind claude.Kind
	// names are the configuration files a Config root holds, as Discover
	// found it. A Config root read from a lock has none and is not observed.
	// Its candidates are then removed.
	names []string
}

// dirKinds are the kinds of the roots a repository's .claude holds by
// directory name. Lock and verify always cover them.
var dirKinds = append(slices.Clone(claude.Kinds), claude.Workflows)

// DefaultRoots are the repository's Claude Code roots by directory name.
// verify always checks them, whatever the lock lists. So a lock edited to
// drop a root cannot hide what Claude Code would load from it.
func DefaultRoots() []Root {
	roots := make([]Root, 0, len(dirKinds))
	for _, k := range dirKinds {
		roots = append(roots, Root{Path: ".claude/" + string(k), Kind: k})
	}
	return sortRoots(roots)
}

// ParseConfigDir checks the spelling of a folder of configuration files:
// "." (the repository's top) or a root path.
func ParseConfigDir(p string) (Root, error) {
	if p != "." {
		for _, c := range strings.Split(p, "/") {
			if !rootComponent(c) || len(p) > 4096 {
				return Root{}, fmt.Errorf("%w: %s: want \".\" or a relative path of [A-Za-z0-9._-] components, none \".\" or \"..\"",
					ErrRoot, anomaly.QuoteBytes([]byte(p)))
			}
		}
	}
	return Root{Path: p, Kind: claude.Config}, nil
}

// ParseRoot checks a root path's spelling and infers its kind from its last
// component. That is skills, agents, commands, rules or output-styles. Any
// other spelling is refused, never normalized. An unknown last component
// would have to be guessed as a skills root, which ignores loose files. A new
// file there would then pass verify unseen.
func ParseRoot(p string) (Root, error) {
	if p == "" || len(p) > 4096 {
		return Root{}, fmt.Errorf("%w: empty or too long", ErrRoot)
	}
	comps := strings.Split(p, "/")
	for _, c := range comps {
		if !rootComponent(c) {
			return Root{}, fmt.Errorf("%w: %s: want a relative path of [A-Za-z0-9._-] components, none \".\" or \"..\"",
				ErrRoot, anomaly.QuoteBytes([]byte(p)))
		}
	}
	k := claude.Kind(comps[len(comps)-1])
	if !slices.Contains(dirKinds, k) {
		return Root{}, fmt.Errorf("%w: %s: the last component must be skills, agents, commands, rules, output-styles or workflows",
			ErrRoot, anomaly.QuoteBytes([]byte(p)))
	}
	return Root{Path: p, Kind: k}, nil
}

func rootComponent(c string) bool {
	if c == "" || c == "." || c == ".." {
		return false
	}
	for i := 0; i < len(c); i++ {
		b := c[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '.' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// Spec is the walker's view of the root in the repository at repo ("" is the
// working directory). The root is opened by this path, never by an absolute
// one recorded anywhere.
func (r Root) Spec(repo string) walker.RootSpec { return r.claude(repo).Spec() }

// claude is the root as Claude Code's conventions see it: a project root with
// no home. Its settings bind $CLAUDE_PROJECT_DIR/ and relative scripts inside
// the repository. A CI runner's home is not the developer's, so a ~/ script
// is told as unbound.
func (r Root) claude(repo string) claude.Root {
	top := topOf(repo)
	p := top
	if r.Path != "." {
		p = Under(top, r.Path)
	}
	return claude.Root{Path: p, Kind: r.Kind, Scope: claude.Project, Names: r.names, Project: top}
}

// topOf spells the repository at repo ("" the working directory). Every path
// under it then starts with topOf(repo)+"/". So the lock names a script or
// import by its path below the repository (relPath), whatever -C was given.
func topOf(repo string) string {
	if repo == "" {
		return "."
	}
	return strings.TrimSuffix(repo, "/")
}

// Under is where the path p is for the repository at repo, joined without
// cleaning either. It is p itself when repo is "" (the working directory) or
// p is absolute. Else it is p inside repo.
func Under(repo, p string) string {
	if repo == "" || strings.HasPrefix(p, "/") {
		return p
	}
	if strings.HasSuffix(repo, "/") {
		return repo + p
	}
	return repo + "/" + p
}

// MergeRoots returns the sorted union of root lists.
func MergeRoots(lists ...[]Root) []Root {
	var all []Root
	for _, l := range lists {
		all = append(all, l...)
	}
	return sortRoots(all)
}

// sortRoots sorts by path and keeps the first of each path. Verify lists what
// Discover found before what the lock holds.
func sortRoots(roots []Root) []Root {
	roots = slices.Clone(roots)
	slices.SortStableFunc(roots, func(a, b Root) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(roots, func(a, b Root) bool { return a.Path == b.Path })
}

// Verdict is a reviewer's judgement of a candidate, bound to its digest. The
// set of verdicts, and which are adverse, is package verdict's. The store
// shares it, so a lock and the store never disagree about a verdict.
type Verdict string

// None means no verdict was recorded. Any other is one of package verdict's,
// as a person wrote it in the lock.
const None Verdict = ""

func (v Verdict) valid() bool { return v == None || verdict.Valid(string(v)) }

// Adverse reports whether v warns against the candidate.
func (v Verdict) Adverse() bool { return verdict.Adverse(string(v)) }

// Lock is the reviewed state of a repository's roots.
type Lock struct {
	// Version is the format version it was read in; Marshal writes Version.
	Version int
	// Roots are sorted by Path, unique.
	Roots []Root
	// Candidates are sorted by Root, then by Name's bytes; (Root, Name)
	// is unique.
	Candidates []Candidate
}

// Candidate is one fully observed candidate: a directory or a regular file.
// It has no anomaly and no partial observation.
type Candidate struct {
	Root     string // a Path of the lock's Roots
	Name     []byte // raw bytes; shown only through NameLabel
	Kind     walker.Kind
	Manifest snapshot.Manifest
	Digest   snapshot.Hash
	Verdict  Verdict
	// Canonical is the canonical form of a settings or MCP candidate: the
	// form the local watch keeps, config.Facts' input. Its hash binds it to
	// the manifest. verify tells a change as facts against it. nil for every
	// other candidate.
	Canonical []byte
	// front is an observed skill's, agent's or command's frontmatter form. It
	// is never locked. It tells what a new one allows.
	front []byte
	// names show an observed configuration candidate's bound scripts and
	// imports by where they lie. They are claude.Root.BoundNames, keyed by
	// the entries relScripts gives them. Never locked.
	names anomaly.Names
}

func compareCandidates(a, b *Candidate) int {
	return cmp.Or(strings.Compare(a.Root, b.Root), bytes.Compare(a.Name, b.Name))
}

// Validate checks every invariant Parse checks. A Lock that validates
// marshals to bytes Parse accepts, and back to an equal Lock.
func (l *Lock) Validate() error {
	roots := make(map[string]claude.Kind, len(l.Roots))
	for i, r := range l.Roots {
		parse := ParseRoot
		if r.Kind == claude.Config {
			parse = ParseConfigDir
		}
		p, err := parse(r.Path)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		if p.Kind != r.Kind {
			return fmt.Errorf("%w: root %s: kind %q, want %q", ErrMalformed, r.Path, r.Kind, p.Kind)
		}
		if i > 0 && l.Roots[i-1].Path >= r.Path {
			return fmt.Errorf("%w: roots out of order or repeated at %s", ErrMalformed, r.Path)
		}
		roots[r.Path] = r.Kind
	}
	seen := make(map[string]bool, len(l.Candidates))
	for i := range l.Candidates {
		c := &l.Candidates[i]
		key := c.Root + "\x00" + string(c.Name)
		if seen[key] {
			return fmt.Errorf("%w: %s", ErrDuplicate, Ref{Root: c.Root, Name: c.Name}.Label())
		}
		seen[key] = true
		if i > 0 && compareCandidates(&l.Candidates[i-1], c) > 0 {
			return fmt.Errorf("%w: candidates out of order at %s", ErrMalformed, Ref{Root: c.Root, Name: c.Name}.Label())
		}
		kind, ok := roots[c.Root]
		if !ok {
			return fmt.Errorf("%w: candidate %s: its root is not listed in roots", ErrMalformed, Ref{Root: c.Root, Name: c.Name}.Label())
		}
		if err := c.validate(kind); err != nil {
			return fmt.Errorf("candidate %s: %w", Ref{Root: c.Root, Name: c.Name}.Label(), err)
		}
	}
	return nil
}

func (c *Candidate) validate(root claude.Kind) error {
	if !validName(c.Name) {
		return fmt.Errorf("%w: not a candidate name", ErrMalformed)
	}
	if !c.Verdict.valid() {
		return fmt.Errorf("%w: unknown verdict", ErrMalformed)
	}
	m := &c.Manifest
	if m.Partial {
		return fmt.Errorf("%w: a partial observation cannot be locked", ErrMalformed)
	}
	if m.ViaLink && len(m.Link) == 0 {
		return fmt.Errorf("%w: empty link text", ErrMalformed)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(m.Entries) == 0 || len(m.Entries[0].Path) != 0 {
		return fmt.Errorf("%w: no entry for the candidate itself", ErrMalformed)
	}
	if root == claude.Config {
		if err := c.validateConfig(); err != nil {
			return err
		}
	} else if c.Canonical != nil {
		return fmt.Errorf("%w: only a settings or MCP file has a canonical form", ErrMalformed)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		if e.Kind != snapshot.Dir && e.Kind != snapshot.File {
			// A nested link or an anomaly makes a candidate anomalous, and
			// an anomalous candidate is never locked.
			return fmt.Errorf("%w: a %s entry cannot be locked", ErrMalformed, e.Kind)
		}
		if gitMode(e.Kind, e.Mode) != e.Mode {
			return fmt.Errorf("%w: mode %s: a lock holds 0644 or 0755 for a file, 0755 for a dir", ErrMalformed, formatMode(e.Mode))
		}
	}
	var want walker.Kind
	switch m.Entries[0].Kind {
	case snapshot.Dir:
		want = walker.KindDir
	case snapshot.File:
		want = walker.KindFile
		if len(m.Entries) != 1 && root != claude.Config {
			return fmt.Errorf("%w: a file candidate has entries below it", ErrMalformed)
		}
		if root == claude.Skills {
			return fmt.Errorf("%w: a skills root holds no file candidates", ErrMalformed)
		}
	}
	if c.Kind != want {
		return fmt.Errorf("%w: kind %s, but its entries make it a %s", ErrMalformed, c.Kind, want)
	}
	d, err := m.Digest()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if d != c.Digest {
		return ErrDigest
	}
	return nil
}

// validateConfig checks a candidate of a folder of configuration files. It
// must be a file Claude Code reads by that name. The scripts or imports bound
// into it lie below it (walker.ScriptsPath/…). A settings or MCP file has its
// canonical form, whose hash and size are its own entry's.
func (c *Candidate) validateConfig() error {
	kind := claude.CandidateKind(claude.Config, c.Name)
	if kind == "" {
		return fmt.Errorf("%w: not a configuration file Claude Code reads", ErrMalformed)
	}
	m := &c.Manifest
	if m.Entries[0].Kind != snapshot.File || m.ViaLink {
		return fmt.Errorf("%w: a configuration candidate is a regular file", ErrMalformed)
	}
	for _, e := range m.Entries[1:] {
		if !bytes.HasPrefix(e.Path, []byte(walker.ScriptsPath+"/")) || e.Kind != snapshot.File {
			return fmt.Errorf("%w: a configuration candidate holds only the files it runs or imports", ErrMalformed)
		}
	}
	hasForm := kind == claude.KindSettings || kind == claude.KindMCP
	switch {
	case hasForm != (c.Canonical != nil):
		return fmt.Errorf("%w: a settings or MCP file, and only one, has a canonical form", ErrMalformed)
	case hasForm && (snapshot.Hash(blake3.Sum256(c.Canonical)) != m.Entries[0].Hash || int64(len(c.Canonical)) != m.Entries[0].Size):
		return fmt.Errorf("%w: a canonical form does not match its file's hash", ErrDigest)
	case hasForm && !utf8.Valid(c.Canonical):
		return fmt.Errorf("%w: a canonical form is not UTF-8", ErrMalformed)
	}
	return nil
}

// validName accepts what a directory entry can be called.
func validName(n []byte) bool {
	return len(n) > 0 && string(n) != "." && string(n) != ".." &&
		bytes.IndexByte(n, '/') < 0 && bytes.IndexByte(n, 0) < 0
}

// KeepVerdicts copies each verdict of prev to the candidate of l with the
// same root, name and digest. A verdict is bound to the bytes reviewed. It
// survives a re-lock only while they are unchanged. It returns the verdicts
// of prev that were not kept.
func (l *Lock) KeepVerdicts(prev *Lock) (dropped []Ref) {
	for i := range prev.Candidates {
		p := &prev.Candidates[i]
		if p.Verdict == None {
			continue
		}
		j, found := slices.BinarySearchFunc(l.Candidates, p, func(a Candidate, b *Candidate) int {
			return compareCandidates(&a, b)
		})
		if found && l.Candidates[j].Digest == p.Digest && l.Candidates[j].Kind == p.Kind {
			l.Candidates[j].Verdict = p.Verdict
			continue
		}
		dropped = append(dropped, p.ref())
	}
	return dropped
}

func (c *Candidate) ref() Ref {
	return Ref{Root: c.Root, Name: c.Name, Kind: c.Kind, Digest: c.Digest, Verdict: c.Verdict}
}
