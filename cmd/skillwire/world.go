package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/clientproc"
	"github.com/skillwire/skillwire/claude/managed"
	"github.com/skillwire/skillwire/claude/memkey"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// world is what the store-backed commands share: where the roots are and
// where the store is. It is read from the environment once per command.
type world struct {
	places   claude.Places
	roots    []claude.Root
	stateDir string
	timeout  time.Duration
	// managed is what an administrator set beside Claude Code's managed
	// settings. managedErr is why it could not be read; the gate is then
	// strict (managed.Policy).
	managed    managed.Config
	managedErr error
	// added is what the client running a hook added (--add-dir,
	// --plugin-dir), and why it could not all be observed. inline are the
	// plugins its --plugin-dir folders hold.
	added  clientproc.AddedDirs
	inline claude.Inline
}

// addedUnknown reports whether the session loads from folders skillwire
// cannot all observe. A name of no observed candidate may be served there.
func (w *world) addedUnknown() bool { return w.added.Problem != "" || w.pluginsUnknown() }

// pluginsUnknown reports whether the plugins the session loads from
// folders cannot all be observed and named. Any plugin:name may be one.
func (w *world) pluginsUnknown() bool { return w.added.Plugins.Problem != "" || w.inline.Unknown() }

// inlineNames are the names (plugin@inline) of the plugins observed in
// the folders given with --plugin-dir.
func (w *world) inlineNames() []string {
	names := make([]string, len(w.inline.Plugins))
	for i, p := range w.inline.Plugins {
		names[i] = p.Plugin
	}
	return names
}

// loadWorld is the world of the command running. Those observesAdded
// names also observe the roots of the folders sessions added.
func loadWorld(s *streams) (*world, error) {
	w, err := loadWorldFor(s, "")
	if err == nil && observesAdded[s.command] {
		w.withAdded(s)
	}
	return w, err
}

// observesAdded are the commands that observe the roots of the folders
// sessions added, as the store records them. They list what is on disk,
// and a session also loads from those folders. The others find a
// candidate by an id the store holds, or read the store alone. The hooks
// read the added folders from the client itself (loadHookWorld).
var observesAdded = map[string]bool{"list": true, "scan": true}

// commandName is c's path below the root: "list", "hook session-start".
func commandName(c *cobra.Command) string {
	name := c.Name()
	for p := c.Parent(); p != nil && p.HasParent(); p = p.Parent() {
		name = p.Name() + " " + name
	}
	return name
}

// loadWorldFor takes the hook's cwd as the project hint.
func loadWorldFor(s *streams, projectHint string) (*world, error) {
	places, err := claude.Locate(claudeEnv(s), projectHint)
	if err != nil {
		return nil, fail(exitCode(err, exitUsage), "%v", err)
	}
	w := &world{places: places, roots: places.Roots(), timeout: baseline.DefaultLockTimeout}
	sd, _ := s.getenv("SKILLWIRE_STATE_DIR")
	if sd != "" && !strings.HasPrefix(sd, "/") {
		return nil, fail(exitUsage, "SKILLWIRE_STATE_DIR must be an absolute path")
	}
	w.stateDir = baseline.Location(sd, places.Config)
	if v, ok := s.getenv("SKILLWIRE_LOCK_TIMEOUT"); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fail(exitUsage, "SKILLWIRE_LOCK_TIMEOUT must be a positive duration such as 5s")
		}
		w.timeout = d
	}
	// The client's own managed directory is always read. A user's
	// SKILLWIRE_MANAGED_DIR, empty or elsewhere, must not switch off what
	// the administrator set there.
	w.managed, w.managedErr = managed.ReadAll(claude.ClientManagedDir(), places.Managed)
	if w.managedErr != nil {
		fmt.Fprintf(s.err, "skillwire: %s; the gate answers as strict until it can be read\n", defang(w.managedErr.Error()))
	}
	return w, nil
}

// loadHookWorld is a hook's world: the project of its cwd, and the
// folders the client running it added. Every hook reads them again. So a
// gate hook judges what the session loads.
func loadHookWorld(s *streams, cwd string) (*world, error) {
	w, err := loadWorldFor(s, cwd)
	if err != nil {
		return nil, err
	}
	env := claudeEnv(s)
	w.added = s.client.Added(env)
	w.inline = claude.InlinePlugins(w.added.Plugins.Dirs, w.added.Plugins.NoMCP)
	if len(w.added.Dirs) > 0 || len(w.inline.Plugins) > 0 || len(w.added.Settings)+len(w.added.MCPConfigs)+len(w.added.PromptFiles) > 0 {
		w.places.Added, w.places.Inline = w.added.Dirs, w.inline.Plugins
		w.places.Flags, w.places.FlagsMCP, w.places.FlagsPrompt = w.added.Settings, w.added.MCPConfigs, w.added.PromptFiles
		w.places.Memory = append(w.places.Memory, memkey.MovedByFlags(w.added.Settings, w.places.Home)...)
		w.places.AddedInstructions = w.added.Instructions(env)
		w.roots = w.places.Roots()
	}
	return w, nil
}

// withAdded adds to w's roots the added folders' roots the store knows
// (baseline.AddedRoots). A store that cannot be read is said on stderr.
func (w *world) withAdded(s *streams) {
	roots, err := baseline.AddedRoots(w.opts(false, true), w.roots, w.places.Home)
	if err != nil {
		fmt.Fprintf(s.err, "skillwire: the folders sessions added (--add-dir) could not be read from the store: %s\n", defang(err.Error()))
	}
	w.roots = append(w.roots, roots...)
}

