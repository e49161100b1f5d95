// Package match finds the candidates on disk that a use may load. It
// lists roots and reads names and frontmatter, never the store. The gate
// judges what it finds.
package match

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Located is a candidate found on disk, with where it is.
type Located struct {
	Root claude.Root
	Name []byte
	Dir  bool // listed as a directory (or a link to one)
	Cand resolve.Candidate
	Cfg  walker.Config
}

// Key is the candidate's record key: its root's path and its name. Two
// Located of one key are one candidate, with one record (Same).
func (l *Located) Key() string { return l.Root.Path + "\x00" + string(l.Name) }

// Same reports whether l and o are one candidate: Key, without making it.
func (l *Located) Same(o *Located) bool {
	return l.Root.Path == o.Root.Path && bytes.Equal(l.Name, o.Name)
}

// Blind is a root that could not be listed, with why.
type Blind struct {
	Root   claude.Root
	Reason anomaly.Reason
}

// Discover lists the candidates of roots by name, without walking them.
// It also returns the roots that could not be listed (fanout, unreadable,
// not a directory). Those hide whatever candidates they hold.
func Discover(roots []claude.Root, cfg walker.Config) ([]Located, []Blind) {
	var specs []walker.RootSpec
	var kept []claude.Root
	for _, r := range roots {
		if resolve.Gated(r.Kind) {
			specs, kept = append(specs, r.Spec()), append(kept, r)
		}
	}
	var blind []Blind
	walked := walker.Discover(specs, cfg)
	n := 0
	for _, w := range walked {
		n += len(w.Candidates)
	}
	out := make([]Located, 0, n) // one allocation: a Located is large
	for i, w := range walked {
		r := kept[i]
		if len(w.Anomalies) > 0 {
			blind = append(blind, Blind{Root: r, Reason: w.Anomalies[0]})
		}
		for _, c := range w.Candidates {
			out = append(out, Located{Root: r, Name: c.Name, Dir: c.Kind == walker.KindDir, Cfg: cfg,
				Cand: resolve.CandidateOf(r, c.Name, c.Kind)})
		}
	}
	return out, blind
}

// ByPath is the candidate holding the file at path. That path is the root
// path, a slash and the candidate's name, then, for a folder, a slash and
// a path inside it. The path is never cleaned: the client resolves it,
// skillwire does not. So a relative path matches nothing, nor one with an
// empty, "." or ".." component. Nor does a path under a file: in a
// workflow's x.js/../other.js, another file runs.
func ByPath(found []Located, path string) []Located {
	if !strings.HasPrefix(path, "/") || slices.ContainsFunc(strings.Split(path[1:], "/"), func(c string) bool { return c == "" || c == "." || c == ".." }) {
		return nil
	}
	for _, l := range found {
		dir := l.Root.Path + "/"
		if !strings.HasPrefix(path, dir) {
			continue
		}
		rest := path[len(dir):]
		if rest == string(l.Name) || l.Dir && l.Cand.Kind != resolve.Workflow && strings.HasPrefix(rest, string(l.Name)+"/") {
			return []Located{l}
		}
	}
	return nil
}

// Nested are the command folders a use of kind may reach that hold a
// command file the client names name. A match that outranks a folder
// leaves it out. The client invokes a nested file by its base name:
// commands/sub/deploy.md is /deploy. Older documents name it /sub:deploy,
// so both readings count. A folder whose names could not all be listed
// may hold the name, so it counts too. Only names are listed here. What
// matches is walked whole like any other match.
func Nested(ctx context.Context, kind resolve.Kind, name string, found, matched []Located) []Located {
	if !resolve.Reaches(kind, resolve.Command) || name == "" {
		return nil
	}
	var out []Located
	for _, l := range found {
		if l.Cand.Kind != resolve.Command || !l.Dir || slices.ContainsFunc(matched, func(m Located) bool {
			return m.Same(&l) || resolve.Beats(kind, m.Cand, l.Cand)
		}) {
			continue
		}
		cfg := l.Cfg
		cfg.MaxFileBytes = 0 // names only: every non-empty file is left unread
		c := walker.Observe(ctx, l.Root.Path, l.Name, cfg)
		if c.Partial() || holdsCommand(&c, l.Name, name) {
			out = append(out, l)
		}
	}
	return out
}

// holdsCommand reports whether the command folder c holds a file that
// answers to typed. It also reports a folder that may hold one it could
// not list.
func holdsCommand(c *walker.Candidate, folder []byte, typed string) bool {
	for _, e := range c.Manifest.Entries {
		if e.Kind == snapshot.Anomaly {
			switch e.Reason {
			case anomaly.Fanout, anomaly.Unreadable, anomaly.Depth, anomaly.Unstable, anomaly.Swapped, anomaly.Budget, anomaly.Root:
				return true // names below it are unknown
			}
		}
		rel, ok := bytes.CutSuffix(e.Path, []byte(".md"))
		if !ok || len(rel) == 0 {
			continue
		}
		base := rel[bytes.LastIndexByte(rel, '/')+1:]
		if string(base) == typed || string(folder)+":"+string(bytes.ReplaceAll(rel, []byte("/"), []byte(":"))) == typed ||
			string(folder)+"/"+string(rel) == typed {
			return true
		}
	}
	return false
}

// AllIn reports whether every one of matched is one of read (Same).
func AllIn(matched, read []Located) bool {
	return !slices.ContainsFunc(matched, func(m Located) bool {
		return !slices.ContainsFunc(read, func(r Located) bool { return m.Same(&r) })
	})
}

// Once keeps the first of each candidate: one reached two ways is walked
// once.
func Once(ls []Located) []Located {
	seen := map[string]bool{}
	return slices.DeleteFunc(ls, func(l Located) bool {
		k := l.Key()
		dup := seen[k]
		seen[k] = true
		return dup
	})
}
