package pluginrecord

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/testtree"
)

// recordWorld is a config directory whose installed_plugins.json records
// installs. Each install is a JSON object, "$CACHE" standing for the cache
// folder. The world holds the client's copy of clientCopy at
// cache/mkt/plug/1.0.0. It holds the marketplace's source and the client's
// .claude.json.
func recordWorld(t testing.TB, installs map[string]string, more ...string) claude.Places {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	cache := cfg + "/plugins/cache"
	var entries []string
	for key, in := range installs {
		k, _ := json.Marshal(key)
		entries = append(entries, string(k)+":["+strings.ReplaceAll(in, "$CACHE", cache)+"]")
	}
	specs := []string{
		"cfg/plugins/installed_plugins.json=" + `{"version":2,"plugins":{` + strings.Join(entries, ",") + `}}`,
		"cfg/plugins/known_marketplaces.json=" + `{"mkt":{"source":` + clientCopy.source + `,"installLocation":"/x"}}`,
		"cfg/.claude.json=" + `{"userID":"` + clientCopy.userID + `"}`,
	}
	for _, f := range clientCopy.files {
		specs = append(specs, "cfg/plugins/cache/mkt/plug/1.0.0/"+f)
	}
	testtree.Make(t, dir, append(specs, more...)...)
	return claude.Places{Config: cfg, ClaudeJSON: cfg}
}

