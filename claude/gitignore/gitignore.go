// Package gitignore tells which folders of a work tree git ignores, as
// `git check-ignore` tells Claude Code, without running git. Patterns are
// go-git's; this package reads the files git reads and applies git's rules
// around them: a folder below an ignored one is ignored, and a folder
// holding a tracked file is not.
//
// Every doubt answers "not ignored". A folder wrongly called ignored is
// one skillwire stops watching while the client loads it. A folder wrongly
// watched costs only a listing.
package gitignore

import (
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Config is where a repository is and what git would see around it.
type Config struct {
	// Top is the work tree's top: the folder holding .git.
	Top string
	// LookupEnv is the environment git runs in; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Repo answers for one work tree. It reads each file once, on first need.
// It is not safe for concurrent use.
type Repo struct {
	top  string
	git  gitDirs
	base []rule            // info/exclude over core.excludesFile
	ok   bool              // the repository could be read: else nothing is ignored
	dirs map[string]*level // each folder's .gitignore, by path below top
	idx  *tracked
}

// level is one folder's .gitignore. Unknown: it could not be read whole,
// so nothing below the folder may be called ignored.
type level struct {
	rules   []rule
	unknown bool
}

// Open reads nothing yet but the repository's layout and configuration.
func Open(cfg Config) *Repo {
	env := cfg.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	r := &Repo{top: cfg.Top, dirs: map[string]*level{}}
	if !plain(cfg.Top) || steered(env) {
		return r
	}
	g, ok := findGitDirs(cfg.Top)
	if !ok {
		return r
	}
	c := readConfig(g, env)
	if c.ignoreCase || c.hashSize == 0 {
		return r
	}
	r.git, r.base, r.ok = g, c.excludes(g), true
	r.idx = &tracked{path: g.index, hashSize: c.hashSize}
	return r
}

// Ignored is the set of dirs git check-ignore reports ignored. Each is an
// absolute folder path below the top; any other is not ignored.
func (r *Repo) Ignored(dirs []string) map[string]bool {
	out := map[string]bool{}
	if !r.ok {
		return out
	}
	var matched []string
	for _, d := range dirs {
		if rel, ok := r.below(d); ok && r.excluded(rel) {
			matched = append(matched, rel)
		}
	}
	if len(matched) == 0 {
		return out
	}
	// Only a pattern's match costs the index: most checkouts ignore
	// node_modules, few track anything in it.
	busy, ok := r.idx.holding(matched)
	if !ok {
		return out
	}
	for _, rel := range matched {
		if !busy[rel] {
			out[r.abs(rel)] = true
		}
	}
	return out
}

// excluded reports whether a pattern excludes rel or a folder above it.
// Git never looks inside an excluded folder, so a negation there cannot
// bring rel back.
func (r *Repo) excluded(rel string) bool {
	parts := strings.Split(rel, "/")
	rules := r.base
	nonASCII := false // go-git matches a rule against any name of the path
	for k := 1; k <= len(parts); k++ {
		l := r.level(parts[:k-1])
		if l.unknown {
			return false
		}
		rules = append(rules[:len(rules):len(rules)], l.rules...)
		nonASCII = nonASCII || !ascii(parts[k-1])
		if last(rules, parts[:k], nonASCII) == gitignore.Exclude {
			return true
		}
	}
	return false
}

// last is the verdict of the last rule matching path, as git takes it. On
// a name with a non-ASCII byte, a bytewise rule met first leaves it
// NoMatch: git may have matched it where go-git did not.
func last(rules []rule, path []string, nonASCII bool) gitignore.MatchResult {
	for i := len(rules) - 1; i >= 0; i-- {
		if nonASCII && rules[i].bytewise {
			return gitignore.NoMatch
		}
		if m := rules[i].Match(path, true); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// level is the .gitignore of the folder at parts below the top, read once.
func (r *Repo) level(parts []string) *level {
	key := strings.Join(parts, "/")
	if l, ok := r.dirs[key]; ok {
		return l
	}
	dir := r.top
	if key != "" {
		dir = r.abs(key)
	}
	rules, err := readPatterns(dir+"/.gitignore", parts)
	l := &level{rules: rules, unknown: err != nil}
	r.dirs[key] = l
	return l
}

// below is d relative to the top, when d is a plain path inside it.
func (r *Repo) below(d string) (string, bool) {
	prefix := r.top + "/"
	if r.top == "/" {
		prefix = "/"
	}
	rel, ok := strings.CutPrefix(d, prefix)
	return rel, ok && rel != "" && plain("/"+rel)
}

func (r *Repo) abs(rel string) string {
	if r.top == "/" {
		return "/" + rel
	}
	return r.top + "/" + rel
}

// steered: git run in this environment may read another repository, index
// or configuration than the one found here.
func steered(env func(string) (string, bool)) bool {
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CEILING_DIRECTORIES"} {
		if _, ok := env(k); ok {
			return true
		}
	}
	return false
}

// plain: absolute, and every component a name (no "", ".", "..").
func plain(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}
