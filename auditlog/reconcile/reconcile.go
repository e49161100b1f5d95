// Package reconcile is the integrity check (DESIGN.md §11). It reconciles
// every file-level change of a candidate between two manifests with the
// audit logs. A change a tool announced is told apart from one nobody did:
// possible tampering or data poisoning. An announcement only the project's
// own log makes arrives with the repository. It is told apart from one in a
// log the person keeps.
package reconcile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

// Source is one audit log as read, with the scopes it speaks for. One log,
// $SKILLWIRE_AUDIT_LOG, can serve the global and the project roots.
type Source struct {
	Entries []auditlog.Entry
	Scopes  []auditlog.Scope
	// ProjectLog: the project's own log; what only it explains is
	// ClassAnnouncedByProject.
	ProjectLog bool
}

// Candidate is one stored candidate: what was last observed, and what is
// there now.
type Candidate struct {
	ID   string
	Root string // the root's path, as the store has it
	Name []byte
	// Since is when Stored was observed. Only an entry after it can explain
	// a change.
	Since time.Time
	// Stored and Current are nil for a candidate that is absent. A partial
	// manifest is never diffed: the candidate is reported incomplete.
	Stored, Current *snapshot.Manifest
	// Names show the files it binds by the hash of where they lie
	// (claude.Root.BoundNames). nil shows every path by anomaly.ShowPath.
	Names anomaly.Names
	// Bound maps the manifest path of each file it binds to where that file
	// lies (claude.Root.BoundPaths). An entry names a bound file by that
	// path. The manifest's internal name names nothing.
	Bound map[string]string
}

// Input is everything Run looks at.
type Input struct {
	Candidates []Candidate
	Sources    []Source
	// Now bounds timestamps from above (with auditlog.ClockSkew).
	Now time.Time
	// Limits bound the SHA-256 of the files whose entries carry one;
	// zero means walker.DefaultLimits.
	Limits walker.Limits
	// Content returns the kept bytes of a file by its BLAKE3, verified. It
	// is nil, or says false, when they were not kept. The file is then read
	// again. Its hash counts only when the bytes read are the ones
	// observed.
	Content func(snapshot.Hash) ([]byte, bool)
}

// Mismatch says why a change is unexpected.
type Mismatch string

const (
	MismatchNoEntry   Mismatch = "no-entry"  // no entry names the file
	MismatchStale     Mismatch = "stale"     // every entry naming it is from before the observation, or from the future
	MismatchOperation Mismatch = "operation" // no entry's operation fits the change
	MismatchSHA256    Mismatch = "sha256"    // the last entry's sha256 is not the content observed
	MismatchState     Mismatch = "state"     // the last entry says deleted and the file is there, or the reverse
	// MismatchUnverified: the last entry fits but carries no sha256.
	// Nothing ties it to the bytes observed: announced, never verified.
	MismatchUnverified Mismatch = "unverified"
)

// Class is what a change's reconciliation is worth to the person.
type Class string

const (
	// ClassExpected: explained by a log that is not the project's own.
	ClassExpected Class = "expected"
	// ClassAnnouncedByProject: explained only by the project's own log.
	// That log travels with the repository: it informs, it proves nothing.
	ClassAnnouncedByProject Class = "announced-by-project"
	// ClassUnexpected: explained by no log.
	ClassUnexpected Class = "unexpected"
	// ClassUnknown: it could not be told. The last entry naming the file
	// carries a sha256, and the content observed could not be read to
	// compare. It was not kept, or is no longer on disk. Or the logs could
	// not be read. It counts as unexpected; it is never read as clean.
	ClassUnknown Class = "unknown"
)

