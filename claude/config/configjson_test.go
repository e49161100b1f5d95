package config

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config/jsonread"
)

func subsetOf(t *testing.T, doc string) Extract {
	t.Helper()
	return SettingsSubset([]byte(doc), int64(len(doc)))
}

// securityKeys are keys the canonical form must keep. They are the
// command-running ones of Claude Code 2.1.328 and a key no version has
// yet.
var securityKeys = []string{
	"additionalMarketplaces", "agent", "allowManagedHooksOnly", "apiKeyHelper", "awsAuthRefresh",
	"awsCredentialExport", "disableAllHooks", "enableAllProjectMcpServers", "enabledPlugins", "env",
	"extraKnownMarketplaces", "fileSuggestion", "fooHelper", "gcpAuthRefresh", "hooks", "otelHeadersHelper",
	"outputStyle", "permissions", "proxyAuthHelper", "sandbox", "statusLine", "subagentStatusLine",
}

func TestSettingsSubsetKeepsEveryKeyButNamedNoise(t *testing.T) {
	for _, k := range securityKeys {
		t.Run(k, func(t *testing.T) {
			doc := fmt.Sprintf(`{"theme":"dark",%q:{"x":1}}`, k)
			ex := subsetOf(t, doc)
			want := fmt.Sprintf(`{%q:{"x":1}}`, k)
			if string(ex.Canonical) != want || ex.Anomalies != nil {
				t.Fatalf("got %s %v, want %s", ex.Canonical, ex.Anomalies, want)
			}
		})
	}
	if !slices.IsSorted(noiseKeys) {
		t.Fatal("noiseKeys must stay sorted for the binary search")
	}
}

