package config

import (
	"regexp"
	"slices"
	"strings"
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

// entryNoise are the keys of a plugin's entry that run and load nothing,
// each with the client's schema of it (2.1.328: the entry is the plugin
// manifest's schema made partial, plus category and tags): the client
// copies displayName, description, author, homepage, repository, license
// and keywords into the manifest it shows in /plugin; version names the
// cache folder an install writes (a new version is a new candidate, held
// against the one it replaces); tags and category sort the marketplace's
// listing. name is how the entry is found (the candidate's own plugin).
// Any other key, one never heard of included, is told.
//
// Only known noise is ignored: the client stubs an entry any field of
// which fails its schema ("Stubbing unparseable marketplace plugin
// entry"), and a stubbed entry's hooks do not run; so a noise key is left
// out only when its value is one the schema surely accepts, and any other
// value is kept as it is: an edit that makes the entry parse (5 →
// "1.0.0") changes the form and is told.
var entryNoise = map[string]noiseRule{
	"author": {check: person}, "category": {check: text}, "description": {check: text}, "displayName": {check: text},
	"homepage": {check: webURL}, "keywords": {check: texts}, "license": {check: text}, "name": {check: func(any) schemaVerdict { return accepted }},
	"repository": {check: text}, "tags": {check: texts}, "version": {check: text},
}

// marketNoise are the keys of a marketplace.json beside "plugins" that
// load nothing: its owner (required by the client), description and
// version are shown, $schema is for editors. A marketplace any of whose
// keys fails the client's schema does not load, and no entry of it is
// applied: a value not surely accepted is kept, as an entry's. "plugins"
// holds the other plugins' entries, each its own plugin's (MarketEntry).
// metadata's description and version are shown likewise
// (metadata.pluginRoot, where bare sources resolve, is kept).
var (
	marketNoise = map[string]noiseRule{
		"$schema": {check: text}, "description": {check: text}, "owner": {check: person, required: true}, "version": {check: text},
	}
	metadataNoise = map[string]noiseRule{"description": {check: text}, "version": {check: text}}
)

// A noiseRule is the client's schema of a noise key, as far as skillwire
// can prove it: check is the verdict on a value given; required, that the
// key's absence fails the schema.
type noiseRule struct {
	check    func(any) schemaVerdict
	required bool
}

// schemaVerdict is what the client's schema surely says of a noise value.
type schemaVerdict int

const (
	accepted schemaVerdict = iota // noise: left out of the form
	refused                       // kept: the entry is stubbed, the marketplace does not load
	unproven                      // kept: a shape skillwire cannot prove the schema accepts
)

// text is the schema's string.
func text(v any) schemaVerdict {
	if _, ok := v.(string); ok {
		return accepted
	}
	return refused
}

// texts is the schema's array of strings.
func texts(v any) schemaVerdict {
	l, ok := v.([]any)
	if !ok {
		return refused
	}
	for _, e := range l {
		if text(e) != accepted {
			return refused
		}
	}
	return accepted
}

// person is the schema's author and owner: an object whose name is a
// string of one character or more, email and url strings when given. A key
// beyond those three is unproven (whether the object is strict is not
// read).
func person(v any) schemaVerdict {
	m, ok := v.(map[string]any)
	if !ok {
		return refused
	}
	if n, ok := m["name"].(string); !ok || n == "" {
		return refused
	}
	verdict := accepted
	for k, e := range m {
		switch {
		case k == "name":
		case k == "email" || k == "url":
			if text(e) != accepted {
				return refused
			}
		default:
			verdict = unproven
		}
	}
	return verdict
}

// plainURL is a subset of what a WHATWG URL parser surely accepts: http or
// https, a host of letters, digits and inner hyphens in dotted labels, the
// last beginning with a letter (never a number, never read as IPv4), no
// punycode label (whose decoding may fail), no port, and a path, query and
// fragment of unreserved and sub-delimiter characters.
var plainURL = regexp.MustCompile(`^https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:[/?#][A-Za-z0-9._~!$&'()*+,;=:@%/?#-]*)?$`)

// webURL is the schema's homepage, a string the client checks with its URL
// parser: plainURL is accepted, any other string unproven.
func webURL(v any) schemaVerdict {
	s, ok := v.(string)
	switch {
	case !ok:
		return refused
	case !plainURL.MatchString(s) || strings.Contains(strings.ToLower(s), "xn--"):
		return unproven
	}
	return accepted
}

// withoutNoise is m less its noise keys whose values the schema surely
// accepts; a required noise key that is absent is kept as null, refused
// alike.
func withoutNoise(m map[string]any, noise map[string]noiseRule) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if r, ok := noise[k]; !ok || r.check(v) != accepted {
			out[k] = v
		}
	}
	for k, r := range noise {
		if _, ok := m[k]; r.required && !ok {
			out[k] = nil
		}
	}
	return out
}