// Change is one file change and its verdict.
type Change struct {
	Candidate string // id
	// Name is the candidate's name. A change of Path "" is the candidate
	// file itself: an agent's x.md, a settings.json. Its name says what it
	// is.
	Name   []byte
	Change snapshot.Change
	// Expected is true for both explained classes: some log explains it.
	Expected bool
	Class    Class
	Why      Mismatch // "" when expected
	// Implied: expected without an entry of its own. It lies inside a
	// directory whose deletion was announced. Or it is a directory added or
	// removed with everything below it announced.
	Implied bool
	// Hashed: the entry that explains the change carries a sha256, and it
	// is the file's content now. Never for a removal or an implied change.
	Hashed bool
	// Unread: unexpected for a sha256 that could not be compared. The
	// file's content observed could not be read (ClassUnknown).
	Unread bool
	// Entry is the entry that explains the change, nil when none. For
	// ClassExpected it is one from a log other than the project's own: its
	// source is the one that counts. For an unexpected change it is the
	// last entry naming the file.
	Entry *auditlog.Entry
}

// Result is the result of Run.
type Result struct {
	Changes    []Change
	Unexpected int
	// Suspicious counts entries whose path has a ".", ".." or empty
	// component. It counts those outside the roots their log speaks for,
	// too. They never match anything.
	Suspicious int
	// Incomplete lists candidates whose stored or current manifest is
	// partial. They could not be compared.
	Incomplete []string
}

// Run diffs every candidate and reconciles each change with the audit
// logs. A change is expected only when an entry explains it. The entry
// names the file byte for byte where it lies, nothing cleaned. Its
// timestamp lies after the observation and before Now plus the clock
// skew. Its operation fits the change. The last such entry agrees with
// the disk. After a delete the file is gone; otherwise its SHA-256 is the
// content observed. Content written after the observation never vouches
// for it. A change no entry in the window names can still be implied.
// Everything below an expected delete is. So is an added or removed
// directory with every change below expected. ClassExpected needs a log
// other than the project's own (DESIGN.md §11). TestReconcileRules names
// each case.
func Run(in Input) Result {
	if in.Limits.MaxDepth == 0 {
		in.Limits = walker.DefaultLimits
	}
	r := reconciler{in: in, index: map[string][]indexed{}}
	var out Result
	out.Suspicious = r.buildIndex()
	for i := range in.Candidates {
		c := &in.Candidates[i]
		if c.Stored != nil && c.Stored.Partial || c.Current != nil && c.Current.Partial {
			out.Incomplete = append(out.Incomplete, c.ID)
			continue
		}
		for _, rc := range r.candidate(c) {
			if !rc.Expected {
				out.Unexpected++
			}
			out.Changes = append(out.Changes, rc)
		}
	}
	return out
}

type reconciler struct {
	in Input
	// index maps root + "\x00" + the absolute path an entry names to the
	// entries naming it. They are in log order.
	index map[string][]indexed
}

type indexed struct {
	e          *auditlog.Entry
	src, order int
	project    bool
}

// buildIndex files every entry under the path it names within each scope.
// That path is inside a root of the scope, or a file a candidate of one
// binds. It counts the suspicious entries, which name neither.
func (r *reconciler) buildIndex() (suspicious int) {
	bound := map[string][]string{} // absolute path -> roots binding it
	for i := range r.in.Candidates {
		c := &r.in.Candidates[i]
		for _, p := range c.Bound {
			if !slices.Contains(bound[p], c.Root) {
				bound[p] = append(bound[p], c.Root)
			}
		}
	}
	for s := range r.in.Sources {
		src := &r.in.Sources[s]
		for i := range src.Entries {
			e := &src.Entries[i]
			var keys []string
			for _, sc := range src.Scopes {
				p, ok := sc.Abs(e.FilePath)
				if !ok {
					continue
				}
				for _, root := range sc.Roots {
					if _, in := sc.Within(p, root); in || slices.Contains(bound[p], root) {
						if k := root + "\x00" + p; !slices.Contains(keys, k) {
							keys = append(keys, k)
						}
					}
				}
			}
			for _, k := range keys {
				r.index[k] = append(r.index[k], indexed{e: e, src: s, order: i, project: src.ProjectLog})
			}
			if len(keys) == 0 {
				suspicious++
			}
		}
	}
	for _, l := range r.index {
		slices.SortStableFunc(l, func(a, b indexed) int {
			if a.src != b.src {
				return a.src - b.src
			}
			return a.order - b.order
		})
	}
	return suspicious
}

