package config

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzWholeJSON: a plugin registry is either refused with one reason or
// kept in a canonical form that is its own canonical form.
func FuzzWholeJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"b":1,"a":[1,{"y":2,"x":1}]}`, `{"a":1,"a":2}`, `[]`, `{`, `{"a":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex := WholeJSON(data, int64(len(data)))
		if ex.Canonical == nil {
			if len(ex.Anomalies) != 1 {
				t.Fatalf("refused with %v", ex.Anomalies)
			}
			return
		}
		again := WholeJSON(ex.Canonical, int64(len(ex.Canonical)))
		if !bytes.Equal(again.Canonical, ex.Canonical) || len(again.Anomalies) > 0 {
			t.Fatalf("canonical form %s is not canonical: %s %v", ex.Canonical, again.Canonical, again.Anomalies)
		}
	})
}

// FuzzDisplayAndSplit: a name is shown only when every component passes
// the display gate, so nothing shown holds a control byte; Split never
// names a candidate outside the path it was given.
func FuzzClaudeJSONServers(f *testing.F) {
	for _, s := range []string{`{}`, `{"mcpServers":{"a":{"command":"x"}},"projects":{"/p":{"mcpServers":{}},"/q":{"mcpServers":{"b":{}}}}}`,
		`{"projects":{"/p":[],"/p":{"mcpServers":{"a":1}}}}`, `{"projects":{"/p":{"mcpServers":{ }}}}`, `{"projects":{"/p":{"mcpServers":{]}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex := ClaudeJSONServers(data, int64(len(data)))
		if ex.Canonical == nil {
			if len(ex.Anomalies) != 1 {
				t.Fatalf("refused with %v", ex.Anomalies)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(ex.Canonical, &m); err != nil {
			t.Fatalf("form %s: %v", ex.Canonical, err)
		}
		for k := range m {
			if k != "mcpServers" && k != "localMcpServers" {
				t.Fatalf("form keeps %q", k)
			}
		}
	})
}
