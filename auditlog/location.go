package auditlog

import (
	"cmp"
	"errors"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/pathname"
)

// Where the logs live, and what the paths in them are relative to: one
// rule for check, audit append/show/verify and, later, the hook and the
// daemon.

// FileName is the log's name in <cfg> (the global roots) and in
// <project>/.claude (the project's roots), where skill tools already write.
const FileName = ".audit-log.jsonl"

// ErrRelativeLog refuses a $SKILLWIRE_AUDIT_LOG that is not absolute: it
// would name a different file in every working directory.
var ErrRelativeLog = errors.New("SKILLWIRE_AUDIT_LOG must be an absolute path")

// Scope is one log and the roots it speaks for.
type Scope struct {
	Scope claude.Scope
	// Log is the log's path: $SKILLWIRE_AUDIT_LOG when set, else
	// FileName in the directory holding the roots (<cfg>, <project>/.claude).
	Log string
	// ProjectLog: Log is the project's own <project>/.claude log, which
	// arrives with the repository and so proves nothing about who edited.
	ProjectLog bool
	// Base: a relative filePath is Base + "/" + filePath, joined as text
	// (the directory holding .claude; the configuration directory's parent).
	Base string
	// Roots are root paths; an entry naming anything else never matches.
	Roots []string
}

// Scopes groups the roots (global first, as claude.Places.Roots lists them) by
// scope, each with its log; env is $SKILLWIRE_AUDIT_LOG ("" when unset),
// one log then serving every scope. Paths are cut as text, never cleaned.
func Scopes(env string, roots []claude.Root) ([]Scope, error) {
	if env != "" && !strings.HasPrefix(env, "/") {
		return nil, ErrRelativeLog
	}
	var out []Scope
	for _, r := range roots {
		i := len(out) - 1
		if i < 0 || out[i].Scope != r.Scope {
			dir := parent(r.Path)
			sc := Scope{Scope: r.Scope, Log: env, Base: parent(dir)}
			if env == "" {
				sc.Log = strings.TrimRight(dir, "/") + "/" + FileName
				sc.ProjectLog = r.Scope == claude.Project
			}
			out = append(out, sc)
			i++
		}
		out[i].Roots = append(out[i].Roots, r.Path)
	}
	return out, nil
}

// parent is pathname.Parent of p without its trailing slashes; a path with
// no directory part left (a relative name, "/") is under "/".
func parent(p string) string {
	return cmp.Or(pathname.Parent(strings.TrimRight(p, "/")), "/")
}

// Pick is the scope a command works on: the global one (the first) with
// global, else the project's when there is a project.
func Pick(scopes []Scope, global bool) Scope {
	for _, sc := range scopes {
		if sc.Scope == claude.Project && !global {
			return sc
		}
	}
	return scopes[0]
}

// PickFor is the scope an entry for filePath goes to: Pick, except that an
// absolute path inside a global root goes to the global log.
func PickFor(scopes []Scope, global bool, filePath string) Scope {
	if _, _, inGlobal := scopes[0].Locate(filePath); !global && strings.HasPrefix(filePath, "/") && inGlobal {
		return scopes[0]
	}
	return Pick(scopes, global)
}

// Dotted reports a filePath spelled with a ".", ".." or empty component:
// such a spelling names a file only through a resolution skillwire never
// makes, so it never matches anything.
func Dotted(p string) bool {
	for i, c := range strings.Split(p, "/") {
		if c == "." || c == ".." || c == "" && (i > 0 || len(p) == 1) {
			return true
		}
	}
	return false
}

// Locate finds the file an entry's filePath names in this scope: the root
// it lies strictly inside, and its path below that root (the candidate's
// name first). A relative filePath is joined to Base as text; nothing is
// cleaned. ok is false for a dotted spelling and for a file outside the
// roots.
func (sc Scope) Locate(filePath string) (root, rel string, ok bool) {
	if filePath == "" || Dotted(filePath) {
		return "", "", false
	}
	p := filePath
	if !strings.HasPrefix(p, "/") {
		p = strings.TrimRight(sc.Base, "/") + "/" + p
	}
	for _, r := range sc.Roots {
		if rest, found := strings.CutPrefix(p, strings.TrimRight(r, "/")+"/"); found && rest != "" {
			return r, rest, true
		}
	}
	return "", "", false
}