func TestSettingsSubsetIgnoresNoise(t *testing.T) {
	base := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]},"env":{"A":"1","B":"2"}}`
	want := SettingsSubset([]byte(base), int64(len(base))).Canonical
	for name, doc := range map[string]string{
		"theme":         `{"theme":"light","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]},"env":{"A":"1","B":"2"}}`,
		"model":         `{"model":"opus","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]},"env":{"A":"1","B":"2"}}`,
		"numStartups":   `{"numStartups":812,"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]},"env":{"A":"1","B":"2"},"tipsHistory":{"x":[1,2,{"y":null}]}}`,
		"reordered":     `{"env":{"B":"2","A":"1"},"hooks":{"SessionStart":[{"hooks":[{"command":"a","type":"command"}]}]}}`,
		"whitespace":    "{\n  \"hooks\" : {\"SessionStart\":[ {\"hooks\":[{\"type\":\"command\",\"command\":\"a\"}]} ]},\r\n\t\"env\":{\"A\":\"1\",\"B\":\"2\"}\n}\n",
		"escaped alike": `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"\u0061"}]}]},"env":{"A":"1","B":"2"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			got := subsetOf(t, doc)
			if !bytes.Equal(got.Canonical, want) || got.Anomalies != nil {
				t.Fatalf("got %s %v\nwant %s", got.Canonical, got.Anomalies, want)
			}
		})
	}
}

func TestSettingsSubsetSeesEveryChangeOfAKeptKey(t *testing.T) {
	base := subsetOf(t, `{"env":{"A":"1"},"permissions":{"allow":["Read"]}}`).Canonical
	for _, doc := range []string{
		`{"env":{"A":"2"},"permissions":{"allow":["Read"]}}`,
		`{"env":{"A":"1"},"permissions":{"allow":["Read","Bash"]}}`,
		`{"env":{"A":"1"},"permissions":{"allow":["Read"]},"apiKeyHelper":"x"}`,
		`{"env":{"A":1},"permissions":{"allow":["Read"]}}`,
	} {
		if got := subsetOf(t, doc).Canonical; bytes.Equal(got, base) {
			t.Errorf("%s: canonical form unchanged", doc)
		}
	}
}

func TestDuplicateKeysKeepTheLastAndAreReported(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"top level":     {`{"env":{"A":"1"},"env":{"B":"2"}}`, `{"env":{"B":"2"}}`},
		"nested":        {`{"env":{"A":"1","A":"2"}}`, `{"env":{"A":"2"}}`},
		"deep":          {`{"hooks":{"Stop":[{"hooks":[{"command":"safe","command":"curl x|sh"}]}]}}`, `{"hooks":{"Stop":[{"hooks":[{"command":"curl x|sh"}]}]}}`},
		"ignored twice": {`{"theme":"a","theme":"b","env":{}}`, `{"env":{}}`},
	} {
		t.Run(name, func(t *testing.T) {
			ex := subsetOf(t, c.doc)
			if string(ex.Canonical) != c.want {
				t.Fatalf("canonical %s, want %s", ex.Canonical, c.want)
			}
			if !slices.Equal(ex.Anomalies, []Anomaly{AnomalyDuplicateKey}) {
				t.Fatalf("anomalies %v, want duplicatekey", ex.Anomalies)
			}
		})
	}
}

func TestBadSettingsAreAnomaliesWithoutACanonicalForm(t *testing.T) {
	deep := strings.Repeat(`{"a":`, jsonread.MaxDepth+2) + "1" + strings.Repeat("}", jsonread.MaxDepth+2)
	for name, c := range map[string]struct {
		doc  string
		size int64
		want Anomaly
	}{
		"empty":            {"", 0, AnomalyUnparsable},
		"truncated":        {`{"env":{"A":"1"}`, 16, AnomalyUnparsable},
		"array":            {`["hooks"]`, 9, AnomalyUnparsable},
		"two objects":      {`{}{}`, 4, AnomalyUnparsable},
		"trailing junk":    {`{"env":{}} x`, 12, AnomalyUnparsable},
		"bad skipped":      {`{"theme":[1,}`, 13, AnomalyUnparsable},
		"comment":          {`{"env":{} /* c */}`, 18, AnomalyUnparsable},
		"oversize by len":  {strings.Repeat(" ", MaxJSON+1), MaxJSON + 1, AnomalyOversize},
		"oversize by size": {`{}`, MaxJSON + 1, AnomalyOversize},
		"deep kept value":  {`{"env":` + deep + `}`, 0, AnomalyDepth},
	} {
		t.Run(name, func(t *testing.T) {
			ex := SettingsSubset([]byte(c.doc), c.size)
			if ex.Canonical != nil || !slices.Equal(ex.Anomalies, []Anomaly{c.want}) {
				t.Fatalf("got %q %v, want %s", ex.Canonical, ex.Anomalies, c.want)
			}
		})
	}
}

func TestDeepIgnoredValueIsPassedOver(t *testing.T) {
	deep := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	ex := subsetOf(t, `{"theme":`+deep+`,"env":{"A":"1"}}`)
	if string(ex.Canonical) != `{"env":{"A":"1"}}` {
		t.Fatalf("got %s %v", ex.Canonical, ex.Anomalies)
	}
}

func TestMCPJSONKeepsOnlyServers(t *testing.T) {
	a := MCPJSON([]byte(`{"mcpServers":{"db":{"command":"npx","args":["-y","pkg"]}},"other":1}`), 0)
	b := MCPJSON([]byte(`{"other":2, "mcpServers":{"db":{"args":["-y","pkg"],"command":"npx"}}}`), 0)
	want := `{"mcpServers":{"db":{"args":["-y","pkg"],"command":"npx"}}}`
	if string(a.Canonical) != want || string(b.Canonical) != want {
		t.Fatalf("got %s and %s, want %s", a.Canonical, b.Canonical, want)
	}
	if ex := MCPJSON([]byte(`{"mcpServers":{}`), 0); ex.Anomalies[0] != AnomalyUnparsable {
		t.Fatalf("truncated .mcp.json: %v", ex.Anomalies)
	}
}

func TestClaudeJSONBounds(t *testing.T) {
	if ex := ClaudeJSONServers([]byte(`{}`), MaxClaudeJSON+1); ex.Anomalies[0] != AnomalyOversize {
		t.Fatalf("oversize: %v", ex.Anomalies)
	}
	if ex := ClaudeJSONServers([]byte(`{"projects":{"/q":{]}}`), 0); ex.Anomalies[0] != AnomalyUnparsable {
		t.Fatalf("bad skipped project: %v", ex.Anomalies)
	}
}

// claudeJSON200KB is shaped like a real ~/.claude.json: many projects,
// each with history, and a few servers.
func claudeJSON200KB() []byte {
	var b strings.Builder
	b.WriteString(`{"numStartups":812,"installMethod":"native","autoUpdates":true,"tipsHistory":{"new-user-warmup":7,"memory-command":40},`)
	b.WriteString(`"mcpServers":{"gh":{"type":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-github"],"env":{"GITHUB_TOKEN":"x"}}},"projects":{`)
	for i := 0; b.Len() < 200<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/home/u/src/project-%d":{"allowedTools":[],"history":[`, i)
		for j := 0; j < 8; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"display":"fix the failing test in pkg/%d and explain why \"it\" broke","pastedContents":{}}`, j)
		}
		fmt.Fprintf(&b, `],"mcpContextUris":[],"mcpServers":{"db%d":{"command":"node","args":["server.js"]}},"enabledMcpjsonServers":[],"hasTrustDialogAccepted":true,"lastCost":0.1234,"lastDuration":123456}`, i)
	}
	b.WriteString(`},"userID":"0123456789abcdef"}`)
	return []byte(b.String())
}

func FuzzSettingsSubset(f *testing.F) {
	for _, s := range []string{`{}`, `{"hooks":{"Stop":[{"hooks":[{"command":"x"}]}]},"theme":1}`, `{"env":{"A":"1","A":"2"}}`, `{"a":[`, `{"permissions":{"defaultMode":"plan"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex := SettingsSubset(data, int64(len(data)))
		if (ex.Canonical == nil) == (len(ex.Anomalies) == 0 || ex.Anomalies[0] == AnomalyDuplicateKey) {
			t.Fatalf("canonical %q with anomalies %v", ex.Canonical, ex.Anomalies)
		}
		if ex.Canonical == nil {
			return
		}
		// The canonical form is a fixed point: reading it again gives it
		// back.
		again := SettingsSubset(ex.Canonical, int64(len(ex.Canonical)))
		if !bytes.Equal(again.Canonical, ex.Canonical) || again.Anomalies != nil {
			t.Fatalf("not a fixed point: %q -> %q %v", ex.Canonical, again.Canonical, again.Anomalies)
		}
		SettingsCommands(ex.Canonical)
		for _, fact := range Facts(nil, ex.Canonical) {
			if s := fact.String(); strings.ContainsAny(s, "\n\r\x1b\u202e") {
				t.Fatalf("unescaped text in %q", s)
			}
		}
	})
}

func TestClaudeJSONScannerRefusesBrokenStructure(t *testing.T) {
	for name, doc := range map[string]string{
		"mismatched brackets":  `{"projects":{"/q":{"a":[}]}}}`,
		"unterminated string":  `{"projects":{"/q":"abc}}`,
		"escaped quote at end": `{"projects":{"/q":"abc\"}}`,
		"missing colon":        `{"projects" {}}`,
		"trailing comma":       `{"projects":{},}`,
		"trailing data":        `{"projects":{}} {}`,
		"not an object":        `[]`,
		"bad kept value":       `{"mcpServers":{"a":[1,]}}`,
		"empty":                ``,
	} {
		t.Run(name, func(t *testing.T) {
			ex := ClaudeJSONServers([]byte(doc), 0)
			if ex.Canonical != nil || !slices.Equal(ex.Anomalies, []Anomaly{AnomalyUnparsable}) {
				t.Fatalf("got %s %v, want unparsable", ex.Canonical, ex.Anomalies)
			}
		})
	}
}

func TestClaudeJSONDecodesEscapedKeysAsClaudeCodeDoes(t *testing.T) {
	doc := `{"projects":{"\/p":{"mcp\u0053ervers":{"a":{"command":"x"}}}},"skip":"q\\\"\\"}`
	ex := ClaudeJSONServers([]byte(doc), 0)
	if string(ex.Canonical) != `{"localMcpServers":{"a@/p":{"command":"x"}}}` {
		t.Fatalf("got %s %v", ex.Canonical, ex.Anomalies)
	}
}

func TestSettingsOfExactlyTheBoundAreRead(t *testing.T) {
	head := `{"env":{"A":"1"},"theme":"`
	doc := head + strings.Repeat("x", MaxJSON-len(head)-2) + `"}`
	if len(doc) != MaxJSON {
		t.Fatalf("built %d bytes", len(doc))
	}
	if ex := subsetOf(t, doc); string(ex.Canonical) != `{"env":{"A":"1"}}` {
		t.Fatalf("got %.60s %v", ex.Canonical, ex.Anomalies)
	}
}

func TestClaudeJSONServersKeepsEveryProjectsServersByName(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"user and projects", `{"numStartups":1,"mcpServers":{"u":{"command":"a"}},"projects":{"/p":{"history":[],"mcpServers":{"db":{"command":"npx"}}},"/q":{"mcpServers":{}}}}`,
			`{"localMcpServers":{"db@/p":{"command":"npx"}},"mcpServers":{"u":{"command":"a"}}}`},
		{"a project that is not an object", `{"projects":{"/p":[1],"/q":{"mcpServers":{"x":{"url":"http://x"}}}}}`,
			`{"localMcpServers":{"x@/q":{"url":"http://x"}}}`},
		{"a repeated project replaces the earlier one", `{"projects":{"/p":{"mcpServers":{"a":{}}},"/p":{"mcpServers":{"b":{}}}}}`,
			`{"localMcpServers":{"b@/p":{}}}`},
		{"no servers", `{"projects":{"/p":{"history":["x"]}}}`, `{}`},
		{"empty servers", `{"projects":{"/p":{"mcpServers": { } },"/q":{"mcpServers":{"a":{}}}}}`, `{"localMcpServers":{"a@/q":{}}}`},
		{"an empty object is checked like any", `{"projects":{"/p":{"mcpServers":{]}}}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := ClaudeJSONServers([]byte(tc.doc), int64(len(tc.doc)))
			if string(ex.Canonical) != tc.want {
				t.Errorf("canonical %s, want %s", ex.Canonical, tc.want)
			}
		})
	}
	if ex := ClaudeJSONServers([]byte(`{"projects":{"/p":{"mcpServers":{"a":{},"a":{}}}}}`), 0); len(ex.Anomalies) != 1 || ex.Anomalies[0] != AnomalyDuplicateKey {
		t.Errorf("duplicate server: %+v", ex)
	}
	facts := Facts([]byte(`{}`), ClaudeJSONServers([]byte(`{"projects":{"/p":{"mcpServers":{"db":{"command":"npx","args":["-y","pkg"]}}}}}`), 0).Canonical)
	if len(facts) != 1 || facts[0].String() != `new local MCP server "db@/p" runs "npx -y pkg"` {
		t.Errorf("facts %v", facts)
	}
}

// Claude Code 2.1.328 moves a project's approvals of .mcp.json servers
// from ~/.claude.json into its settings.local.json at start. It acts on
// them (migrateEnableAllProjectMcpServersToSettings). So they are kept in
// the form by project, and told as the settings' own are, before the
// client moves them. Every other key of a project stays noise.
func TestClaudeJSONKeepsEachProjectsMcpjsonApprovals(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"the three keys, noise left out", `{"projects":{"/p":{"history":["x"],"hasTrustDialogAccepted":true,"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["db"],"disabledMcpjsonServers":[]}}}`,
			`{"localMcpjson":{"/p":{"disabledMcpjsonServers":[],"enableAllProjectMcpServers":true,"enabledMcpjsonServers":["db"]}}}`},
		{"noise only", `{"projects":{"/p":{"history":["x"],"lastCost":3}}}`, `{}`},
		{"a value of any shape is kept as it is", `{"projects":{"/p":{"enabledMcpjsonServers":{"a":[1]}}}}`,
			`{"localMcpjson":{"/p":{"enabledMcpjsonServers":{"a":[1]}}}}`},
		{"a repeated project replaces the earlier one whole", `{"projects":{"/p":{"enableAllProjectMcpServers":true},"/p":{"history":[]}}}`, `{}`},
		{"a hostile project name is data", "{\"projects\":{\"/p\\u001b[2J\":{\"enabledMcpjsonServers\":[\"x\"]}}}",
			"{\"localMcpjson\":{\"/p\\u001b[2J\":{\"enabledMcpjsonServers\":[\"x\"]}}}"},
		{"a broken value", `{"projects":{"/p":{"enabledMcpjsonServers":[1,]}}}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := ClaudeJSONServers([]byte(tc.doc), int64(len(tc.doc)))
			if string(ex.Canonical) != tc.want {
				t.Errorf("canonical %s, want %s (%v)", ex.Canonical, tc.want, ex.Anomalies)
			}
		})
	}
	deep := `{"projects":{"/p":{"enabledMcpjsonServers":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}}`
	if ex := ClaudeJSONServers([]byte(deep), 0); ex.Canonical != nil || len(ex.Anomalies) != 1 || ex.Anomalies[0] != AnomalyDepth {
		t.Errorf("deep value: %s %v", ex.Canonical, ex.Anomalies)
	}
	old := ClaudeJSONServers([]byte(`{"projects":{"/p":{"enabledMcpjsonServers":["a"]},"/gone":{"enableAllProjectMcpServers":false}}}`), 0).Canonical
	cur := ClaudeJSONServers([]byte("{\"projects\":{\"/p\":{\"enableAllProjectMcpServers\":true,\"enabledMcpjsonServers\":[\"a\",\"evil\\u001b\"],\"disabledMcpjsonServers\":[\"safe\"]},\"/q\":{\"history\":[1]}}}"), 0).Canonical
	var got []string
	for _, f := range Facts(old, cur) {
		got = append(got, f.String())
	}
	want := []string{
		`enableAllProjectMcpServers of project "/p" in .claude.json is now true`,
		`enabledMcpjsonServers of project "/p" in .claude.json now includes "evil\x1b"`,
		`enableAllProjectMcpServers of project "/gone" in .claude.json is no longer set`,
		`disabledMcpjsonServers of project "/p" in .claude.json now includes "safe"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("facts\n%q\nwant\n%q", got, want)
	}
}

// BenchmarkClaudeJSONServers200KB is the worst case. Every one of about
// 200 projects has a server of its own.
func BenchmarkClaudeJSONServers200KB(b *testing.B) {
	benchServers(b, claudeJSON200KB())
}

// BenchmarkClaudeJSONServers200KBFewServers is the usual shape. A few
// projects have servers, the rest `"mcpServers":{}`.
func BenchmarkClaudeJSONServers200KBFewServers(b *testing.B) {
	n := 0
	data := regexp.MustCompile(`"mcpServers":\{"db\d+":\{[^}]*\}\}`).ReplaceAllFunc(claudeJSON200KB(), func(m []byte) []byte {
		if n++; n <= 3 {
			return m
		}
		return []byte(`"mcpServers":{}`)
	})
	benchServers(b, data)
}

func benchServers(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if ex := ClaudeJSONServers(data, int64(len(data))); ex.Canonical == nil {
			b.Fatal(ex.Anomalies)
		}
	}
}

func TestALeadingBOMIsStrippedOnceFromEveryJSONConfiguration(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	doc := `{"env":{"K":"v"},"mcpServers":{"s":{"command":"x"}},"projects":{"/p":{"mcpServers":{"l":{"command":"y"}}}}}`
	for _, c := range []struct {
		name string
		read func([]byte) Extract
		want string
	}{
		{"settings", func(b []byte) Extract { return SettingsSubset(b, int64(len(b))) }, doc},
		{".mcp.json", func(b []byte) Extract { return MCPJSON(b, int64(len(b))) }, `{"mcpServers":{"s":{"command":"x"}}}`},
		{".claude.json", func(b []byte) Extract { return ClaudeJSONServers(b, int64(len(b))) },
			`{"localMcpServers":{"l@/p":{"command":"y"}},"mcpServers":{"s":{"command":"x"}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ex := c.read([]byte(bom + doc)); string(ex.Canonical) != c.want || len(ex.Anomalies) > 0 {
				t.Errorf("with a BOM: %s %v, want %s", ex.Canonical, ex.Anomalies, c.want)
			}
			if ex := c.read([]byte(bom + bom + doc)); ex.Canonical != nil || !slices.Equal(ex.Anomalies, []Anomaly{AnomalyUnparsable}) {
				t.Errorf("with two BOMs: %s %v, want unparsable", ex.Canonical, ex.Anomalies)
			}
		})
	}
}

func TestLocalServerNamesOfTwoProjectsNeverCollide(t *testing.T) {
	doc := `{"projects":{"/p":{"mcpServers":{"s@q":{"command":"a"}}},"q@/p":{"mcpServers":{"s":{"command":"b"}}},"/r":{"mcpServers":"x"}}}`
	ex := ClaudeJSONServers([]byte(doc), int64(len(doc)))
	want := `{"localMcpServers":{"[\"s@q\",\"/p\"]":{"command":"a"},"[null,\"/r\"]":"x","s@q@/p":{"command":"b"}}}`
	if string(ex.Canonical) != want {
		t.Fatalf("canonical %s, want %s", ex.Canonical, want)
	}
	got := factLines(Facts(nil, ex.Canonical))
	slices.Sort(got)
	for i, w := range []string{
		`new local MCP server "s@q" of project "/p" runs "a"`,
		`new local MCP server "s@q@/p" runs "b"`,
		`new local MCP server entry of project "/r", not an object, (no command or URL)`,
	} {
		if i >= len(got) || got[i] != w {
			t.Errorf("facts %q, want %q at %d", got, w, i)
		}
	}
}

// A restore puts .claude.json's servers back by their project. Every key
// localServerKey writes reads back to the name and project it was made
// of.
func TestLocalServerReadsBackEveryKeyLocalServerKeyWrites(t *testing.T) {
	for _, c := range [][2]string{{"db", "/p"}, {"a@b", "/p"}, {"[x", "/p"}, {"db", "/p@q"}, {"", "/p"}, {"d\x1bb", "/\u202ep"}} {
		name, project, whole, ok := LocalServer(localServerKey(c[0], c[1]))
		if !ok || whole || name != c[0] || project != c[1] {
			t.Errorf("%q: read back as %q %q whole %v ok %v", c, name, project, whole, ok)
		}
	}
	if _, project, whole, ok := LocalServer(string(canonicalJSON([]any{nil, "/p"}))); !ok || !whole || project != "/p" {
		t.Errorf("[null, project]: %q whole %v ok %v", project, whole, ok)
	}
	for _, bad := range []string{"nothing", "[", `["a"]`, `["a",null]`, `[1,"p"]`, `["a","b","c"]`} {
		if _, _, _, ok := LocalServer(bad); ok {
			t.Errorf("%q read as a key", bad)
		}
	}
}

func TestNoiseIsExactlyWhatTheSettingsSubsetLeavesOut(t *testing.T) {
	for _, k := range []string{"theme", "model", "$schema", "hooks", "Theme", "theme ", "", "fooHelper"} {
		ex := SettingsSubset([]byte(`{`+string(canonicalJSON(k))+`:1}`), 0)
		if kept := string(ex.Canonical) != "{}"; kept == Noise(k) {
			t.Errorf("%q: kept %v, Noise %v", k, kept, Noise(k))
		}
	}
}