// opts are the store's options in w: its directory, lock timeout and the
// administrator's gate policy.
func (w *world) opts(create, readOnly bool) baseline.Options {
	return baseline.Options{Dir: w.stateDir, LockTimeout: w.timeout, Create: create, ReadOnly: readOnly,
		Policy: managed.Policy(w.managed, w.managedErr)}
}

// claudeEnv is the process environment as this command sees it.
func claudeEnv(s *streams) claude.Env {
	env := claude.OSEnv()
	env.Getenv = s.getenv
	return env
}

// open opens the store; every failure to do so is exit 4 with a message
// that says what to do.
func (w *world) open(create, readOnly bool) (*baseline.Store, error) {
	st, err := baseline.Open(w.opts(create, readOnly))
	if err != nil {
		return nil, storeErr(err)
	}
	return st, nil
}

func (w *world) specs() []walker.RootSpec {
	specs := make([]walker.RootSpec, len(w.roots))
	for i, r := range w.roots {
		specs[i] = r.Spec()
	}
	return specs
}

// observations pairs each root with its walk.
func (w *world) observations(walked []walker.Root) []baseline.Observation {
	obs := make([]baseline.Observation, len(w.roots))
	for i := range w.roots {
		obs[i] = baseline.Observation{Root: w.roots[i], Walk: &walked[i]}
	}
	return obs
}

// scan walks every root under one shared budget.
func (w *world) scan(ctx context.Context, s *streams, cfg walker.Config) []baseline.Observation {
	var n atomic.Int64
	cfg.Progress = &n
	defer startProgress(s.err, &n)()
	return w.observations(walker.Scan(ctx, w.specs(), cfg))
}

// candidateRef is a candidate found by id: in the store, on disk, or both.
type candidateRef struct {
	id   string
	root claude.Root
	name []byte
}

// display is how the candidate name of a root of path and kind is shown.
// The root the world watches there now shows it. That root knows a
// plugin's source folder by its plugin@marketplace (claude.Root.Display),
// a cached plugin version by the name the client gives it
// (claude.Root.Listed).
// Else its kind shows it: a record of a folder no longer installed keeps
// its folder's name.
func (w *world) display(path string, kind claude.Kind, name []byte) (string, bool) {
	for _, r := range w.roots {
		// A folder the root names for its plugin is shown only as that
		// plugin, never by itself. It is hidden when its names fail the gate.
		if r.Path == path && r.Kind == kind && (kind != claude.PluginSources || r.SourcePlugin(name) != nil) {
			return r.Listed(name)
		}
	}
	return claude.Display(kind, name)
}

// refName is ref's name for a sentence: shown as display shows it, else
// "name hidden".
func (w *world) refName(ref candidateRef) string {
	if n, ok := w.display(ref.root.Path, ref.root.Kind, ref.name); ok {
		return n
	}
	return "name hidden"
}

// resolve finds the one candidate whose id starts with prefix, among the
// store's records and the candidates on disk now. The prefix is checked
// for the id shape first. So a name can never be passed where an id goes.
// Nothing the user typed is echoed back.
func (w *world) resolve(st *baseline.Store, prefix string) (candidateRef, error) {
	if !anomaly.IsIDPrefix(prefix) {
		return candidateRef{}, errNotAnID("list")
	}
	known := map[string]candidateRef{}
	for i, r := range walker.Discover(w.specs(), walker.DefaultConfig()) {
		for _, c := range r.Candidates {
			id := st.ID(w.roots[i].Path, c.Name)
			known[id] = candidateRef{id: id, root: w.roots[i], name: c.Name}
		}
	}
	err := st.View(func(tx *baseline.Tx) error {
		recs, err := tx.Records()
		for _, r := range recs {
			if _, ok := known[r.ID]; !ok {
				root := claude.Root{Path: string(r.Root), Scope: r.Scope, Kind: r.Kind}
				if r.Kind == claude.Config {
					root.Names = []string{string(r.Name)}
				}
				known[r.ID] = candidateRef{id: r.ID, root: root, name: r.Name}
			}
		}
		return err
	})
	if err != nil {
		return candidateRef{}, storeErr(err)
	}
	ids := make([]string, 0, len(known))
	for id := range known {
		ids = append(ids, id)
	}
	id, err := pickID(prefix, ids, "no candidate has an id starting with that prefix (see 'skillwire list')")
	if err != nil {
		return candidateRef{}, err
	}
	return known[id], nil
}

// errNotAnID refuses an argument that is not id-shaped, without echoing it;
// see names the command that lists the ids.
func errNotAnID(see string) error {
	return fail(exitUsage, "not an id: ids look like sw followed by at least 4 of [a-z2-7] (see 'skillwire %s')", see)
}

// pickID is the one id among ids that starts with prefix. none is the
// caller's message. Several are listed, ids only, never names.
func pickID(prefix string, ids []string, none string) (string, error) {
	match := baseline.Resolve(prefix, ids)
	switch len(match) {
	case 0:
		return "", fail(exitUsage, "%s", none)
	case 1:
		return match[0], nil
	}
	return "", fail(exitUsage, "the prefix is ambiguous; it matches %s", strings.Join(match, ", "))
}

func walkerReasons(c *walker.Candidate) []anomaly.Reason { return walker.Reasons(c.Anomalies()) }
