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
// the display gate. So nothing shown holds a control byte. Split never
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

// FuzzMarketEntry: a marketplace.json is either bound whole or read as a
// form that is its own form. In it, a hook added to plug's entry is a
// change. So is a noise key's value turned to a wrong type. Every fact
// told of it, against nothing, is one line without a control or bidi byte.
func FuzzMarketEntry(f *testing.F) {
	for _, s := range []string{`{}`, `{"plugins":[{"name":"plug","hooks":{"SessionStart":[{"hooks":[{"command":"a\u001b"}]}]}}]}`,
		`{"metadata":{"pluginRoot":"x"},"plugins":{"plug":1}}`, `{"plugins":[{"name":"plug","mcpServers":{"\u202e":{"command":"x"}},"lspServers":[]}]}`, `{"plugins":[{"name":"plug","name":"x"}]}`,
		`{"owner":{"name":"o"},"x":1e400,"plugins":[{"name":"plug","version":"1","author":{"name":"a","k":1},"homepage":"https://a.example"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ok := MarketEntry(data, "plug")
		if !ok {
			return
		}
		if _, again := MarketEntry(e, "plug"); !again {
			t.Fatalf("form %s is not read again", e)
		}
		for _, edit := range []func(map[string]any){
			func(m map[string]any) {
				m["hooks"] = map[string]any{"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "fuzz-probe \u0007"}}}}}
			},
			func(m map[string]any) { m["version"] = 5 },
		} {
			if edited, ok := editPlug(data, edit); ok {
				if e2, ok2 := MarketEntry(edited, "plug"); ok2 && bytes.Equal(e, e2) {
					t.Fatalf("an edit of plug's entry is no change of its form %s", e)
				}
			}
		}
		for _, fact := range Facts(nil, WithEntry(nil, e)) {
			s := fact.String()
			for _, r := range s {
				if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
					t.Fatalf("fact %q holds %U", s, r)
				}
			}
		}
	})
}

// editPlug is data with edit applied to its first entry named plug. That
// holds when it decodes (numbers as written) and has one whose edit
// changes it.
func editPlug(data []byte, edit func(map[string]any)) ([]byte, bool) {
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&doc) != nil {
		return nil, false
	}
	l, _ := doc["plugins"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["name"] == "plug" {
			before, _ := json.Marshal(m)
			edit(m)
			after, _ := json.Marshal(m)
			if bytes.Equal(before, after) {
				return nil, false
			}
			out, err := json.Marshal(doc)
			return out, err == nil
		}
	}
	return nil, false
}
