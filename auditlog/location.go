package auditlog

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/pathname"
)

// Where the logs live, and what the paths in them are relative to. One rule
// serves check, audit append/show/verify, and later the hook and the
// daemon.

// FileName is the log's name in <cfg> (the global roots) and in
// <project>/.claude. There skill tools already write.
const FileName = ".audit-log.jsonl"

// ErrRelativeLog refuses a $SKILLWIRE_AUDIT_LOG that is not absolute. It
// would name a different file in every working directory.
var ErrRelativeLog = errors.New("SKILLWIRE_AUDIT_LOG must be an absolute path")

// Scope is one log and the roots it speaks for.
type Scope struct {
	Scope claude.Scope
	// Log is the log's path: $SKILLWIRE_AUDIT_LOG when set. Otherwise it is
	// FileName in the roots' configuration directory
	// (claude.Root.ConfigDir). That is <cfg>, or <project>/.claude.
	Log string
	// ProjectLog: Log is the project's own <project>/.claude log. It
	// arrives with the repository, so it proves nothing about who edited.
	ProjectLog bool
	// Base: a relative filePath is Base + "/" + filePath, joined as text.
	// Base is the directory holding .claude: the configuration directory's
	// parent.
	Base string
	// Roots are root paths; an entry naming anything else never matches.
	Roots []string
	// Named lists the names a root holds when it holds only named files.
	// Such a root is a configuration directory, which may be the home.
	// Nothing else in it is inside it.
	Named map[string][]string
}

// Scopes groups the roots by their configuration directory
// (claude.Root.ConfigDir). The groups come in the order claude.Places.Roots
// lists them, global first. Each has its log. env is $SKILLWIRE_AUDIT_LOG,
// "" when unset. When set, one log serves every group. A root of no
// configuration directory is in no scope: no log speaks for it. Those are
// the administrator's roots and an added folder's. Paths are cut as text,
// never cleaned.
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

// parent is pathname.Parent of p without its trailing slashes. A path with
// no directory part left is under "/": a relative name, or "/".
func parent(p string) string {
	return cmp.Or(pathname.Parent(strings.TrimRight(p, "/")), "/")
}

// Pick is the scope a command works on. With global it is the global one,
// the first. Otherwise it is the project's, when there is a project.
func Pick(scopes []Scope, global bool) Scope {
	for _, sc := range scopes {
		if sc.Scope == claude.Project && !global {
			return sc
		}
	}
	return scopes[0]
}

// PickFor is the scope an entry for filePath goes to: Pick, with one
// exception. An absolute path goes to the global log when a global root
// holds it more closely. That is, more closely than any root of the
// project's. The global roots include the home, which may hold the project.
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
// path p. It is -1 when none does.
func (sc Scope) holder(p string) int {
	best := -1
	for _, r := range sc.Roots {
		if _, ok := sc.Within(p, r); ok && len(strings.TrimRight(r, "/")) > best {
			best = len(strings.TrimRight(r, "/"))
		}
	}
	return best
}

// Dotted reports a filePath spelled with a ".", ".." or empty component.
// Such a spelling names a file only through a resolution skillwire never
// makes. So it never matches anything.
func Dotted(p string) bool {
	for i, c := range strings.Split(p, "/") {
		if c == "." || c == ".." || c == "" && (i > 0 || len(p) == 1) {
			return true
		}
	}
	return false
}

// Abs is the path filePath names in this scope, as text. A relative one is
// joined to Base, nothing cleaned. It is false for an empty or dotted
// spelling.
func (sc Scope) Abs(filePath string) (string, bool) {
	if filePath == "" || Dotted(filePath) {
		return "", false
	}
	if strings.HasPrefix(filePath, "/") {
		return filePath, true
	}
	return strings.TrimRight(sc.Base, "/") + "/" + filePath, true
}

// Locate finds the file an entry's filePath names in this scope. It returns
// the root the file lies strictly inside, and its path below that root. The
// path starts with the candidate's name. ok is false for a dotted spelling
// and for a file outside the roots.
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

// Within is the path of the absolute path p below root, as text. root is
// one of sc's roots. p must lie strictly inside it; in a root of named
// files, inside one of them.
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
