package auditlog

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/pathname"
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
	// FileName in the roots' configuration directory (claude.Root.ConfigDir:
	// <cfg>, <project>/.claude).
	Log string
	// ProjectLog: Log is the project's own <project>/.claude log, which
	// arrives with the repository and so proves nothing about who edited.
	ProjectLog bool
	// Base: a relative filePath is Base + "/" + filePath, joined as text
	// (the directory holding .claude; the configuration directory's parent).
	Base string
	// Roots are root paths; an entry naming anything else never matches.
	Roots []string
	// Named lists, for a root holding only named files (a configuration
	// directory, which may be the home), the names it holds: nothing else
	// in it is inside it.
	Named map[string][]string
}

// Scopes groups the roots by the configuration directory they belong to
// (claude.Root.ConfigDir), in the order claude.Places.Roots lists them
// (global first), each group with its log; env is $SKILLWIRE_AUDIT_LOG
// ("" when unset), one log then serving every group. A root of no
// configuration directory (the administrator's, an added folder's) is in
// no scope: no log speaks for it. Paths are cut as text, never cleaned.
func Scopes(env string, roots []claude.Root) ([]Scope, error) {
	if env != "" && !strings.HasPrefix(env, "/") {
		return nil, ErrRelativeLog
	}
	var out []Scope
	at := map[[2]string]int{}
	for _, r := range roots {
		if r.ConfigDir == "" {
			continue
		}
		k := [2]string{string(r.Scope), r.ConfigDir}
		i, ok := at[k]
		if !ok {
			sc := Scope{Scope: r.Scope, Log: env, Base: parent(r.ConfigDir)}
			if env == "" {
				sc.Log = strings.TrimRight(r.ConfigDir, "/") + "/" + FileName
				sc.ProjectLog = r.Scope != claude.Global
			}
			i = len(out)
			at[k] = i
			out = append(out, sc)
		}
		out[i].Roots = append(out[i].Roots, r.Path)
		if r.Kind == claude.Config {
			if out[i].Named == nil {
				out[i].Named = map[string][]string{}
			}
			out[i].Named[r.Path] = r.Names
		}
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
// absolute path goes to the global log when a global root holds it more
// closely than any root of the project's (the global roots include the
// home, which may hold the project).
func PickFor(scopes []Scope, global bool, filePath string) Scope {
	pick := Pick(scopes, global)
	if global || !strings.HasPrefix(filePath, "/") || pick.Scope == scopes[0].Scope {
		return pick
	}
	if g := scopes[0].holder(filePath); g >= 0 && g > pick.holder(filePath) {
		return scopes[0]
	}
	return pick
}

// holder is the length of the longest root of sc that holds the absolute
// path p, -1 when none does.
func (sc Scope) holder(p string) int {
	best := -1
	for _, r := range sc.Roots {
		if _, ok := sc.Within(p, r); ok && len(strings.TrimRight(r, "/")) > best {
			best = len(strings.TrimRight(r, "/"))
		}
	}
	return best
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

// Abs is the path filePath names in this scope, as text: a relative one
// joined to Base, nothing cleaned; false for an empty or dotted spelling.
func (sc Scope) Abs(filePath string) (string, bool) {
	if filePath == "" || Dotted(filePath) {
		return "", false
	}
	if strings.HasPrefix(filePath, "/") {
		return filePath, true
	}
	return strings.TrimRight(sc.Base, "/") + "/" + filePath, true
}

// Locate finds the file an entry's filePath names in this scope: the root
// it lies strictly inside, and its path below that root (the candidate's
// name first). ok is false for a dotted spelling and for a file outside
// the roots.
func (sc Scope) Locate(filePath string) (root, rel string, ok bool) {
	p, ok := sc.Abs(filePath)
	if !ok {
		return "", "", false
	}
	for _, r := range sc.Roots {
		if rest, found := sc.Within(p, r); found {
			return r, rest, true
		}
	}
	return "", "", false
}

// Within is the path of the absolute path p below root, one of sc's
// roots, when p lies strictly inside it (in a root of named files, inside
// one of them), as text.
func (sc Scope) Within(p, root string) (rel string, ok bool) {
	rest, ok := strings.CutPrefix(p, strings.TrimRight(root, "/")+"/")
	if !ok || rest == "" {
		return "", false
	}
	if names, named := sc.Named[root]; named {
		name, _, _ := strings.Cut(rest, "/")
		return rest, slices.Contains(names, name)
	}
	return rest, true
}