func recordLines(fs []config.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

const good = `{"scope":"managed","installPath":"$CACHE/mkt/plug/1.0.0","version":"1.0.0","copyHash":"` + "Jp44ERCzHKHaSsUAtctBEgfGyXWW9Dz6DUus8SeBlWA=" + `"}`

func TestAnInstallAsTheClientRecordedItIsNotTold(t *testing.T) {
	p := recordWorld(t, map[string]string{"plug@mkt": good})
	if fs := Facts(p); len(fs) != 0 {
		t.Errorf("the client's own install is told: %q", recordLines(fs))
	}
}

// Each disagreement between the record and the folder is one fact. It is
// dangerous (always told), its attacker text escaped.
func TestEachDisagreementWithTheInstallRecordIsTold(t *testing.T) {
	for _, tc := range []struct {
		name, install string
		more          []string
		want          string
	}{
		{"a byte of the copy changed", good, []string{"cfg/plugins/cache/mkt/plug/1.0.0/skills/ps/SKILL.md=evil"},
			"its files differ from what Claude Code installed (copyHash)"},
		{"a file added to the copy", good, []string{"cfg/plugins/cache/mkt/plug/1.0.0/hooks/hooks.json={}"},
			"(copyHash)"},
		{"a copyHash of another user", strings.Replace(good, "Jp44", "Kp44", 1), nil, "(copyHash)"},
		{"a copyHash not a string", `{"installPath":"$CACHE/mkt/plug/1.0.0","version":"1.0.0","copyHash":7}`, nil,
			`its copyHash is not a string, so Claude Code holds none: "7"`},
		{"a copy the client would not hash", good, []string{"cfg/plugins/cache/mkt/plug/1.0.0/l -> /etc"},
			`its copyHash could not be checked: "symlink"`},
		{"no installPath", `{"version":"1.0.0"}`, nil, "no installPath is recorded"},
		{"an installPath of the wrong type", `{"installPath":["\u001b[2J"],"version":"1.0.0"}`, nil,
			`no installPath is recorded: "[\"\\u001b[2J\"]"`},
		{"an installPath that does not exist", `{"installPath":"$CACHE/mkt/plug/9.9.9","version":"9.9.9"}`, nil,
			"its installPath does not exist"},
		{"an installPath of another plugin", `{"installPath":"$CACHE/mkt/plug/1.0.0","version":"1.0.0"}`, nil, ""},
		{"a version not its folder's", `{"installPath":"$CACHE/mkt/plug/1.0.0","version":"2.0.0\u001b]0;x\u0007"}`, nil,
			`version "2.0.0\x1b]0;x\x07" is recorded for a folder named "1.0.0"`},
		{"a version not its plugin.json's", `{"installPath":"$CACHE/mkt/plug/1.0.0","version":"1.0.0"}`,
			[]string{`cfg/plugins/cache/mkt/plug/1.0.0/.claude-plugin/plugin.json={"name":"plug","version":"6.6.6"}`},
			`version "1.0.0" is recorded where its plugin.json says "6.6.6"`},
		{"a gitCommitSha not a commit id", `{"installPath":"$CACHE/mkt/plug/1.0.0","version":"1.0.0","gitCommitSha":"HEAD\n"}`, nil,
			`its gitCommitSha is not a full commit id: "HEAD\x0a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "plug@mkt"
			if tc.name == "an installPath of another plugin" {
				key = "other@mkt"
				tc.want = "its installPath is the cache folder of another plugin"
			}
			p := recordWorld(t, map[string]string{key: tc.install}, tc.more...)
			fs := Facts(p)
			lines := recordLines(fs)
			n := 1
			if tc.name == "a version not its folder's" {
				n = 2 // nor its plugin.json's
			}
			if len(fs) != n || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("facts %q, want %d, the first telling %q", lines, n, tc.want)
			}
			if !fs[0].Dangerous() {
				t.Error("the fact is not dangerous: it could be only counted")
			}
			for _, c := range lines[0] {
				if c < 0x20 || c == 0x7f {
					t.Errorf("the fact holds control character %#x: %q", c, lines[0])
				}
			}
		})
	}
}

// What the copyHash needs from elsewhere may be missing or garbage. That
// leaves it unchecked and told, never silently passed.
func TestACopyHashThatCannotBeCheckedIsTold(t *testing.T) {
	for name, more := range map[string][]string{
		"no .claude.json":            nil,
		"a .claude.json not JSON":    {"cfg/.claude.json=\x00\xff"},
		"a user id not the client's": {`cfg/.claude.json={"userID":"ABC"}`},
		"a user id not a string":     {`cfg/.claude.json={"userID":{"x":1}}`},
		"no source of its market":    {`cfg/plugins/known_marketplaces.json={"other":{}}`},
		"a .claude.json FIFO":        {"cfg/.claude.json|"},
	} {
		t.Run(name, func(t *testing.T) {
			p := recordWorld(t, map[string]string{"plug@mkt": good})
			if name == "no .claude.json" {
				p.ClaudeJSON = filepath.Join(t.TempDir(), "none")
			} else {
				if strings.HasPrefix(more[0], "cfg/.claude.json") {
					testtree.Must(t, os.Remove(filepath.Join(p.Config, ".claude.json")))
				}
				testtree.Make(t, filepath.Dir(p.Config), more...)
			}
			lines := recordLines(Facts(p))
			if len(lines) != 1 || !strings.Contains(lines[0], "its copyHash could not be checked") {
				t.Errorf("facts %q, want the copyHash told unchecked", lines)
			}
		})
	}
}

// Thousands of installs cost bounded work. Past maxCopyChecks folders read
// whole, each further copyHash is told unchecked.
func TestThousandsOfInstallsAreBounded(t *testing.T) {
	installs := map[string]string{}
	for i := range 2000 {
		installs[fmt.Sprintf("plug%04d@mkt", i)] = good
	}
	fs := Facts(recordWorld(t, installs))
	unchecked := 0
	for _, f := range fs {
		if f.Type == config.RecordCopyHashUnchecked {
			unchecked++
		}
	}
	if unchecked != 2000-maxCopyChecks {
		t.Errorf("%d copyHashes told unchecked, want %d", unchecked, 2000-maxCopyChecks)
	}
}

// A registry that is not JSON, huge, of the wrong types, or absent is no
// fact here and no panic. Its candidate's anomaly tells it.
func TestAGarbageRegistryIsNoFact(t *testing.T) {
	for name, reg := range map[string]string{
		"not JSON":          "\x00\xff{",
		"plugins a string":  `{"plugins":"x"}`,
		"installs numbers":  `{"plugins":{"plug@mkt":[1,2,null]}}`,
		"over the size cap": `{"plugins":{"x@y":[{"installPath":"` + strings.Repeat("a", config.MaxJSON) + `"}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			p := recordWorld(t, nil, "cfg/plugins/installed_plugins.json="+reg)
			if fs := Facts(p); len(fs) != 0 {
				t.Errorf("facts %q", recordLines(fs))
			}
		})
	}
	if fs := Facts(claude.Places{Config: filepath.Join(t.TempDir(), "none")}); fs != nil {
		t.Errorf("no config directory: facts %q", recordLines(fs))
	}
}

// BenchmarkInstallRecordFacts checks one install whose copyHash is
// recomputed. That is the cost a scan or status adds per managed plugin.
func BenchmarkInstallRecordFacts(b *testing.B) {
	p := recordWorld(b, map[string]string{"plug@mkt": good})
	for b.Loop() {
		if fs := Facts(p); len(fs) != 0 {
			b.Fatal(recordLines(fs))
		}
	}
}
