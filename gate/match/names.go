package match

import (
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/config/frontmatter"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
)

// Resolve is the candidates of found that a use of kind named name may
// load. A candidate whose name could not be read may bear any name. It
// counts unless a match outranks it.
//
// A plugin's "plugin:name" is every installed version of every plugin of
// that name. The cache keeps more than one, and the gate does not trust
// the file that names the active one, so the worst answer wins. A cached
// version answers to its cache folder's plugin name. It also answers to
// the name its .claude-plugin/plugin.json gives, which the client uses:
// folder foo/1.0.0 whose plugin.json says bar loads bar:ps. When that file
// could not be read, it answers to any name.
//
// Any other name is resolved by folder and by frontmatter name
// (resolve.Resolve). The names are read here, from each candidate the name
// could reach.
func Resolve(kind resolve.Kind, name string, found []Located) []Located {
	if kind == resolve.Workflow {
		return Workflows(name, found)
	}
	if p, local, ok := strings.Cut(name, ":"); ok {
		if p == "" || local == "" {
			return nil
		}
		var out []Located
		for _, l := range found {
			if l.Cand.Scope == resolve.Plugin && (string(l.Cand.Plugin) == p || l.Cand.Cached() && mayBeNamed(l, p)) {
				l.Cand.Kind = kind
				out = append(out, l)
			}
		}
		// A skill of its own may bear a colon in its frontmatter name: the
		// client loads "evil:skill" by it, so it answers to the whole name.
		unknown := readNames(kind, found, name)
		for i, l := range found {
			if l.Cand.Scope != resolve.Plugin && resolve.Reaches(kind, l.Cand.Kind) &&
				(l.Cand.Name != nil && l.Cand.AnswersTo(kind, name, true) || slices.Contains(unknown, i)) {
				out = append(out, l)
			}
		}
		return out
	}
	unknown := readNames(kind, found, name)
	cands := make([]resolve.Candidate, len(found))
	for i := range found {
		cands[i] = found[i].Cand
	}
	var out []Located
	for _, i := range resolve.Index(kind, name, cands) {
		out = append(out, found[i])
	}
	for _, i := range unknown {
		l := found[i]
		if slices.ContainsFunc(out, func(m Located) bool {
			return m.Same(&l) || resolve.Beats(kind, m.Cand, l.Cand)
		}) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// nameBudget bounds the time spent reading other candidates' names for
// one use. The tree's author can make that reading slow: 200 skills of 64
// KiB list-shaped YAML. Past the budget, the names left unread are
// unknown. Each such candidate may bear any name, so it counts. Its record
// is read by id, so a BLOCK there is found without reading a byte of it.
const nameBudget = 300 * time.Millisecond

// nameChunk is how many workflow files are read between looks at the
// clock (Workflows). A front file's name is read with a look before each
// (walker.FrontsBy).
const nameChunk = 8

// readNames fills the frontmatter name of every candidate of found that
// kind reaches. It reads only the front file, through the walker. It
// returns the indexes of those whose name could not be read, or was not
// read within nameBudget.
//
// With typed set, a front file is parsed only when it may name typed
// (mayName), or when its folder answers to typed. The folder's candidate
// needs its real name, which can take it out of the by-name reading. So
// the parsing is bounded by the candidates that may be typed, not by the
// others on disk (issue 34). A file left unparsed keeps a nil name: it
// answers only by its folder, which is not typed.
func readNames(kind resolve.Kind, found []Located, typed string) []int {
	start := time.Now()
	filter := typed != "" && literalName(kind, typed)
	var unknown []int
	for lo := 0; lo < len(found); {
		hi := lo + 1
		for hi < len(found) && found[hi].Root.Path == found[lo].Root.Path && found[hi].Root.Kind == found[lo].Root.Kind {
			hi++
		}
		group := found[lo:hi]
		if resolve.Reaches(kind, group[0].Cand.Kind) && group[0].Cand.Scope != resolve.Plugin {
			names := make([][]byte, len(group))
			for i, l := range group {
				names[i] = l.Name
			}
			var parse func(int, []byte) bool
			if filter {
				parse = func(i int, data []byte) bool {
					return group[i].Cand.AnswersTo(kind, typed, false) || mayName(data, typed)
				}
			}
			fronts, read := walker.FrontsBy(group[0].Root.Spec(), names, parse, group[0].Cfg.Fronts, start.Add(nameBudget))
			for i, f := range fronts {
				if i >= read {
					unknown = append(unknown, lo+i) // past the budget: it may bear any name
					continue
				}
				if f.Skipped {
					continue
				}
				name, ok := resolve.FrontName(f)
				if !ok {
					unknown = append(unknown, lo+i)
				}
				group[i].Cand.Name = name
			}
		}
		lo = hi
	}
	return unknown
}

// literalName reports whether every YAML spelling of typed holds its bytes
// as they are. That is so for a skill or command name, compared byte for
// byte, of printable ASCII but quotes and backslash. Then plain, quoted
// and block scalars all hold it verbatim: folding adds a space, and an
// escape needs a backslash. An agent's name is compared folded
// (claude.AgentKey), so any spelling may match.
func literalName(kind resolve.Kind, typed string) bool {
	if kind != resolve.Skill && kind != resolve.Command {
		return false
	}
	for i := range len(typed) {
		if c := typed[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '\'' {
			return false
		}
	}
	return true
}

// mayName reports whether a front file's bytes may give the frontmatter
// name typed, a literalName (frontmatter.MaySpell).
func mayName(data []byte, typed string) bool { return frontmatter.MaySpell(data, typed) }

// maxPluginJSON bounds the plugin.json read to learn a plugin's name, as
// the local watch bounds a configuration file.
const maxPluginJSON = config.MaxJSON

// mayBeNamed reports whether the cached plugin version l may be plugin p
// by its plugin.json. Either the file says so, or the name the client
// gives l is unknown: the file could not be read whole (a link, a special
// or oversize file), or gives no name the client takes
// (claude.ManifestName). The read follows no link at .claude-plugin or
// plugin.json. The folders above the version were listed without
// following one (walker.Discover). A name read only adds matches to the
// folder's, never takes one away.
func mayBeNamed(l Located, p string) bool {
	name, unknown := manifestOf(l)
	return unknown || name != "" && name == p
}

// manifestOf is the name the plugin.json of the cached version l gives.
// It is "" when the file has none: the client names the plugin by its
// folder. unknown means the file is there but could not be read whole, or
// gives no name the client takes (claude.ManifestName).
func manifestOf(l Located) (name string, unknown bool) {
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

// readPluginFile reads sub/file of the version directory l, inside the
// folder inside when that is set. It reads through the walker, bounded by
// limit, never through a link at sub or file. missing: the file is not
// there. unknown: it is, but could not be read whole. err: the folder
// could not be opened.
func readPluginFile(l Located, inside, sub, file string, limit int64) (data []byte, missing, unknown bool, err error) {
	dir := l.Root.Path + "/" + string(l.Name)
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
