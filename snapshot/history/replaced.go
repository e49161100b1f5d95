package history

import (
	"bytes"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
)

// A new version folder of an installed plugin is held against the version
// it replaces (issue #22). Which version that is reads the client's
// registry. So it lives here, above the store, not in it.

// Replaced is the record of the version the plugin cache candidate name of
// root replaces. It is nil when name is not a plugin version, or is the
// first version the store knows. The one replaced is the one Claude Code
// had installed. That is the installPath the last delivered
// installed_plugins.json names for the plugin, when the store knows that
// folder. Else it is the greatest version name below name, else the
// greatest other. The record is the store's, whether its folder is still
// in the cache or gone (Removed).
func Replaced(t *baseline.Tx, root claude.Root, name []byte) (*baseline.Record, error) {
	key, ok := claude.PluginKey(name)
	if root.Kind != claude.Plugins || !ok {
		return nil, nil
	}
	if dir, ok := root.Registry(); ok {
		for _, in := range config.PluginInstalls(t.Extract(t.ID(dir, []byte("installed_plugins.json")))) {
			v, ok := root.VersionAt(in.Path)
			if in.Plugin != key || !ok || bytes.Equal(v, name) || !claude.SamePlugin(v, name) {
				continue
			}
			r, err := t.Record(t.ID(root.Path, v))
			if err != nil || r != nil && r.Digest != nil {
				return r, err
			}
		}
	}
	recs, err := t.Records()
	if err != nil {
		return nil, err
	}
	var below, last *baseline.Record
	for _, r := range recs {
		if r.Kind != claude.Plugins || r.Digest == nil || !bytes.Equal(r.Root, []byte(root.Path)) || bytes.Equal(r.Name, name) || !claude.SamePlugin(r.Name, name) {
			continue
		}
		if bytes.Compare(r.Name, name) < 0 && (below == nil || bytes.Compare(r.Name, below.Name) > 0) {
			below = r
		}
		if last == nil || bytes.Compare(r.Name, last.Name) > 0 {
			last = r
		}
	}
	if below != nil {
		return below, nil
	}
	return last, nil
}
