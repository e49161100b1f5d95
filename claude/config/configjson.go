// Package config reduces Claude Code's configuration files (settings,
// .mcp.json, ~/.claude.json, the plugin registries, frontmatter) to what
// they configure, in one canonical form, lists the commands they run, and
// tells what changed between two forms as facts, in fixed words around
// quoted attacker text (Fact.String: the advisory, the gate's reasons and
// verify's reports all tell them so).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// Claude Code's JSON configuration (settings, .mcp.json, ~/.claude.json) is
// watched by its security-relevant keys only, in one canonical form, so that
// `theme`, `numStartups` or a reordered key is not a change while every hook,
// server and permission is.

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

// MaxClaudeJSON bounds ~/.claude.json: Claude Code rewrites it at every start
// with per-project history, so real ones grow well past a settings file.
const MaxClaudeJSON = 16 << 20

// maxConfigDepth bounds the nesting of a kept value; real settings nest about 6 deep.
const maxConfigDepth = 64

// noiseKeys are the settings keys left out of a settings file's canonical
// form: every other key, one skillwire has never heard of included, is kept,
// so a new key is a told change, never silence (DESIGN §12). Sorted. Each is
// here because it changes only how Claude Code looks or which model it asks,
// never what it runs, reads, trusts or sends where:
//   - "$schema": the editor's schema URL; Claude Code never fetches it.
//   - "autoUpdates", "autoUpdatesChannel": the client's own updates.
//   - "cleanupPeriodDays": how long transcripts are kept on disk.
//   - "includeCoAuthoredBy": a trailer line in commit messages.
//   - "model", "effortLevel", "alwaysThinkingEnabled": which model, how hard
//     it thinks; the endpoint it is sent to is env's ANTHROPIC_BASE_URL, kept.
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
// form (noiseKeys): a restore keeps it as the file has it now.
func Noise(key string) bool {
	_, noise := slices.BinarySearch(noiseKeys, key)
	return noise
}

// settingKeys are the subset keys told as "KEY is now VALUE" (FactSettingSet).
var settingKeys = []string{
	"agent", "allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
	"allowedHttpHookUrls", "allowedMcpServers", "autoMemoryDirectory", "blockedMarketplaces", "deniedMcpServers",
	"disableAllHooks", "outputStyle", "skipDangerousModePermissionPrompt", "strictKnownMarketplaces",
}

// Extract is the security-relevant part of one configuration document.
type Extract struct {
	// Canonical is the kept keys as JSON with sorted keys and no insignificant
	// whitespace; nil when the document could not be read (see Anomalies).
	Canonical []byte
	// Anomalies holds at most one reason: duplicatekey comes with a Canonical
	// form; unparsable, oversize, depth and alias come without one.
	Anomalies []Anomaly
}

// errConfigDepth stops a walk nested past maxConfigDepth.
var errConfigDepth = errors.New("nested too deep")

// configReader walks one JSON document token by token, building only the
// values it keeps and noting duplicate keys on the way.
type configReader struct {
	dec *json.Decoder
	dup bool
}

func newConfigReader(data []byte) *configReader {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &configReader{dec: dec}
}

// skipValue is decoded into to pass over a value without building it: the
// decoder still checks its syntax, and nothing is copied.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

func (r *configReader) skip() error { return r.dec.Decode(&skipValue{}) }

// value builds the next value as map[string]any, []any, string, json.Number,
// bool or nil. A repeated key keeps its last value, as JSON.parse does.
func (r *configReader) value(depth int) (any, error) {
	if depth > maxConfigDepth {
		return nil, errConfigDepth
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for r.dec.More() {
			k, err := r.key()
			if err != nil {
				return nil, err
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, ok := m[k]; ok {
				r.dup = true
			}
			m[k] = v
		}
		_, err := r.dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for r.dec.More() {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := r.dec.Token()
		return a, err
	}
	return tok, nil
}

func (r *configReader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", errors.New("object key is not a string")
	}
	return k, nil
}

// object walks the members of the object that comes next, calling member
// with each key; member must consume the value. Duplicate keys are noted.
func (r *configReader) object(member func(key string) error) error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errors.New("not an object")
	}
	seen := map[string]bool{}
	for r.dec.More() {
		k, err := r.key()
		if err != nil {
			return err
		}
		if seen[k] {
			r.dup = true
		}
		seen[k] = true
		if err := member(k); err != nil {
			return err
		}
	}
	_, err = r.dec.Token()
	return err
}

// end requires that nothing but whitespace follows the document.
func (r *configReader) end() error {
	if _, err := r.dec.Token(); err != io.EOF {
		return errors.New("data after the top-level object")
	}
	return nil
}

// utf8BOM may open a JSON file: Claude Code strips it, so a file with one
// configures as much as one without.
var utf8BOM = []byte("\xef\xbb\xbf")

// trimBOM strips exactly one leading BOM: a second one is not JSON to Claude Code either.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// extractConfig runs read over data and turns its outcome into an Extract.
func extractConfig(data []byte, size, max int64, read func(r *configReader) (map[string]any, error)) Extract {
	if size > max || int64(len(data)) > max {
		return Extract{Anomalies: []Anomaly{AnomalyOversize}}
	}
	r := newConfigReader(trimBOM(data))
	kept, err := read(r)
	if err == nil {
		err = r.end()
	}
	if errors.Is(err, errConfigDepth) {
		return Extract{Anomalies: []Anomaly{AnomalyDepth}}
	}
	if err != nil {
		return Extract{Anomalies: []Anomaly{AnomalyUnparsable}}
	}
	var ex Extract
	ex.Canonical = canonicalJSON(kept)
	if r.dup {
		ex.Anomalies = []Anomaly{AnomalyDuplicateKey}
	}
	return ex
}

