package config

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A plugin of a marketplace loads with its marketplace.json entry applied.
// So what the entry and the marketplace around it say is part of the
// plugin, and is told by what it runs.
// TestAnEntrysHooksAndServersAreToldByWhatTheyRun holds the client's rule.

// EntryKey holds, in a plugin candidate's form, what its marketplace.json
// says of it (MarketEntry's form). It is told as facts of origin
// OriginEntry and OriginMarketplace.
const EntryKey = "marketplaceEntry"

// The origins of a fact told of a plugin's marketplace.json (Fact.Origin).
const (
	OriginEntry       = "marketplace entry" // the plugin's own entry
	OriginMarketplace = "marketplace.json"  // the marketplace's keys beside "plugins"
)

// entryNoise are the keys of a plugin's entry that run and load nothing.
// Each has the client's schema of it. The client shows displayName,
// description, author and their like in /plugin. version names the cache
// folder an install writes: a new version is a new candidate, held
// against the one it replaces. tags and category sort the marketplace's
// listing. name is how the entry is found. Any other key, one never heard
// of included, is told.
//
// Only known noise is ignored. The client stubs an entry any field of
// which fails its schema, and a stubbed entry's hooks do not run. So a
// noise key is left out only when the schema surely accepts its value.
// Any other value is kept as it is. Then an edit that makes the entry
// parse changes the form and is told.
// TestANoiseKeyIsLeftOutOnlyWhenTheClientsSchemaAcceptsIt holds the
// record.
var entryNoise = map[string]noiseRule{
	"author": {check: person}, "category": {check: text}, "description": {check: text}, "displayName": {check: text},
	"homepage": {check: webURL}, "keywords": {check: texts}, "license": {check: text}, "name": {check: func(any) schemaVerdict { return accepted }},
	"repository": {check: text}, "tags": {check: texts}, "version": {check: text},
}

// marketNoise are the keys of a marketplace.json beside "plugins" that
// load nothing. Its owner (required), description and version are shown;
// $schema is for editors. A marketplace with any key failing the client's
// schema does not load, and no entry of it is applied. So, as in an entry,
// a value not surely accepted is kept. "plugins" holds the entries, each
// its own plugin's (MarketEntry). metadataNoise are metadata's shown keys.
// metadata.pluginRoot, where bare sources resolve, is kept.
var (
	marketNoise = map[string]noiseRule{
		"$schema": {check: text}, "description": {check: text}, "owner": {check: person, required: true}, "version": {check: text},
	}
	metadataNoise = map[string]noiseRule{"description": {check: text}, "version": {check: text}}
)

// A noiseRule is the client's schema of a noise key, as far as skillwire
// can prove it. check is the verdict on a value given. required says the
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

// person is the schema's author and owner. It is an object whose name is a
// string of one character or more, with email and url strings when given.
// A key beyond those three is unproven: whether the object is strict is
// not read.
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

// plainURL is a subset of what a WHATWG URL parser surely accepts. The
// scheme is http or https, with no port. The host is dotted labels of
// letters, digits and inner hyphens. The last label begins with a letter,
// so it is never a number read as IPv4. No punycode label is allowed,
// since its decoding may fail. The path, query and fragment hold
// unreserved and sub-delimiter characters only.
var plainURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:[/?#][A-Za-z0-9._~!$&'()*+,;=:@%/?#-]*)?$`)
})

// webURL is the schema's homepage, a string the client checks with its URL
// parser. plainURL is accepted, any other string unproven.
func webURL(v any) schemaVerdict {
	s, ok := v.(string)
	switch {
	case !ok:
		return refused
	case !plainURL().MatchString(s) || strings.Contains(strings.ToLower(s), "xn--"):
		return unproven
	}
	return accepted
}

// withoutNoise is m less its noise keys whose values the schema surely
// accepts. A required noise key that is absent is kept as null, and so
// refused alike.
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

// MarketEntry is what a marketplace.json, by its exact bytes, says of
// plugin. It is the canonical form {"entry": …, "marketplace": …}. entry
// is the client's first entry named plugin, absent when none. marketplace
// is the marketplace's own keys. Each is without its noise. ok is false
// when the file cannot be read as the client reads it: the file is then
// bound whole. That is a file not one JSON object, or too large. It is a
// key given twice: the client keeps the last, and skillwire cannot tell
// which was meant. It is a number skillwire cannot decode.
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
		// Not a list: the client reads no entry of it. skillwire
		// keeps its shape, so that it is told.
		form["marketplace"].(map[string]any)["plugins"] = doc["plugins"]
	}
	return canonicalJSON(form), true
}

// EntryParses reports whether the client surely parses plugin's entry of
// a marketplace.json, by its exact bytes. Each key of the entry is then a
// noise key the schema surely accepts, or its source string. Each key of
// the marketplace around it is accepted noise, or its name string. The
// client stubs an entry it cannot parse, and then loads the install's
// cache copy, not the entry's folder (the oracle of e2e
// TestAStubbedEntryMadeToParseIsToldAndHeld). Any other key is unproven.
func EntryParses(data []byte, plugin string) bool {
	canon, ok := MarketEntry(data, plugin)
	var form map[string]any
	if !ok || decodeJSON(canon, &form) != nil {
		return false
	}
	e, _ := form["entry"].(map[string]any)
	m, _ := form["marketplace"].(map[string]any)
	_, src := e["source"].(string)
	_, name := m["name"].(string)
	return src && len(e) == 1 && (len(m) == 0 || name && len(m) == 1)
}

// WithEntry puts a marketplace.json's MarketEntry form into a plugin's
// form under EntryKey. A nil form means the plugin's files declare
// nothing.
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
// of its origin. The entry's hooks and servers are told by what they run.
// Its every other key, and the marketplace's, are told as fields.
func entryFacts(old, new any) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	oe, _ := om["entry"].(map[string]any)
	ne, _ := nm["entry"].(map[string]any)
	var fs []Fact
	told := func(k string, kf []Fact) {
		if len(kf) == 0 && !cfgEqual(oe[k], ne[k]) {
			// A shape the facts above do not read still changed what
			// loads: a path, a list, a handler that is not an object.
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
// fact's Type (entryField). Kept in the form, it is refused or unproven.
// Left out, it passes.
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
// or absent. They are nil for any other shape, which entryFacts tells as a
// field.
func objectFacts(old, new any, added, changed, removed FactKind) []Fact {
	_, ok1 := old.(map[string]any)
	_, ok2 := new.(map[string]any)
	if !(ok1 || old == nil) || !(ok2 || new == nil) {
		return nil
	}
	return mapFacts(old, new, added, changed, removed, describeServer)
}

// fieldFacts tells each key of o or n, but skip, as a FactSettingSet of
// that key, in key order. It tells a key whose value changed, or one given
// in one and not the other, a null too.
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
// which folder and which marketplace. Each of those is watched by its own
// digest. Any other field chooses what loads, or is unknown.
func entryFieldDangerous(f Fact) bool {
	return f.Name != "source" && f.Name != "name"
}
