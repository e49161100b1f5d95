package baseline

import (
	"errors"
	"fmt"
	"slices"

	"github.com/skillwire/skillwire/claude"
)

// MaxAddedRoots bounds the roots of added folders observed from the store's
// records. A command or the daemon observes them. Past it, ErrAddedRoots.
const MaxAddedRoots = 384

// ErrAddedRoots: the store records more added folders' roots than are
// observed outside a session.
var ErrAddedRoots = errors.New("more roots of added folders are recorded than skillwire observes outside a session")

// AddedRoots are the roots of scope added that the store of o holds records
// of and have does not list. Scope added is a session's --add-dir folders and
// --plugin-dir plugins (Tx.AddedRoots). No store is no roots.
func AddedRoots(o Options, have []claude.Root, home string) ([]claude.Root, error) {
	o.Create, o.ReadOnly = false, true
	var out []claude.Root
	err := View(o, func(tx *Tx) (err error) { out, err = tx.AddedRoots(have, home); return })
	if errors.Is(err, ErrAbsent) {
		return nil, nil
	}
	return out, err
}

// AddedRoots are the roots of scope added that tx holds records of and have
// does not list. A command run outside a session (list, scan) and the daemon
// observe them too. So what a session was told of an added folder can be
// listed, reviewed and recorded. Its edits are seen between sessions.
//
// A record's root must be a plain absolute path of a known kind. An added
// folder's configuration root lists only the instruction files recorded
// there. They are the only files the client reads of it. Home anchors their
// ~/ imports, as Places.Roots does. A --plugin-dir plugin's root lists only
// the folders recorded, each named for its plugin as now. At most
// MaxAddedRoots are listed, the rest told by ErrAddedRoots.
func (tx *Tx) AddedRoots(have []claude.Root, home string) ([]claude.Root, error) {
	recs, err := tx.Records()
	if err != nil {
		return nil, err
	}
	var out []claude.Root
	inline := map[string][]string{}
	var order []string
	for _, r := range recs {
		if r.Scope != claude.Added || !r.Kind.Valid() || !claude.PlainPath(string(r.Root)) {
			continue
		}
		root := claude.Root{Path: string(r.Root), Scope: r.Scope, Kind: r.Kind}
		same := func(o claude.Root) bool { return o.Path == root.Path && o.Kind == root.Kind }
		name := string(r.Name)
		if r.Kind == claude.PluginSources {
			if slices.ContainsFunc(have, same) {
				continue
			}
			if _, seen := inline[root.Path]; !seen {
				order = append(order, root.Path)
			}
			if claude.ValidName(r.Kind, r.Name) && !slices.Contains(inline[root.Path], name) {
				inline[root.Path] = append(inline[root.Path], name)
			}
			continue
		}
		if r.Kind.Named() {
			// A root of named files: each name recorded is one. An added
			// folder's are its instruction files; a --settings or
			// --mcp-config file is one.
			listed := func(o claude.Root) bool { return same(o) && slices.Contains(o.Names, name) }
			if r.Kind == claude.Config && (claude.CandidateKind(claude.Config, r.Name) != claude.KindInstructions || name == "AGENTS.md") ||
				!claude.ValidName(r.Kind, r.Name) || slices.ContainsFunc(have, listed) || slices.ContainsFunc(out, listed) {
				continue
			}
			if i := slices.IndexFunc(out, same); i >= 0 {
				out[i].Names = append(out[i].Names, name)
				slices.Sort(out[i].Names)
				continue
			}
			root.Names, root.Home = []string{name}, home
		} else if slices.ContainsFunc(have, same) || slices.ContainsFunc(out, same) {
			continue
		}
		if len(out) == MaxAddedRoots {
			return out, fmt.Errorf("%w (%d)", ErrAddedRoots, MaxAddedRoots)
		}
		out = append(out, root)
	}
	for _, p := range order {
		rs := claude.InlineRoots(p, inline[p])
		if len(out)+len(rs) > MaxAddedRoots {
			return out, fmt.Errorf("%w (%d)", ErrAddedRoots, MaxAddedRoots)
		}
		out = append(out, rs...)
	}
	return out, nil
}