// MarketEntry is what a marketplace.json (its exact bytes) says of plugin:
// the canonical form {"entry": …, "marketplace": …} of the client's first
// entry named plugin (absent when none) and of the marketplace's own keys,
// each without its noise. ok is false when the file cannot be read as the
// client reads it (not one JSON object, too large, a key given twice: the
// client keeps the last, skillwire cannot tell which was meant), or holds
// a number skillwire cannot decode: the file is then bound whole.
func MarketEntry(data []byte, plugin string) (canon []byte, ok bool) {
	ex := WholeJSON(data, int64(len(data)))
	if ex.Canonical == nil || len(ex.Anomalies) > 0 {
		return nil, false
	}
	var doc map[string]any
	if decodeJSON(ex.Canonical, &doc) != nil {
		return nil, false
	}
	mkt := withoutNoise(doc, marketNoise)
	delete(mkt, "plugins")
	form := map[string]any{"marketplace": mkt}
	if meta, ok := doc["metadata"].(map[string]any); ok {
		// An object of noise alone says as much as none.
		if meta = withoutNoise(meta, metadataNoise); len(meta) > 0 {
			form["marketplace"].(map[string]any)["metadata"] = meta
		} else {
			delete(form["marketplace"].(map[string]any), "metadata")
		}
	}
	for _, e := range cfgList(doc["plugins"]) {
		if m, ok := e.(map[string]any); ok && m["name"] == plugin {
			form["entry"] = withoutNoise(m, entryNoise)
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

// WithEntry puts a marketplace.json's MarketEntry form into a plugin's
// form (nil: the plugin's files declare nothing) under EntryKey.
func WithEntry(form, entry []byte) []byte {
	doc := decodeCanonical(form)
	var e any
	if err := decodeJSON(entry, &e); err != nil {
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
	fs = append(fs, schemaFacts(fieldFacts(oe, ne, []string{"hooks", "mcpServers", "lspServers"}), ne, entryNoise)...)
	for i := range fs {
		fs[i].Origin = OriginEntry
	}
	mo, _ := om["marketplace"].(map[string]any)
	mn, _ := nm["marketplace"].(map[string]any)
	for _, f := range schemaFacts(fieldFacts(mo, mn, nil), mn, marketNoise) {
		f.Origin = OriginMarketplace
		fs = append(fs, f)
	}
	return fs
}

// What the client's schema says of a noise key's new value, in a field
// fact's Type (entryField): kept in the form, it is refused or unproven;
// left out, it passes.
const (
	schemaPasses   = "schema passes"
	schemaRefused  = "schema refuses"
	schemaUnproven = "schema unproven"
)

// schemaFacts marks each field fact of a noise key (rules) with what the
// client's schema says of its value in n, the new form.
func schemaFacts(fs []Fact, n map[string]any, rules map[string]noiseRule) []Fact {
	for i, f := range fs {
		r, ok := rules[f.Name]
		if !ok {
			continue
		}
		switch v, kept := n[f.Name]; {
		case !kept:
			fs[i].Type = schemaPasses
		case r.check(v) == unproven:
			fs[i].Type = schemaUnproven
		default:
			fs[i].Type = schemaRefused
		}
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

// fieldFacts tells each key of o or n but skip whose value changed, or
// that is given in one and not the other (a null too), as a FactSettingSet
// of that key, in key order.
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
		if !slices.Contains(skip, k) && (cfgHas(o, k) != cfgHas(n, k) || !cfgEqual(o[k], n[k])) {
			fs = append(fs, Fact{Kind: FactSettingSet, Name: k, Value: cfgJSON(n[k])})
		}
	}
	return fs
}

// entryFieldDangerous: an entry's source and a marketplace's name choose
// which folder and which marketplace, each watched by its own digest; any
// other field chooses what loads or is unknown.
func entryFieldDangerous(f Fact) bool {
	return f.Name != "source" && f.Name != "name"
}
