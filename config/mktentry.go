package config

import (
	"encoding/json"
	"slices"
)

// A plugin of a marketplace loads with its marketplace.json entry applied
// (Claude Code 2.1.328, K0o/f0o): with a plugin.json (strict, the default)
// the entry's hooks (an inline object only: a path or a list is refused
// with "not yet supported in a marketplace entry"), commands, agents,
// skills, outputStyles and themes are added to the plugin's; without one
// the entry is the plugin's manifest, mcpServers and lspServers included.
// A bare source name resolves under the marketplace's metadata.pluginRoot.
// So what the entry and the marketplace around it say is part of the
// plugin, and is told by what it runs.

// EntryKey holds, in a plugin candidate's form, what its marketplace.json
// says of it (MarketEntry's form): told as facts of origin OriginEntry and
// OriginMarketplace.
const EntryKey = "marketplaceEntry"

// The origins of a fact told of a plugin's marketplace.json (Fact.Origin).
const (
	OriginEntry       = "marketplace entry" // the plugin's own entry
	OriginMarketplace = "marketplace.json"  // the marketplace's keys beside "plugins"
)

// entryNoise are the keys of a plugin's entry that run and load nothing:
// the client copies displayName, description, author, homepage,
// repository, license and keywords into the manifest it shows in /plugin;
// version names the cache folder an install writes (a new version is a new
// candidate, held against the one it replaces); tags and category sort the
// marketplace's listing. name is how the entry is found (the candidate's
// own plugin). Any other key, one never heard of included, is told.
var entryNoise = []string{"author", "category", "description", "displayName", "homepage", "keywords", "license", "name", "repository", "tags", "version"}

// marketNoise are the keys of a marketplace.json beside "plugins" that
// load nothing: its owner, description and version are shown, $schema is
// for editors; "plugins" holds the other plugins' entries, each its own
// plugin's. metadata's description and version are shown likewise
// (metadata.pluginRoot, where bare sources resolve, is kept).
var (
	marketNoise   = []string{"$schema", "description", "owner", "plugins", "version"}
	metadataNoise = []string{"description", "version"}
)

// MarketEntry is what a marketplace.json (its exact bytes) says of plugin:
// the canonical form {"entry": …, "marketplace": …} of the client's first
// entry named plugin (absent when none) and of the marketplace's own keys,
// each without its noise. ok is false when the file cannot be read as the
// client reads it (not one JSON object, too large, a key given twice: the
// client keeps the last, skillwire cannot tell which was meant): the file
// is then bound whole.
func MarketEntry(data []byte, plugin string) (canon []byte, ok bool) {
	ex := WholeJSON(data, int64(len(data)))
	if ex.Canonical == nil || len(ex.Anomalies) > 0 {
		return nil, false
	}
	doc := decodeCanonical(ex.Canonical)
	form := map[string]any{"marketplace": without(doc, marketNoise)}
	if meta, ok := doc["metadata"].(map[string]any); ok {
		// An object of noise alone says as much as none.
		if meta = without(meta, metadataNoise); len(meta) > 0 {
			form["marketplace"].(map[string]any)["metadata"] = meta
		} else {
			delete(form["marketplace"].(map[string]any), "metadata")
		}
	}
	for _, e := range cfgList(doc["plugins"]) {
		if m, ok := e.(map[string]any); ok && m["name"] == plugin {
			form["entry"] = without(m, entryNoise)
			break
		}
	}
	if _, isList := doc["plugins"].([]any); !isList && doc["plugins"] != nil {
		// Not a list: the client reads no entry of it, and skillwire keeps
		// its shape, so that it is told.
		form["marketplace"].(map[string]any)["plugins"] = doc["plugins"]
	}
	return canonicalJSON(form), true
}

// without is m less the keys named.
func without(m map[string]any, keys []string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// WithEntry puts a marketplace.json's MarketEntry form into a plugin's
// form (nil: the plugin's files declare nothing) under EntryKey.
func WithEntry(form, entry []byte) []byte {
	doc := decodeCanonical(form)
	var e any
	if err := json.Unmarshal(entry, &e); err != nil {
		e = string(entry) // never the case for MarketEntry's form; kept, so it is told
	}
	doc[EntryKey] = e
	return canonicalJSON(doc)
}

// entryFacts tells what changed in a plugin's MarketEntry form, each fact
// of its origin: the entry's hooks and servers by what they run, its
// every other key and the marketplace's as fields.
func entryFacts(old, new any) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	oe, _ := om["entry"].(map[string]any)
	ne, _ := nm["entry"].(map[string]any)
	var fs []Fact
	told := func(k string, kf []Fact) {
		if len(kf) == 0 && !cfgEqual(oe[k], ne[k]) {
			// A shape the facts above do not read (a path, a list, a
			// handler that is not an object) still changed what loads.
			kf = []Fact{{Kind: FactSettingSet, Name: k, Value: cfgJSON(ne[k])}}
		}
		fs = append(fs, kf...)
	}
	told("hooks", hookFacts(oe["hooks"], ne["hooks"]))
	told("mcpServers", objectFacts(oe["mcpServers"], ne["mcpServers"], FactNewMCPServer, FactMCPServerChanged, FactMCPServerRemoved))
	told("lspServers", objectFacts(oe["lspServers"], ne["lspServers"], FactNewLSPServer, FactLSPServerChanged, FactLSPServerRemoved))
	fs = append(fs, fieldFacts(oe, ne, []string{"hooks", "mcpServers", "lspServers"})...)
	for i := range fs {
		fs[i].Origin = OriginEntry
	}
	mo, _ := om["marketplace"].(map[string]any)
	mn, _ := nm["marketplace"].(map[string]any)
	for _, f := range fieldFacts(mo, mn, nil) {
		f.Origin = OriginMarketplace
		fs = append(fs, f)
	}
	return fs
}

// objectFacts are mapFacts of servers by name when both values are objects
// (or absent); nil for any other shape, which entryFacts tells as a field.
func objectFacts(old, new any, added, changed, removed FactKind) []Fact {
	_, ok1 := old.(map[string]any)
	_, ok2 := new.(map[string]any)
	if !(ok1 || old == nil) || !(ok2 || new == nil) {
		return nil
	}
	return mapFacts(old, new, added, changed, removed, describeServer)
}

// fieldFacts tells each key of o or n but skip whose value changed, as a
// FactSettingSet of that key, in key order.
func fieldFacts(o, n map[string]any, skip []string) []Fact {
	keys := cfgKeys(n)
	for _, k := range cfgKeys(o) {
		if !cfgHas(n, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var fs []Fact
	for _, k := range slices.Compact(keys) {
		if !slices.Contains(skip, k) && !cfgEqual(o[k], n[k]) {
			fs = append(fs, Fact{Kind: FactSettingSet, Name: k, Value: cfgJSON(n[k])})
		}
	}
	return fs
}

// entryField tells a field of a plugin's marketplace.json (a FactSettingSet
// of an origin): "field \"source\" is now \"./plug\"".
func entryField(f Fact) string {
	if f.Value == "" {
		return "field " + factQuote(f.Name) + " is no longer set"
	}
	return "field " + factQuote(f.Name) + " is now " + factQuote(cfgDisplay(f.Value))
}

// entryFieldDangerous: an entry's source and a marketplace's name choose
// which folder and which marketplace, each watched by its own digest; any
// other field chooses what loads or is unknown.
func entryFieldDangerous(f Fact) bool {
	return f.Name != "source" && f.Name != "name"
}
