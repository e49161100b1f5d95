package session

import (
	"errors"
	"slices"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
)

// AddedRoots are the roots of scope added (a session's --add-dir folders
// and --plugin-dir plugins) that the store holds records of and have does
// not list: a command run outside a session (list, scan) observes them
// too, so what a session was told of an added folder can be listed,
// reviewed and recorded. A --plugin-dir plugin's root lists only the
// folders recorded, each named for its plugin as now. No store is no
// roots.
func AddedRoots(o baseline.Options, have []claude.Root) ([]claude.Root, error) {
	o.Create, o.ReadOnly = false, true
	var out []claude.Root
	inline := map[string][]string{}
	var order []string
	err := baseline.View(o, func(tx *baseline.Tx) error {
		recs, err := tx.Records()
		for _, r := range recs {
			root := claude.Root{Path: string(r.Root), Scope: r.Scope, Kind: r.Kind}
			same := func(o claude.Root) bool { return o.Path == root.Path && o.Kind == root.Kind }
			if r.Scope != claude.Added || !r.Kind.Valid() || r.Kind == claude.Config ||
				slices.ContainsFunc(have, same) || slices.ContainsFunc(out, same) {
				continue
			}
			if r.Kind == claude.PluginSources {
				if _, seen := inline[root.Path]; !seen {
					order = append(order, root.Path)
				}
				if claude.ValidName(r.Kind, r.Name) && !slices.Contains(inline[root.Path], string(r.Name)) {
					inline[root.Path] = append(inline[root.Path], string(r.Name))
				}
				continue
			}
			out = append(out, root)
		}
		return err
	})
	if errors.Is(err, baseline.ErrAbsent) {
		return nil, nil
	}
	for _, p := range order {
		out = append(out, claude.InlineRoots(p, inline[p])...)
	}
	return out, err
}
