package session

import (
	"errors"
	"slices"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
)

// AddedRoots are the roots of scope added (a session's --add-dir folders)
// that the store holds records of and have does not list: a command run
// outside a session (list, scan) observes them too, so what a session was
// told of an added folder can be listed, reviewed and recorded. No store
// is no roots.
func AddedRoots(o baseline.Options, have []claude.Root) ([]claude.Root, error) {
	o.Create, o.ReadOnly = false, true
	var out []claude.Root
	err := baseline.View(o, func(tx *baseline.Tx) error {
		recs, err := tx.Records()
		for _, r := range recs {
			root := claude.Root{Path: string(r.Root), Scope: r.Scope, Kind: r.Kind}
			same := func(o claude.Root) bool { return o.Path == root.Path && o.Kind == root.Kind }
			if r.Scope != claude.Added || !r.Kind.Valid() || r.Kind == claude.Config ||
				slices.ContainsFunc(have, same) || slices.ContainsFunc(out, same) {
				continue
			}
			out = append(out, root)
		}
		return err
	})
	if errors.Is(err, baseline.ErrAbsent) {
		return nil, nil
	}
	return out, err
}
