// Package config reduces Claude Code's configuration files to what they
// configure, in one canonical form. Those are settings, .mcp.json,
// ~/.claude.json, the plugin registries and frontmatter. It lists the
// commands they run. It tells what changed between two forms as facts.
// A fact is fixed words around quoted attacker text (Fact.String). The
// advisory, the gate's reasons and verify's reports all tell them so.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/skillwire/skillwire/claude/config/jsonread"
)

// Claude Code's JSON configuration (settings, .mcp.json, ~/.claude.json) is
// watched by its security-relevant keys only, in one canonical form. So
// `theme`, `numStartups` or a reordered key is not a change, while every
// hook, server and permission is.

// Anomaly is why a configuration document could not be observed as
// plain data. The names match anomaly.Reason names where one exists.
type Anomaly string

const (
	AnomalyUnparsable   Anomaly = "unparsable"   // not one valid JSON object (or YAML mapping)
	AnomalyOversize     Anomaly = "oversize"     // over the size bound; never parsed in part
	AnomalyDuplicateKey Anomaly = "duplicatekey" // a key given twice; the last one is kept, as Claude Code does
	AnomalyDepth        Anomaly = "depth"        // nested deeper than any real configuration
	AnomalyAlias        Anomaly = "alias"        // YAML aliases that would expand past the limit; never expanded
)

// MaxJSON bounds a settings or .mcp.json document (DESIGN §12, "Bad input").
// It is the one bound of a settings file: the watch and every hook reader
// refuse a file over it. What the watch holds as oversize no hook acts on.
const MaxJSON = 1 << 20

// MaxClaudeJSON bounds ~/.claude.json. Claude Code rewrites it at every
// start with per-project history, so real ones grow well past a settings
// file.
const MaxClaudeJSON = 16 << 20

// noiseKeys are the settings keys left out of a settings file's canonical
// form. Every other key is kept, one skillwire has never heard of
// included. So a new key is a told change, never silence (DESIGN §12).
// Sorted. Each is here because it changes only how Claude Code looks or
// which model it asks. It never changes what it runs, reads, trusts or
// sends where.
//   - "$schema": the editor's schema URL; Claude Code never fetches it.
//   - "autoUpdates", "autoUpdatesChannel": the client's own updates.
//   - "cleanupPeriodDays": how long transcripts are kept on disk.
//   - "includeCoAuthoredBy": a trailer line in commit messages.
//   - "model", "effortLevel", "alwaysThinkingEnabled": which model, how
//     hard it thinks. The endpoint is env's ANTHROPIC_BASE_URL, kept.
//   - "numStartups", "tipsHistory": counters the client rewrites itself.
//   - "preferredNotifChannel", "spinnerTipsEnabled", "theme", "verbose":
//     how the terminal looks and what it prints.
//
// "outputStyle" is not noise: it replaces the system prompt.
var noiseKeys = []string{
	"$schema", "alwaysThinkingEnabled", "autoUpdates", "autoUpdatesChannel", "cleanupPeriodDays",
	"effortLevel", "includeCoAuthoredBy", "model", "numStartups", "preferredNotifChannel",
	"spinnerTipsEnabled", "theme", "tipsHistory", "verbose",
}

// Noise reports whether key is left out of a settings file's canonical
// form (noiseKeys). A restore keeps it as the file has it now.
func Noise(key string) bool {
	_, noise := slices.BinarySearch(noiseKeys, key)
	return noise
}

// settingKeys are the subset keys told as "KEY is now VALUE"
// (FactSettingSet).
var settingKeys = []string{
	"agent", "allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
	"allowedHttpHookUrls", "allowedMcpServers", "autoMemoryDirectory", "blockedMarketplaces", "deniedMcpServers",
	"disableAllHooks", "outputStyle", "skipDangerousModePermissionPrompt", "strictKnownMarketplaces",
}

// Extract is the security-relevant part of one configuration document.
type Extract struct {
	// Canonical is the kept keys as JSON with sorted keys and no
	// insignificant whitespace. It is nil when the document could not be
	// read (see Anomalies).
	Canonical []byte
	// Anomalies holds at most one reason. duplicatekey comes with a
	// Canonical form. unparsable, oversize, depth and alias come without
	// one.
	Anomalies []Anomaly
}

// utf8BOM may open a JSON file. Claude Code strips it, so a file with one
// configures as much as one without.
var utf8BOM = []byte("\xef\xbb\xbf")

// trimBOM strips exactly one leading BOM. A second one is not JSON to
// Claude Code either.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// extractConfig runs read over data and turns its outcome into an Extract.
func extractConfig(data []byte, size, max int64, read func(r *jsonread.Reader) (map[string]any, error)) Extract {
	if size > max || int64(len(data)) > max {
		return Extract{Anomalies: []Anomaly{AnomalyOversize}}
	}
	r := jsonread.NewReader(trimBOM(data))
	kept, err := read(r)
	if err == nil {
		err = r.End()
	}
	return extracted(kept, r.Dup, err)
}

// extracted is the Extract of a read that kept kept, or failed with err.
func extracted(kept map[string]any, dup bool, err error) Extract {
	switch {
	case errors.Is(err, jsonread.ErrDepth):
		return Extract{Anomalies: []Anomaly{AnomalyDepth}}
	case err != nil:
		return Extract{Anomalies: []Anomaly{AnomalyUnparsable}}
	}
	ex := Extract{Canonical: canonicalJSON(kept)}
	if dup {
		ex.Anomalies = []Anomaly{AnomalyDuplicateKey}
	}
	return ex
}

// canonicalJSON encodes a built value. encoding/json sorts map keys, and
// the values hold only JSON types. So equal meaning gives equal bytes.
func canonicalJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Built values are maps, slices, strings, json.Number, bool and
		// nil from a decoder that validated them. None of them fails to
		// encode.
		panic("config: canonical JSON: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// SettingsSubset extracts every key of a settings.json but noiseKeys. The
// file may be the user's, the project's, a local or a managed one. size
// is the file's size as the caller observed it. data is what it read,
// bounded.
func SettingsSubset(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxJSON, func(r *jsonread.Reader) (map[string]any, error) {
		kept := map[string]any{}
		err := r.Object(func(k string) error {
			if Noise(k) {
				return r.Skip()
			}
			v, err := r.Value(1)
			kept[k] = v
			return err
		})
		return kept, err
	})
}

// MCPJSON extracts `mcpServers` of a project's .mcp.json.
func MCPJSON(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxJSON, func(r *jsonread.Reader) (map[string]any, error) {
		kept := map[string]any{}
		err := r.Object(func(k string) error {
			if k != "mcpServers" {
				return r.Skip()
			}
			v, err := r.Value(1)
			kept[k] = v
			return err
		})
		return kept, err
	})
}
