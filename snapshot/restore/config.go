package restore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/internal/safefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// A settings or MCP candidate is not a tree. Its digest covers the
// security-relevant keys of one file (its canonical form) and the scripts
// they run. Its restore puts those keys back through the settings editor.
// Every other key is kept as it is now: theme, numStartups, a project's
// history. It writes no script. A script that differs from the reviewed
// one is a refusal naming it, never a half restore.

// Refusals of a configuration restore: nothing was written.
var (
	// ErrUnfit: the file cannot be edited safely now. It is not one JSON
	// object, gives a key twice, is a link or not a regular file, or is over
	// its bound.
	ErrUnfit = errors.New("the file cannot be edited safely")
	// ErrScript: a script the restored keys would run is not the one the
	// target ran. skillwire writes no script through a settings restore.
	ErrScript = errors.New("a script the reviewed version runs is not that version's")
	// ErrManaged: managed settings are the administrator's.
	ErrManaged = errors.New("managed settings are the administrator's: run the restore as root (sudo)")
)

// geteuid is os.Geteuid; a test runs as someone else.
var geteuid = os.Geteuid

// ConfigChange is the edit a configuration restore would write, for the
// preview. It is the file's text before and after, in the editor's layout.
type ConfigChange struct {
	Path          string
	Before, After []byte
	// Reformatted: the file was not in the editor's layout. So its
	// whitespace changes besides the edit.
	Reformatted bool
	// Mode, when not nil, is the file's mode after the restore: the
	// reviewed one, which differs from its mode now.
	Mode *fs.FileMode
}

// form is how one kind of configuration file holds its kept keys.
type form struct {
	limit int64
	// put makes doc's kept keys those of canon, every other key as it is.
	put func(doc *settings.Doc, canon []byte) error
}

// formOf is the form of r's file, or why it cannot be restored.
func formOf(r *Request) (*form, error) {
	if r.Root.Kind == claude.ManagedSettings {
		return &form{limit: config.MaxJSON, put: putSettings}, nil
	}
	switch string(r.Name) {
	case "settings.json", "settings.local.json", "managed-settings.json":
		return &form{limit: config.MaxJSON, put: putSettings}, nil
	case ".mcp.json":
		return &form{limit: config.MaxJSON, put: putTop(func(k string) bool { return k == "mcpServers" })}, nil
	case ".claude.json":
		return &form{limit: config.MaxClaudeJSON, put: putClaudeJSON}, nil
	case "installed_plugins.json", "known_marketplaces.json":
		return nil, fmt.Errorf("%w: it is one of Claude Code's plugin registries, which follow the plugins installed (change them with /plugin)", ErrNotRestorable)
	}
	// scheduled_tasks.json and any other: no form of it is written back.
	return nil, fmt.Errorf("%w: skillwire writes no form of %s back; see 'skillwire diff' and put it back by hand, or with the client",
		ErrNotRestorable, anomaly.QuoteBytes(r.Name))
}

var putSettings = putTop(func(k string) bool { return !config.Noise(k) })

// putTop conforms every top-level key kept to canon's value. It removes
// the kept keys canon lacks and adds those it has. The others stay.
func putTop(kept func(string) bool) func(*settings.Doc, []byte) error {
	return func(doc *settings.Doc, canon []byte) error {
		var want map[string]json.RawMessage
		if err := json.Unmarshal(canon, &want); err != nil {
			return fmt.Errorf("%w: the kept form is not an object", ErrCorrupt)
		}
		keys, err := doc.Keys()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, ok := want[k]; !ok && kept(k) {
				if err := doc.Delete(k); err != nil {
					return err
				}
			}
		}
		for _, k := range sortedKeys(want) {
			if !kept(k) {
				continue // a form never holds one: it is written by the same rule
			}
			if err := doc.Conform([]string{k}, want[k]); err != nil {
				return err
			}
		}
		return nil
	}
}

