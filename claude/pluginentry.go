package claude

import (
	"strings"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/config/registry"
	"github.com/skillwire/skillwire/walker"
)

// A plugin of a marketplace is loaded with its marketplace.json entry
// applied to it. So an edit of the entry alone changes what the plugin
// runs. What the marketplace.json says of the plugin (config.MarketEntry,
// entryForm) is bound into the plugin's candidate. That holds for a plugin
// loaded in place from a local marketplace (PluginSource.Market). It holds
// for a version in the cache too, whose entry comes from its marketplace's
// clone. TestAnEditedMarketplaceEntryChangesItsPlugin holds the record.

// bindMarket binds the marketplace.json market into the candidate name of
// the PluginSources root r. "" binds nothing.
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
// name of r (walker.NameSpec.Outside). A PluginSources folder's is found
// by its name, a cache version's by its marketplace. A path that is not
// plainly absolute is never opened; its marketplace is told unwatched.
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

// BoundOutside are the files outside the candidate name of r that a walk
// binds into it: a plugin's marketplace.json. A watcher of r watches them
// too, so its observation is a walk's.
func (r Root) BoundOutside(name []byte) []string { return r.outsideFiles(name) }

// marketFiles reads known_marketplaces.json in <cfg>/plugins, through the
// walker, for registry.MarketplaceFiles. It is nil when the file cannot be
// read whole; its own candidate tells why.
func marketFiles(cfg string) map[string]string {
	reads, err := walker.ReadFiles(cfg, "plugins", []string{"known_marketplaces.json"}, config.MaxJSON)
	if err != nil || reads == nil {
		return nil
	}
	known := WholeForm(reads[0])
	if known == nil {
		return nil
	}
	return registry.MarketplaceFiles(known)
}