// realPath is where the file at path of c lies, as text. Nothing lies below
// a candidate that is a file: such a path is a file it binds. realPath says
// false for it, unless c.Bound says where it lies.
func realPath(c *Candidate, path []byte) (string, bool) {
	at := strings.TrimRight(c.Root, "/") + "/" + string(c.Name)
	if len(path) == 0 {
		return at, true
	}
	if isFile(c.Stored) || isFile(c.Current) {
		p, ok := c.Bound[string(path)]
		return p, ok
	}
	return at + "/" + string(path), true
}

// isFile reports whether the candidate m describes is itself a file.
func isFile(m *snapshot.Manifest) bool {
	return m != nil && len(m.Entries) > 0 && len(m.Entries[0].Path) == 0 && m.Entries[0].Kind == snapshot.File
}

// candidate reconciles the changes of one candidate.
func (r *reconciler) candidate(c *Candidate) []Change {
	changes := snapshot.Diff(c.Stored, c.Current)
	out := make([]Change, len(changes))
	windowed := make([]bool, len(changes))
	// Top-down: parents precede children in manifest order. So a removed
	// directory's verdict is known before its contents are judged.
	deleted := map[string]Class{}
	for i, ch := range changes {
		rc := &out[i]
		*rc = Change{Candidate: c.ID, Name: c.Name, Change: ch, Class: ClassUnexpected}
		all, win := r.entries(c, ch.Path)
		windowed[i] = len(win) > 0
		r.classify(c, rc, all, win)
		if parentClass, ok := deleted[string(pathname.Parent(ch.Path))]; !rc.Expected && !windowed[i] && ch.Type == snapshot.Removed && len(ch.Path) > 0 && ok {
			rc.imply(parentClass)
		}
		if rc.Expected && ch.Type == snapshot.Removed && (rc.Implied || rc.Entry != nil && rc.Entry.Operation == auditlog.Delete) {
			deleted[string(ch.Path)] = rc.Class
		}
	}
	// Bottom-up: a directory added or removed with everything below it.
	for i := len(changes) - 1; i >= 0; i-- {
		ch := &changes[i]
		rc := &out[i]
		if rc.Expected || windowed[i] || !isDir(ch) || ch.Type != snapshot.Added && ch.Type != snapshot.Removed {
			continue
		}
		n, all, class := 0, true, ClassExpected
		for j := i + 1; j < len(changes) && isBelow(changes[j].Path, ch.Path); j++ {
			if changes[j].Type == ch.Type {
				n++
				all = all && out[j].Expected
				if out[j].Class == ClassAnnouncedByProject {
					class = ClassAnnouncedByProject
				}
			}
		}
		if n > 0 && all {
			rc.imply(class)
		}
	}
	return out
}

func (rc *Change) imply(class Class) {
	rc.Expected, rc.Implied, rc.Class, rc.Why, rc.Entry, rc.Hashed, rc.Unread = true, true, class, "", nil, false, false
}

func isDir(ch *snapshot.Change) bool {
	e := ch.New
	if e == nil {
		e = ch.Old
	}
	return e.Kind == snapshot.Dir
}

// isBelow reports whether q is inside directory p of the same candidate. ""
// is the candidate itself.
func isBelow(q, p []byte) bool {
	if len(p) == 0 {
		return len(q) > 0
	}
	return len(q) > len(p) && q[len(p)] == '/' && bytes.HasPrefix(q, p)
}

// entries returns the entries naming the file at path of c, in log order.
// all are every one of them; win are those inside the window.
func (r *reconciler) entries(c *Candidate, path []byte) (all, win []indexed) {
	p, ok := realPath(c, path)
	if !ok {
		return nil, nil
	}
	limit := r.in.Now.Add(auditlog.ClockSkew)
	for _, ix := range r.index[c.Root+"\x00"+p] {
		all = append(all, ix)
		if ix.e.Timestamp.After(c.Since) && !ix.e.Timestamp.After(limit) {
			win = append(win, ix)
		}
	}
	return all, win
}

