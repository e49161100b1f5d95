package claude

import (
	"strings"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/walker"
)

// A plugin of a marketplace is loaded with its marketplace.json entry
// applied to it (the client's K0o and f0o, 2.1.328): the entry's inline
// hooks and its commands, agents, skills, outputStyles and themes paths are
// added to plugin.json's (strict, the default), or the entry is the
// plugin's manifest, servers included, when it has no plugin.json. So an
// edit of the entry alone changes what the plugin runs: what the
// marketplace.json says of the plugin (config.MarketEntry, entryForm) is
// bound into the plugin's candidate, for a plugin loaded in place from a local
// marketplace (PluginSource.Market) and for a version in the cache, whose
// entry comes from its marketplace's clone (pinned by the e2e case
// TestAMarketplaceEntrysHooksAreBoundIntoItsPlugin).

// bindMarket binds the marketplace.json market into the candidate name of
// the PluginSources root r; "" binds nothing.
func (r *Root) bindMarket(name, market string) {
	if market == "" {
		return
	}
	if r.Markets == nil {
		r.Markets = map[string]string{}
	}
	if _, had := r.Markets[name]; !had {
		r.Markets[name] = market
	}
}

// outsideFiles are the marketplace.json files bound into the candidate
// name of r (walker.NameSpec.Outside): a PluginSources folder's by its
// name, a cache version's by its marketplace. A path that is not plainly
// absolute is never opened (its marketplace is told unwatched).
func (r Root) outsideFiles(name []byte) []string {
	key := string(name)
	if r.Kind == Plugins {
		key, _, _ = strings.Cut(key, "/")
	}
	if m := r.Markets[key]; m != "" && PlainPath(m) {
		return []string{m}
	}
	return nil
}

// marketFiles reads known_marketplaces.json in <cfg>/plugins, through the
// walker, for config.MarketplaceFiles; nil when it cannot be read whole
// (its own candidate tells why).
func marketFiles(cfg string) map[string]string {
	reads, err := walker.ReadFiles(cfg, "plugins", []string{"known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	known := WholeForm(reads[0])
	if known == nil {
		return nil
	}
	return config.MarketplaceFiles(known)
}