// canonicalJSON encodes a built value: encoding/json sorts map keys and the
// values hold only JSON types, so equal meaning gives equal bytes.
func canonicalJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Built values are maps, slices, strings, json.Number, bool and nil
		// from a decoder that validated them; none of them fails to encode.
		panic("config: canonical JSON: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// SettingsSubset extracts every key of a settings.json but noiseKeys
// (user, project, local or managed). size is the file's size as the caller
// observed it; data is what it read, bounded.
func SettingsSubset(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxJSON, func(r *configReader) (map[string]any, error) {
		kept := map[string]any{}
		err := r.object(func(k string) error {
			if Noise(k) {
				return r.skip()
			}
			v, err := r.value(1)
			kept[k] = v
			return err
		})
		return kept, err
	})
}

// MCPJSON extracts `mcpServers` of a project's .mcp.json.
func MCPJSON(data []byte, size int64) Extract {
	return extractConfig(data, size, MaxJSON, func(r *configReader) (map[string]any, error) {
		kept := map[string]any{}
		err := r.object(func(k string) error {
			if k != "mcpServers" {
				return r.skip()
			}
			v, err := r.value(1)
			kept[k] = v
			return err
		})
		return kept, err
	})
}

var errClaudeJSON = errors.New("not a JSON object")

// top scans the whole document as one object, nothing after it, and turns
// a failure into the anomaly of the extract (nil: the scan succeeded).
func (s *claudeScan) top(fn func(k string) error) *Extract {
	err := s.object(fn)
	if err == nil {
		s.space()
		if s.i != len(s.data) {
			err = errors.New("data after the top-level object")
		}
	}
	switch {
	case errors.Is(err, errConfigDepth):
		return &Extract{Anomalies: []Anomaly{AnomalyDepth}}
	case err != nil:
		return &Extract{Anomalies: []Anomaly{AnomalyUnparsable}}
	}
	return nil
}

// claudeScan walks the few levels of ~/.claude.json that lead to the kept
// values over raw bytes. Kept values are read by configReader in full.
type claudeScan struct {
	data []byte
	i    int
	dup  bool
}

func (s *claudeScan) space() {
	for s.i < len(s.data) && strings.IndexByte(" \t\r\n", s.data[s.i]) >= 0 {
		s.i++
	}
}

// object walks the members of the object that comes next; member must consume the value.
func (s *claudeScan) object(member func(key string) error) error {
	s.space()
	if s.i == len(s.data) || s.data[s.i] != '{' {
		return errClaudeJSON
	}
	s.i++
	seen := map[string]bool{}
	for first := true; ; first = false {
		s.space()
		if s.i < len(s.data) && s.data[s.i] == '}' && first {
			s.i++
			return nil
		}
		start := s.i
		if !s.skipString() {
			return errClaudeJSON
		}
		raw := s.data[start+1 : s.i-1]
		k := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 {
			if err := json.Unmarshal(s.data[start:s.i], &k); err != nil {
				return errClaudeJSON
			}
		}
		s.space()
		if s.i == len(s.data) || s.data[s.i] != ':' {
			return errClaudeJSON
		}
		s.i++
		if seen[k] {
			s.dup = true
		}
		seen[k] = true
		if err := member(k); err != nil {
			return err
		}
		s.space()
		if s.i == len(s.data) {
			return errClaudeJSON
		}
		s.i++
		switch s.data[s.i-1] {
		case '}':
			return nil
		case ',':
			continue
		}
		return errClaudeJSON
	}
}

// keep reads the next value in full (syntax, duplicate keys, depth) into kept[name].
func (s *claudeScan) keep(kept map[string]any, name string, depth int) error {
	s.space()
	start := s.i
	if err := s.skip(); err != nil {
		return err
	}
	r := newConfigReader(s.data[start:s.i])
	v, err := r.value(depth)
	if err == nil {
		err = r.end()
	}
	s.dup = s.dup || r.dup
	kept[name] = v
	return err
}

// skipString passes over the string that starts at s.i, quotes included.
func (s *claudeScan) skipString() bool {
	if s.i == len(s.data) || s.data[s.i] != '"' {
		return false
	}
	j := s.i + 1
	for {
		k := bytes.IndexByte(s.data[j:], '"')
		if k < 0 {
			return false
		}
		j += k
		n := 0
		for p := j - 1; s.data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = j + 1
			return true
		}
		j++
	}
}

// maxSkipDepth bounds the nesting of a skipped value, as encoding/json does.
const maxSkipDepth = 10000

// skip passes over one value, checking that strings end and brackets match.
func (s *claudeScan) skip() error {
	s.space()
	if s.i == len(s.data) {
		return errClaudeJSON
	}
	switch s.data[s.i] {
	case '"':
		if !s.skipString() {
			return errClaudeJSON
		}
		return nil
	case '{', '[':
		var open []byte
		for s.i < len(s.data) {
			switch c := s.data[s.i]; c {
			case '"':
				if !s.skipString() {
					return errClaudeJSON
				}
				continue
			case '{', '[':
				if open = append(open, c); len(open) > maxSkipDepth {
					return errConfigDepth
				}
			case '}', ']':
				if len(open) == 0 || open[len(open)-1] != c-2 {
					return errClaudeJSON
				}
				if open = open[:len(open)-1]; len(open) == 0 {
					s.i++
					return nil
				}
			}
			s.i++
		}
		return errClaudeJSON
	}
	start := s.i
	for s.i < len(s.data) && strings.IndexByte(",}] \t\r\n", s.data[s.i]) < 0 {
		s.i++
	}
	if s.i == start {
		return errClaudeJSON
	}
	return nil
}
