package gate

import (
	"context"
	"errors"

	"github.com/skillwire/skillwire/baseline"
)

// Claude Code reads the folders given with --plugin-dir once, at its
// start. It serves an inline plugin over an installed one of its name
// (pinned by e2e/plugindir2_test.go). skillwire reads them again at every
// hook. So a plugin.json renamed mid-session could leave a name the client
// still serves to an installed plugin's verdict. Against that, the
// session's start keeps the inline plugins it observed (session.RunHook).
// A later hook holds every plugin:name when one of them is not among
// those it observes (withStartPlugins).

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
