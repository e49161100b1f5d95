package gate

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
)

// resolveFound is the candidates of found that u's name may load. A
// plugin's "plugin:name" is every installed version of every plugin of
// that name: the cache keeps more than one, and which is active is read
// from a file the gate does not trust to name it, so the worst answer
// wins. A cached version answers to its cache folder's plugin name and to
// the name its .claude-plugin/plugin.json gives, which is the one Claude
// Code uses (folder foo/1.0.0 whose plugin.json says bar loads bar:ps),
// and to any name when that file could not be read. Any other name is resolved by folder and by frontmatter name
// (resolve.Resolve), the names read here from each candidate the name could reach;
// a candidate whose name could not be read may bear any name, so it counts
// unless a match outranks it.
func resolveFound(u Use, found []located) []located {
	if u.Kind == resolve.Workflow {
		return workflowsNamed(u, found)
	}
	if p, local, ok := strings.Cut(u.Name, ":"); ok {
		if p == "" || local == "" {
			return nil
		}
		var out []located
		for _, l := range found {
			if l.cand.Scope == resolve.Plugin && (string(l.cand.Plugin) == p || l.cand.Cached() && mayBeNamed(l, p)) {
				l.cand.Kind = u.Kind
				out = append(out, l)
			}
		}
		// A skill of its own may bear a colon in its frontmatter name: the
		// client loads "evil:skill" by it, so it answers to the whole name.
		unknown := readNames(u.Kind, found)
		for i, l := range found {
			if l.cand.Scope != resolve.Plugin && resolve.Reaches(u.Kind, l.cand.Kind) &&
				(l.cand.Name != nil && l.cand.AnswersTo(u.Kind, u.Name, true) || slices.Contains(unknown, i)) {
				out = append(out, l)
			}
		}
		return out
	}
	unknown := readNames(u.Kind, found)
	cands := make([]resolve.Candidate, len(found))
	for i := range found {
		cands[i] = found[i].cand
	}
	var out []located
	for _, i := range resolve.Index(u.Kind, u.Name, cands) {
		out = append(out, found[i])
	}
	for _, i := range unknown {
		l := found[i]
		if slices.ContainsFunc(out, func(m located) bool {
			return m.root.Path == l.root.Path && bytes.Equal(m.name, l.name) || resolve.Beats(u.Kind, m.cand, l.cand)
		}) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// nameBudget bounds the time spent reading other candidates' names for
// one use: reading and parsing every frontmatter is the tree author's to
// make slow (200 skills of 64 KiB list-shaped YAML), so past the budget
// the names left unread are unknown: each such candidate may bear any name
// and counts, and its record is read by id (a BLOCK there is found without
// a byte of it read).
const nameBudget = 300 * time.Millisecond

// nameChunk is how many front files are read between looks at the clock.
const nameChunk = 8

// readNames fills the frontmatter name of every candidate of found that
// kind reaches, reading only its front file through the walker, and
// returns the indexes of those whose name could not be read, or was not
// read within nameBudget.
func readNames(kind resolve.Kind, found []located) []int {
	start := time.Now()
	var unknown []int
	for lo := 0; lo < len(found); {
		hi := lo + 1
		for hi < len(found) && found[hi].root.Path == found[lo].root.Path && found[hi].root.Kind == found[lo].root.Kind {
			hi++
		}
		group := found[lo:hi]
		if resolve.Reaches(kind, group[0].cand.Kind) && group[0].cand.Scope != resolve.Plugin {
			for c := 0; c < len(group); c += nameChunk {
				chunk := group[c:min(c+nameChunk, len(group))]
				if time.Since(start) > nameBudget {
					for i := range chunk {
						unknown = append(unknown, lo+c+i)
					}
					continue
				}
				names := make([][]byte, len(chunk))
				for i, l := range chunk {
					names[i] = l.name
				}
				for i, f := range walker.Fronts(chunk[0].root.Spec(), names) {
					name, ok := resolve.FrontName(f)
					if !ok {
						unknown = append(unknown, lo+c+i)
					}
					chunk[i].cand.Name = name
				}
			}
		}
		lo = hi
	}
	return unknown
}

// maxPluginJSON bounds the plugin.json read to learn a plugin's name, as
// the local watch bounds a configuration file.
const maxPluginJSON = config.MaxJSON

// mayBeNamed reports whether the cached plugin version l may be the plugin
// p by its plugin.json: it says so, or it could not be read whole (a link,
// a special or oversize file) or gives no name the client takes
// (claude.ManifestName), so that the name Claude Code gives it is unknown.
// The file is read without following a link at .claude-plugin or
// plugin.json; the folders above the version were listed without following
// one (walker.Discover). A name read only adds matches to the folder's,
// never takes one away.
func mayBeNamed(l located, p string) bool {
	name, unknown := manifestOf(l)
	return unknown || name != "" && name == p
}

// manifestOf is the name the plugin.json of the cached version l gives
// ("" when it has none: the client names it by its folder), or unknown when
// that file is there but gives no name the client takes or cannot be read
// whole (claude.ManifestName).
func manifestOf(l located) (name string, unknown bool) {
	data, missing, unreadable, err := readPluginFile(l, "", ".claude-plugin", "plugin.json", maxPluginJSON)
	switch {
	case unreadable || err != nil:
		return "", true
	case missing:
		return "", false
	}
	name, ok := claude.ManifestName(data)
	return name, !ok
}

// readPluginFile reads sub/file of the version directory l (inside, when
// set, a folder within it), through the walker: never through a link at
// sub or file, bounded by limit. missing: it is not there; unknown: it is,
// but could not be read whole; err: the folder could not be opened.
func readPluginFile(l located, inside, sub, file string, limit int64) (data []byte, missing, unknown bool, err error) {
	dir := l.root.Path + "/" + string(l.name)
	if inside != "" {
		dir += "/" + inside
	}
	reads, err := walker.ReadFiles(dir, sub, []string{file}, limit)
	switch {
	case err != nil:
		return nil, false, false, err
	case reads == nil || reads[0].Missing:
		return nil, true, false, nil
	case reads[0].Reason != 0:
		return nil, false, true, nil
	}
	return reads[0].Data, false, false, nil
}