// putClaudeJSON puts back ~/.claude.json's user servers (mcpServers). It
// puts back each project's projects[p].mcpServers, from the form's
// localMcpServers. It puts back each project's approvals of .mcp.json
// servers (config.McpjsonKeys), from its localMcpjson. Every other byte of
// meaning stays. A project whose servers the form lacks keeps an empty
// mcpServers, as Claude Code writes one.
func putClaudeJSON(doc *settings.Doc, canon []byte) error {
	var want struct {
		MCPServers json.RawMessage                       `json:"mcpServers"`
		Local      map[string]json.RawMessage            `json:"localMcpServers"`
		Mcpjson    map[string]map[string]json.RawMessage `json:"localMcpjson"`
	}
	if err := json.Unmarshal(canon, &want); err != nil {
		return fmt.Errorf("%w: the kept form is not an object", ErrCorrupt)
	}
	if err := putTop(func(k string) bool { return k == "mcpServers" })(doc, canonOf(map[string]json.RawMessage{"mcpServers": want.MCPServers})); err != nil {
		return err
	}
	servers := map[string]map[string]json.RawMessage{} // project -> name -> config
	whole := map[string]json.RawMessage{}              // project -> its mcpServers, not an object
	for k, v := range want.Local {
		name, project, all, ok := config.LocalServer(k)
		switch {
		case !ok:
			return fmt.Errorf("%w: the kept form names a server in a way skillwire never writes", ErrCorrupt)
		case all:
			whole[project] = v
		default:
			if servers[project] == nil {
				servers[project] = map[string]json.RawMessage{}
			}
			servers[project][name] = v
		}
	}
	// One index of the projects, built once. ~/.claude.json holds a member
	// per project ever opened. A lookup per project must not scan them all.
	projects, err := doc.Object("projects")
	if err != nil {
		return err
	}
	if projects == nil {
		if len(servers) == 0 && len(whole) == 0 && len(want.Mcpjson) == 0 {
			return nil
		}
		if err := doc.Conform([]string{"projects"}, []byte("{}")); err != nil {
			return err
		}
		if projects, err = doc.Object("projects"); err != nil {
			return err
		}
	}
	for _, p := range projects.Names() {
		if _, ok := servers[p]; ok {
			continue
		}
		if _, ok := whole[p]; ok {
			continue
		}
		// Only an object's mcpServers is a form's. A project that is not an
		// object, which the form skips, is left as it is.
		pd := projects.Get(p)
		keys, err := pd.Keys()
		if err != nil || !slices.Contains(keys, "mcpServers") {
			continue
		}
		if err := pd.Conform([]string{"mcpServers"}, []byte("{}")); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(servers) {
		if err := projects.Put(p).Conform([]string{"mcpServers"}, canonOf(servers[p])); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(whole) {
		if err := projects.Put(p).Conform([]string{"mcpServers"}, whole[p]); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(want.Mcpjson) {
		projects.Put(p)
	}
	// Each project's approvals of .mcp.json servers: the form's, or none.
	for _, p := range projects.Names() {
		pd := projects.Get(p)
		if _, err := pd.Keys(); err != nil {
			continue // not an object: the form skips it, and so does the put
		}
		for _, k := range config.McpjsonKeys {
			v, ok := want.Mcpjson[p][k]
			if !ok {
				if err := pd.Delete(k); err != nil {
					return err
				}
				continue
			}
			if err := pd.Conform([]string{k}, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// canonOf encodes an object of raw members (a nil one is left out).
func canonOf(m map[string]json.RawMessage) []byte {
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(m) // raw members decoded from JSON always encode
	return b
}

// configEdit is a configuration restore made ready, not yet written.
type configEdit struct {
	file   *settings.File
	spec   walker.RootSpec
	change ConfigChange
}

// checkConfig refuses before anything is read for the edit. It refuses a
// candidate changed since the preview or not observed whole. It refuses a
// file that cannot be edited safely now, and a target holding an anomaly.
// It refuses a managed file and no root.
func checkConfig(r *Request) error {
	c := r.Current
	switch {
	case r.Expect != nil && (c.Partial() || c.Digest != *r.Expect):
		return fmt.Errorf("%w: its digest is now %s", ErrChanged, c.Digest)
	case c.Partial():
		return fmt.Errorf("%w: the candidate could not be fully observed", ErrIncomplete)
	case r.Target.Manifest.Partial || len(r.Target.Manifest.Anomalies()) > 0:
		return fmt.Errorf("%w: %s was not fully observable", ErrNotRestorable, r.Target.Digest)
	case len(r.Target.Manifest.Entries) == 0 || len(r.Target.Manifest.Entries[0].Path) != 0 || r.Target.Manifest.Entries[0].Kind != snapshot.File:
		return fmt.Errorf("%w: %s holds no form of the file", ErrNotRestorable, r.Target.Digest)
	case r.Root.Scope == claude.Managed && geteuid() != 0:
		return ErrManaged
	}
	for _, f := range c.Manifest.Anomalies() {
		if len(f.Path) == 0 || string(f.Path) == walker.ContentPath {
			return fmt.Errorf("%w: %s", ErrUnfit, unfit(f.Reason))
		}
	}
	return nil
}

// unfit says why a file with the anomaly reason cannot be edited.
func unfit(reason anomaly.Reason) string {
	switch reason {
	case anomaly.Symlink:
		return "it is a symbolic link (skillwire does not edit through a link)"
	case anomaly.Unparsable:
		return "it is not one JSON object now"
	case anomaly.DuplicateKey:
		return "a key in it is given twice (which one did Claude Code read?)"
	case anomaly.Oversize:
		return "it is larger than a configuration file may be"
	case anomaly.Depth:
		return "it is nested deeper than a configuration file may be"
	case anomaly.Root:
		return "it is not there, or not observable"
	case anomaly.Special:
		return "it is not a regular file"
	}
	return "it is not fully observable (" + reason.String() + ")"
}

// targetForm is the target's canonical form, read and verified.
func targetForm(r *Request) ([]byte, error) {
	e := &r.Target.Manifest.Entries[0]
	canon, ok, err := r.object(e)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("%w: the keys of %s were not kept (skillwire keeps a settings form since issue #23)", ErrNotRestorable, r.Target.Digest)
	case snapshot.Hash(blake3.Sum256(canon)) != e.Hash:
		return nil, fmt.Errorf("%w: the kept form of %s", ErrCorrupt, r.Target.Digest)
	}
	return canon, nil
}

// nameSpec is how the root observes name (the walker's own rule).
func nameSpec(spec *walker.RootSpec, name []byte) *walker.NameSpec {
	for i := range spec.Names {
		if spec.Names[i].Name == string(name) {
			return &spec.Names[i]
		}
	}
	return spec.Each
}

// editConfig reads the file through the editor and puts the target's keys
// in it. Before anything is written, it proves the file written would be
// observed as the target. Its form must be the target's. The scripts it
// would run must be the target's now.
func (r *Request) editConfig(ctx context.Context, f *form) (*configEdit, error) {
	canon, err := targetForm(r)
	if err != nil {
		return nil, err
	}
	r.canon = canon
	spec := r.Root.Spec()
	ns := nameSpec(&spec, r.Name)
	if ns == nil || ns.Extract == nil {
		return nil, fmt.Errorf("%w: skillwire does not read this file as configuration", ErrNotRestorable)
	}
	fd, err := openNoLinks(r.Root.Path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	path := r.Root.Path + "/" + string(r.Name)
	file, err := settings.OpenFileAt(fd, path, f.limit)
	if err != nil {
		return nil, openRefusal(err)
	}
	if now, _ := ns.Extract(r.Name, file.Bytes()); !bytes.Equal(now, r.Current.Canonical) {
		return nil, fmt.Errorf("%w: the file was rewritten while it was read", ErrChanged)
	}
	if err := f.put(file.Doc, canon); err != nil {
		if errors.Is(err, settings.ErrShape) || errors.Is(err, settings.ErrNotJSON) {
			return nil, fmt.Errorf("%w: %w", ErrUnfit, err)
		}
		return nil, err
	}
	root := &r.Target.Manifest.Entries[0]
	if root.Mode&^0o777 != 0 {
		return nil, fmt.Errorf("%w: the reviewed file's mode %04o is not one skillwire writes", ErrNotRestorable, root.Mode)
	}
	e := &configEdit{file: file, spec: spec, change: ConfigChange{Path: path, Reformatted: file.Reformatted()}}
	if m := fs.FileMode(root.Mode); m != file.Mode {
		file.Mode, e.change.Mode = m, &m
	}
	e.change.Before, e.change.After = file.Change()
	if got, rs := ns.Extract(r.Name, e.change.After); len(rs) > 0 || !bytes.Equal(got, canon) {
		return nil, fmt.Errorf("%w: the edit would not reproduce the reviewed keys", ErrUnfit)
	}
	if err := r.scriptsAsTarget(ctx, spec, ns, canon); err != nil {
		return nil, err
	}
	return e, nil
}

// scriptsAsTarget observes the file as it would be observed once restored.
// Its form is then the target's, and the walker binds the scripts it runs,
// as they are on disk now. It refuses when that is not the target, naming
// the script.
func (r *Request) scriptsAsTarget(ctx context.Context, spec walker.RootSpec, ns *walker.NameSpec, canon []byte) error {
	as := *ns
	as.Name = string(r.Name)
	as.Extract = func(_, _ []byte) ([]byte, []anomaly.Reason) { return canon, nil }
	spec.Names, spec.Each = []walker.NameSpec{as}, nil
	p := walker.ObserveIn(ctx, spec, r.Name, r.Walk)
	if p.Partial() {
		return fmt.Errorf("%w: the scripts it runs could not be fully observed", ErrIncomplete)
	}
	paths := map[string]string{}
	var runs []string
	if ns.Scripts != nil {
		runs = ns.Scripts(canon)
	}
	for _, s := range runs {
		paths[string(walker.ScriptEntry(s))] = s
		paths[string(walker.ScriptEntry(s))+walker.ScriptTargetSuffix] = s
	}
	for _, c := range snapshot.Diff(&p.Manifest, &r.Target.Manifest) {
		if len(c.Path) == 0 {
			if c.Old != nil && c.New != nil && c.Old.Hash == c.New.Hash {
				continue // the mode only, which the edit sets
			}
			return fmt.Errorf("%w: the file was rewritten while it was read", ErrChanged)
		}
		s, ok := paths[string(c.Path)]
		if !ok {
			return fmt.Errorf("%w: %s", ErrScript, anomaly.QuoteBytes(c.Path))
		}
		how := "differs from the reviewed version"
		switch {
		case c.Old == nil:
			how = "is not there now"
		case c.New == nil:
			how = "is there now and was not when reviewed"
		}
		return fmt.Errorf("%w: the script %s %s; restore it by hand, see 'skillwire diff %s'", ErrScript, anomaly.QuoteBytes([]byte(s)), how, r.ID)
	}
	return nil
}

// openRefusal says why the editor would not read the file.
func openRefusal(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: the file is gone", ErrChanged)
	case errors.Is(err, safefile.ErrSymlink):
		return fmt.Errorf("%w: %s", ErrUnfit, unfit(anomaly.Symlink))
	case errors.Is(err, safefile.ErrNotRegular):
		return fmt.Errorf("%w: %s", ErrUnfit, unfit(anomaly.Special))
	case errors.Is(err, settings.ErrTooLarge):
		return fmt.Errorf("%w: %s", ErrUnfit, unfit(anomaly.Oversize))
	case errors.Is(err, settings.ErrNotJSON), errors.Is(err, settings.ErrNotObject):
		return fmt.Errorf("%w: %s", ErrUnfit, unfit(anomaly.Unparsable))
	}
	return err
}

// writeConfig writes the edit in the folder the file was read in. That
// folder is proved again to have no link on its way and to be the same
// one. The write goes through that held descriptor only. The editor backs
// the file up first. It refuses a file changed since it was read, a link
// swapped in included. Then writeConfig observes the candidate again. Only
// a digest equal to the target's is a restore.
func (r *Request) writeConfig(ctx context.Context, e *configEdit) (*Result, error) {
	fd, err := openNoLinks(r.Root.Path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	step(StepProved)
	backup, err := e.file.WriteAt(fd)
	switch {
	case errors.Is(err, settings.ErrMoved):
		return nil, fmt.Errorf("%w: the folder %s was replaced before the file was written; nothing was written", ErrChanged, anomaly.QuoteBytes([]byte(r.Root.Path)))
	case errors.Is(err, settings.ErrChanged) && backup != "":
		return nil, fmt.Errorf("%w: the file changed before it was written; nothing was replaced (%s holds what was read)", ErrChanged, anomaly.QuoteBytes([]byte(backup)))
	case errors.Is(err, settings.ErrChanged):
		return nil, fmt.Errorf("%w: the file changed before it was written; nothing was replaced", ErrChanged)
	case err != nil:
		return nil, err
	}
	step(StepWritten)
	in := walker.ObserveIn(ctx, e.spec, r.Name, r.Walk)
	return &Result{InPlace: in.Digest, Verified: !in.Partial() && in.Digest == r.Target.Digest,
		Backup: backup, written: e.change.After}, nil
}

// doConfig is Do for a configuration candidate, in the same order. It
// observes and checks, then previews the file's change, then confirms.
// Then the displaced version is kept, the file written. Last come the
// record, the audit and the event.
func doConfig(ctx context.Context, r *Request, confirm func(Preview) (bool, error)) (Outcome, error) {
	f, err := formOf(r)
	if err != nil {
		return Outcome{}, err
	}
	stage, err := r.observe(ctx, checkConfig)
	if err != nil || r.Current.Digest == r.Target.Digest {
		return Outcome{Already: err == nil}, err
	}
	e, err := r.editConfig(ctx, f)
	if err != nil {
		return Outcome{}, err
	}
	if ok, err := confirm(Preview{Current: r.Current, Config: &e.change}); !ok {
		return Outcome{}, err
	}
	return r.finish(ctx, stage, func() (*Result, error) { return r.writeConfig(ctx, e) })
}