// classify judges the change on every log. When that explains it, it judges
// again on the logs other than the project's own.
func (r *reconciler) classify(c *Candidate, rc *Change, all, win []indexed) {
	content := r.content(c, &rc.Change)
	v := judge(rc.Change.Type, all, win, content)
	rc.Expected, rc.Why, rc.Entry, rc.Hashed = v.expected, v.why, v.entry, v.hashed
	if !v.expected {
		// Only a regular file has content: "" for one is content unread.
		rc.Unread = v.why == MismatchSHA256 && rc.Change.New.Kind == snapshot.File && content() == ""
		return
	}
	rc.Class = ClassAnnouncedByProject
	if g := judge(rc.Change.Type, notProject(all), notProject(win), content); g.expected {
		rc.Class, rc.Hashed, rc.Entry = ClassExpected, g.hashed, g.entry
	}
}

func notProject(l []indexed) []indexed {
	return slices.DeleteFunc(slices.Clone(l), func(ix indexed) bool { return ix.project })
}

type verdict struct {
	expected, hashed bool
	why              Mismatch
	entry            *auditlog.Entry
}

// judge applies the direct rule. content returns the hex SHA-256 of the
// file now, "" when it has none.
func judge(t snapshot.ChangeType, all, win []indexed, content func() string) verdict {
	switch {
	case len(all) == 0:
		return verdict{why: MismatchNoEntry}
	case len(win) == 0:
		return verdict{why: MismatchStale, entry: all[len(all)-1].e}
	}
	last := win[len(win)-1].e
	var fit *auditlog.Entry
	for _, ix := range win {
		if fits(ix.e.Operation, t) {
			fit = ix.e
		}
	}
	if fit == nil {
		return verdict{why: MismatchOperation, entry: last}
	}
	gone := t == snapshot.Removed
	switch {
	case (last.Operation == auditlog.Delete) != gone:
		return verdict{why: MismatchState, entry: last}
	case !gone && last.SHA256 == "":
		return verdict{why: MismatchUnverified, entry: last}
	case !gone && content() != last.SHA256:
		return verdict{why: MismatchSHA256, entry: last}
	}
	v := verdict{expected: true, entry: last, hashed: !gone}
	if !fits(last.Operation, t) {
		v.entry = fit
	}
	return v
}

func fits(op auditlog.Operation, t snapshot.ChangeType) bool {
	switch op {
	case auditlog.Create:
		return t == snapshot.Added
	case auditlog.Update, auditlog.Refine, auditlog.Migrate, auditlog.Rollback:
		return t == snapshot.Modified || t == snapshot.ModeChanged
	case auditlog.Delete:
		return t == snapshot.Removed
	}
	return false
}

// content returns a function giving the hex SHA-256 of the file's observed
// content (ch.New.Hash). It is computed at most once, from the kept bytes
// if any. Otherwise the walker's reader reads the file. That sum is kept
// only when the BLAKE3 of what was read is the observed hash. Only a
// regular file has content. Anything else has none (""), as has content no
// longer the observed one.
func (r *reconciler) content(c *Candidate, ch *snapshot.Change) func() string {
	var sum string
	done := false
	return func() string {
		if done {
			return sum
		}
		done = true
		if ch.New == nil || ch.New.Kind != snapshot.File {
			return ""
		}
		if r.in.Content != nil {
			if b, ok := r.in.Content(ch.New.Hash); ok && snapshot.Hash(blake3.Sum256(b)) == ch.New.Hash {
				s := sha256.Sum256(b)
				sum = hex.EncodeToString(s[:])
				return sum
			}
		}
		dir, name, path := c.Root, c.Name, ch.Path
		if p, ok := c.Bound[string(ch.Path)]; ok && (isFile(c.Stored) || isFile(c.Current)) {
			i := strings.LastIndexByte(p, '/')
			dir, name, path = p[:i+1], []byte(p[i+1:]), nil
		}
		s, b3, reason, err := walker.SHA256Observed(dir, name, path, r.in.Limits)
		if err == nil && reason == 0 && b3 == ch.New.Hash {
			sum = hex.EncodeToString(s[:])
		}
		return sum
	}
}
