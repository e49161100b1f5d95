package gate

import (
	"context"
	"errors"
	"time"

	"github.com/skillwire/skillwire/baseline"
)

// Claude Code reads the folders given with --plugin-dir once, at its
// start. It serves an inline plugin over an installed one of its name
// (pinned by e2e/plugindir2_test.go). skillwire reads them again at every
// hook. So a plugin.json renamed mid-session could leave a name the client
// still serves to an installed plugin's verdict. Against that, the
// session's start keeps the inline plugins it observed (KeepStartPlugins).
// A later hook holds every plugin:name when one of them is not among
// those it observes (withStartPlugins).

// KeepStartPlugins keeps in the store of o, for session, the names
// (plugin@inline) of the plugins its start observed. Those are in the
// folders given with --plugin-dir. unknown: one could not be named
// (claude.Inline.Unknown). It keeps nothing when no folder was given. The
// result says in fixed words why they could not be kept. Then the
// session's later hooks hold every plugin:name: withStartPlugins finds
// nothing kept.
func KeepStartPlugins(o baseline.Options, session string, given bool, names []string, unknown bool, now time.Time) string {
	if !given {
		return ""
	}
	if session == "" {
		return "the hook input names no session to keep them for"
	}
	err := baseline.Update(o, func(tx *baseline.Tx) error {
		_, err := tx.SessionPlugins().Keep(session, names, unknown, now)
		return err
	})
	if err != nil {
		return "skillwire's store could not keep them"
	}
	return ""
}

// StartPluginsTold is what a session is told when KeepStartPlugins could
// not keep its inline plugins. why is in fixed words.
func StartPluginsTold(why string) string {
	return "skillwire could not keep the plugins this session loads from the folders given with --plugin-dir (" + why +
		"): the gate asks for every plugin's skill, agent and command, an installed plugin's included, since the client serves those it read at its start."
}

// withStartPlugins marks env's plugins as not all known in one case.
// Folders are given with --plugin-dir (env.InlineGiven). And a plugin the
// session's start observed is not among those observed now (env.Inline).
// Renamed, removed or unreadable since, it is still the one the client
// serves. A start that kept nothing marks them too: no session, or a store
// it could not write. So does a store that cannot be read.
func withStartPlugins(ctx context.Context, env Env, session string) Env {
	if !env.InlineGiven || env.PluginsUnknown {
		return env
	}
	o := storeOptions(ctx, env.Store)
	o.Create, o.ReadOnly = false, true
	missing := true
	if session != "" {
		err := baseline.View(o, func(tx *baseline.Tx) error {
			p, err := tx.SessionPlugins().Of(session)
			missing = err != nil || !p.Kept || p.Missing(env.Inline)
			return err
		})
		if err != nil && !errors.Is(err, baseline.ErrAbsent) {
			missing = true
		}
	}
	// As the hook's own PluginsUnknown is (cmd/skillwire's addedUnknown).
	env.PluginsUnknown, env.AddedUnknown = missing, env.AddedUnknown || missing
	return env
}
