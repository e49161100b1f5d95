package monitor

import (
	"slices"
	"strings"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// currentRoots lists the global roots and those of registered projects.
// Each project comes with the folders around it that Claude Code loads
// from, as a session start finds them (Places.Discover). Those are its
// ancestors' and nested .claude roots, nested and imported instructions.
// Home is the user's, as claude.Locate finds it. ~/ scripts bind to it,
// and the ancestors' walk stops there. So the daemon's roots are the
// hook's.
func (d *daemon) currentRoots() ([]claude.Root, error) {
	places := claude.Places{Config: d.cfg.CfgDir, ClaudeJSON: d.cfg.ClaudeJSONDir, Managed: d.cfg.ManagedDir}
	if home, err := claude.OSEnv().Home(); err == nil && strings.HasPrefix(home, "/") {
		places.Home = home
	}
	// The global roots as a session's start finds them: the plugins
	// local marketplaces load in place, each plugin's marketplace.json
	// bound in, the dev mods. Roots alone knows none of those, so the
	// daemon's observation lacked them
	// (TestTheDaemonAndAWalkAreTheSameObservation).
	places = places.Discover(claude.DefaultLimits)
	roots := places.Roots()
	var projects []string
	var added []claude.Root
	var addedErr error
	err := d.withStore(baseline.View, func(tx *baseline.Tx) error {
		var err error
		if projects, err = tx.Projects().List(); err != nil {
			return err
		}
		added, addedErr = d.added.of(tx, places.Home)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Told once, never fatal: the global and project roots stay watched.
	if addedErr != nil && !d.addedTold {
		d.addedTold = true
		d.log.Warn().Str("reason", addedErr.Error()).Msg("the folders sessions added are watched only in part")
	}
	slices.Sort(projects)
	seen := map[string]bool{}
	for _, r := range roots {
		seen[r.Path] = true
	}
	for _, p := range projects {
		places.Project = p
		for _, r := range places.Discover(claude.DefaultLimits).Roots() {
			if r.Scope == claude.Project && !seen[r.Path] {
				seen[r.Path] = true
				roots = append(roots, r)
			}
		}
	}
	// The folders sessions added, as the store recorded them. list and
	// scan observe the same. Their edits between sessions are seen now.
	for _, r := range added {
		if !seen[r.Path] {
			seen[r.Path] = true
			roots = append(roots, r)
		}
	}
	return roots, nil
}

// addedRoots are the roots of the folders sessions added, as the store's
// records list them (baseline.Tx.AddedRoots). They are kept with the
// commit they were read at. Reading every record at every heartbeat cost
// 9 ms on a store of 2,000 (BenchmarkTheAddedRootsOfAStoreOf2000Records).
// Any commit since, whoever made it, reads them again.
type addedRoots struct {
	roots []claude.Root
	err   error
	home  string
	at    int  // the commit they hold as of
	read  bool // at is set
}

// of are the added roots as tx sees them. They are read again only when
// tx sees another commit than theirs.
func (a *addedRoots) of(tx *baseline.Tx, home string) ([]claude.Root, error) {
	if c := tx.Commit(); !a.read || c != a.at || home != a.home {
		a.roots, a.err = tx.AddedRoots(nil, home)
		a.at, a.home, a.read = c, home, true
	}
	return a.roots, a.err
}

// carry is told that the daemon made commit c, writing no record. What
// held at the commit before c holds at c. A commit of another process
// between the two leaves a gap: they are read again.
func (a *addedRoots) carry(c int) {
	if a.read && c-1 == a.at {
		a.at = c
	}
}

// rootAt is the watched root at path, nil when none.
func (d *daemon) rootAt(path string) *claude.Root {
	for i := range d.roots {
		if d.roots[i].Path == path {
			return &d.roots[i]
		}
	}
	return nil
}

// specOf is the walker's view of the root at path, as rescans walk it.
func (d *daemon) specOf(path string) walker.RootSpec {
	for _, r := range d.roots {
		if r.Path == path {
			return r.Spec()
		}
	}
	return walker.RootSpec{Path: path}
}

// candidatesOf names the candidates whose directory p is. There is one
// per root that holds p: a project's root can lie in a global candidate.
func (d *daemon) candidatesOf(p string) []candKey {
	var ks []candKey
	for _, r := range d.roots {
		if rest, ok := strings.CutPrefix(p, r.Path+"/"); ok {
			if name, _, ok := r.Split(rest); ok {
				ks = append(ks, candKey{root: r.Path, name: name})
			}
		}
	}
	return ks
}
