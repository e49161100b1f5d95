package events

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestFleetDocNamesRealFields: docs/fleet.md points a Wazuh rule, a
// Collector, Vector or Fluent Bit at event fields. Each is a field of the
// golden events, so the examples match what skillwire writes.
func TestFleetDocNamesRealFields(t *testing.T) {
	doc, err := os.ReadFile("../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, line := range goldenLines(t) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		paths(fields, "", m)
	}
	// Names of the OTLP record, not of the event.
	otlp := map[string]bool{"session.id": true, "prompt.id": true, "service.name": true}
	patterns := []*regexp.Regexp{
		regexp.MustCompile("`([a-z_]+(?:\\.[a-z_]+)*)`"),                                 // prose
		regexp.MustCompile(`<field name="([^"]+)">`),                                     // Wazuh
		regexp.MustCompile(`\$\(([a-z_.]+)\)`),                                           // Wazuh
		regexp.MustCompile(`attributes\.([a-z_]+)`),                                      // Collector
		regexp.MustCompile(`key: ([a-z_.]+)`),                                            // Collector
		regexp.MustCompile(`(?:^|[ (=])\.([a-z_]+(?:\.[a-z_]+)+|class_uid|severity_id)`), // Vector
	}
	used := map[string]bool{}
	for _, p := range patterns {
		for _, m := range p.FindAllStringSubmatch(string(doc), -1) {
			used[m[1]] = true
		}
	}
	for _, m := range regexp.MustCompile(`\$((?:\[?'?[a-z_]+'?\]?)+)`).FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[1], "'") { // Fluent Bit record accessor
			used[strings.NewReplacer("['", ".", "']", "").Replace(m[1])] = true
		}
	}
	checked := 0
	for name := range used {
		if !strings.ContainsAny(name, "._") && !fields[name] {
			continue // a word in backticks, not a field
		}
		if strings.HasPrefix(name, "events.ndjson") || strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".conf") {
			continue // a file name
		}
		checked++
		if !fields[name] && !otlp[name] {
			t.Errorf("docs/fleet.md names %q, which no golden event has", name)
		}
	}
	if checked < 20 {
		t.Errorf("only %d field names found in docs/fleet.md: the patterns no longer read it", checked)
	}
}

func paths(out map[string]bool, prefix string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			out[k] = out[k] || prefix == "" || isLeafName(k) // a field named by itself in prose: algorithm_id
			paths(out, p, sub)
		}
	case []any:
		for _, e := range v {
			paths(out, prefix, e)
		}
	}
}

// isLeafName: a field name a doc may use alone, for an object's field.
func isLeafName(k string) bool { return strings.Contains(k, "_") }
