package claude

import (
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/walker"
)

// BoundNames names the files candidate name of r binds by a hash of where
// they lie (walker.ScriptEntry). They are the scripts its settings run,
// the files its instructions import, and a plugin's files outside the
// cache. Each is named as a person knows it, for commands and JSON alike:
// "~/.claude/hooks/x.sh", "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh",
// "/opt/x.sh". canons are the candidate's canonical forms at hand: on
// disk, delivered, reviewed; nil ones are skipped. A file that only a
// form no longer kept ran keeps its hash. A name is given only where the
// entry's hash is the hash of the very path the walker binds. So no name
// is ever a guess. A plugin's marketplace.json is named too. So is the
// candidate itself, as entry "", never "<root>". A settings or
// instruction file is named by where it lies
// ("$CLAUDE_PROJECT_DIR/.claude/settings.json"), any other by its name.
func (r Root) BoundNames(name []byte, canons ...[]byte) anomaly.Names {
	var names anomaly.Names
	if len(name) > 0 {
		s, ok := "", false
		if r.Home != "" || r.Project != "" {
			s, ok = r.showOutside(strings.TrimSuffix(r.Path, "/") + "/" + string(name))
		}
		if !ok {
			s = anomaly.ShowPath(name)
		}
		names = anomaly.Names{"": s}
	}
	r.eachBound(name, canons, func(e, p string) {
		s, ok := r.showOutside(p)
		if !ok {
			return
		}
		if names == nil {
			names = anomaly.Names{}
		}
		NameBound(names, e, s)
	})
	return names
}

// NameBound names in names the bound entry (walker.ScriptEntry) shown as
// s. It also names what a link there reaches (walker.ScriptTargetSuffix).
func NameBound(names anomaly.Names, entry, s string) {
	names[entry] = s
	names[entry+walker.ScriptTargetSuffix] = s + " (link target)"
}

// BoundPaths maps the manifest path of each file candidate name of r binds
// to the absolute path it was bound from. BoundNames finds the same files.
// The path is where an audit entry must say the file is. What a link
// reaches has no path of its own here. nil when the candidate binds
// nothing.
func (r Root) BoundPaths(name []byte, canons ...[]byte) map[string]string {
	var paths map[string]string
	r.eachBound(name, canons, func(e, p string) {
		if paths == nil {
			paths = map[string]string{}
		}
		paths[e] = p
	})
	return paths
}

// eachBound calls f with the manifest path and the absolute path of every
// file candidate name of r binds in canons. nil canons are skipped.
func (r Root) eachBound(name []byte, canons [][]byte, f func(entry, path string)) {
	for _, p := range r.outsideFiles(name) {
		f(string(walker.ScriptEntry(p)), p)
	}
	bound := r.boundFiles(name)
	if bound == nil {
		return
	}
	for _, c := range canons {
		if c == nil {
			continue
		}
		for _, p := range bound(c) {
			if strings.HasPrefix(p, "/") { // the walker binds absolute paths only
				f(string(walker.ScriptEntry(p)), p)
			}
		}
	}
}

// boundFiles is what the walker calls to list the files candidate name of
// r binds (NameSpec.Scripts). It is taken from r's own Spec, so one rule
// says what is bound and what is named.
func (r Root) boundFiles(name []byte) func([]byte) []string {
	spec := r.Spec()
	if spec.Each != nil {
		return spec.Each.Scripts
	}
	for _, n := range spec.Names {
		if n.Name == string(name) {
			return n.Scripts
		}
	}
	return nil
}

// showOutside shows the absolute path p under the deepest of r's anchors
// that holds it, home when the project is home. Else p shows as absolute.
func (r Root) showOutside(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	anchor, rel := "/", p[1:]
	best := -1
	for _, a := range []struct{ dir, word string }{{r.Home, "~/"}, {r.Project, "$CLAUDE_PROJECT_DIR/"}} {
		if a.dir == "" || a.dir == "/" || len(a.dir) <= best {
			continue
		}
		if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(a.dir, "/")+"/"); ok {
			anchor, rel, best = a.word, rest, len(a.dir)
		}
	}
	return anomaly.ShowOutside(anchor, []byte(rel))
}
