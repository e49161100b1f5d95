package claude

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/config/registry"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// digestOf observes candidate name of the root of kind k among p's roots.
func digestOf(t *testing.T, p Places, k Kind, name string) (walker.Candidate, Root) {
	t.Helper()
	for _, r := range p.Discover(DefaultLimits).Roots() {
		if r.Kind != k {
			continue
		}
		for _, c := range walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0].Candidates {
			if string(c.Name) == name {
				return c, r
			}
		}
	}
	t.Fatalf("no candidate %q of a %s root", name, k)
	return walker.Candidate{}, Root{}
}

// The client applies a plugin's marketplace.json entry to it (its K0o and
// f0o, 2.1.328). The entry's inline hooks are added to plugin.json's, and
// so are its commands, agents, skills, outputStyles and themes paths. That
// is strict mode, the default. When the plugin has no plugin.json, the
// entry is its manifest, servers included. So an edit of the entry alone
// changes the plugin's candidate. That holds when it loads in place from a
// local marketplace. It holds when it loads from the cache, its entry read
// from the marketplace's clone. The e2e case
// TestAMarketplaceEntrysHooksAreBoundIntoItsPlugin pins it. The bound file
// is named for a person (issue #22).
func TestAnEditedMarketplaceEntryChangesItsPlugin(t *testing.T) {
	hooked := `{"name":"mkt","plugins":[{"name":"plug","source":"./plug","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}]}`
	for _, tc := range []struct {
		name, kind, candidate string
		source                Kind
	}{
		{"a local marketplace's folder", "directory", "plug", PluginSources},
		{"a git marketplace's cache version", "git", "mkt/plug/1.0.0", Plugins},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := sourceWorld(t, dir, tc.kind, "m", entry(`"./plug"`))
			testtree.Make(t, dir, "cfg/plugins/cache/mkt/plug/1.0.0/.claude-plugin/plugin.json={}")
			p := Places{Config: cfg, Home: dir}
			before, r := digestOf(t, p, tc.source, tc.candidate)
			market := filepath.Join(dir, "m/.claude-plugin/marketplace.json")
			if names := r.BoundNames([]byte(tc.candidate)); !strings.HasSuffix(names[string(walker.ScriptEntry(market))], "/m/.claude-plugin/marketplace.json") {
				t.Errorf("bound names %q", names)
			}
			testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+hooked)
			after, _ := digestOf(t, p, tc.source, tc.candidate)
			if after.Digest == before.Digest || after.Partial() || len(after.Anomalies()) > 0 {
				t.Errorf("the entry's edit: digest moved %v, partial %v, anomalies %v", after.Digest != before.Digest, after.Partial(), walker.Reasons(after.Anomalies()))
			}
		})
	}
}

// Where the client reads each marketplace's entries from, as
// known_marketplaces.json records it.
func TestMarketplaceFilesAreWhereTheClientReadsEntries(t *testing.T) {
	known, _ := json.Marshal(map[string]any{
		"dir":  map[string]any{"source": map[string]any{"source": "directory", "path": "/m"}, "installLocation": "/m"},
		"file": map[string]any{"source": map[string]any{"source": "file", "path": "/f/x.json"}, "installLocation": "/f"},
		"url":  map[string]any{"source": map[string]any{"source": "url", "url": "https://h/m.json"}, "installLocation": "/c/marketplaces/url.JSON"},
		"git":  map[string]any{"source": map[string]any{"source": "git", "url": "https://h/r.git"}, "installLocation": "/c/marketplaces/git"},
		"none": map[string]any{"source": map[string]any{"source": "github"}, "installLocation": 7},
		"bad":  "\x1b[2J",
	})
	ex := walker.FileRead{Data: known}
	got := registry.MarketplaceFiles(WholeForm(ex))
	want := map[string]string{"dir": "/m/.claude-plugin/marketplace.json", "file": "/f/x.json",
		"url": "/c/marketplaces/url.JSON", "git": "/c/marketplaces/git/.claude-plugin/marketplace.json"}
	if len(got) != len(want) {
		t.Errorf("files %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

// What a plugin's candidate binds of its marketplace.json is what the
// client reads of it for that plugin. That is its own entry and the
// marketplace's keys, without the named noise. Each noise value is one the
// client accepts. Another plugin's entry, or this one's description, is no
// change of it. Its entry's new hook is a change told by what it runs. A
// marketplace.json that is not one JSON object is bound whole (issue #22).
func TestAPluginBindsItsOwnEntryNotTheWholeMarketplace(t *testing.T) {
	const (
		plain   = `{"name":"mkt","owner":{"name":"a"},"plugins":[{"name":"other","source":"./other"},{"name":"plug","source":"./plug","description":"one"}]}`
		noise   = `{"name":"mkt","owner":{"name":"b"},"description":"d","plugins":[{"name":"other","source":"./elsewhere","hooks":{"Stop":[]}},{"name":"plug","source":"./plug","description":"two","version":"9","tags":["x"],"category":"c","author":{"name":"z"},"homepage":"https://h.example/","keywords":["k"]}]}`
		hooked  = `{"name":"mkt","owner":{"name":"a"},"plugins":[{"name":"other","source":"./other"},{"name":"plug","source":"./plug","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}]}`
		garbage = "\x1b[2J{not json"
	)
	for _, tc := range []struct {
		name, kind, candidate string
		source                Kind
	}{
		{"a local marketplace's folder", "directory", "plug", PluginSources},
		{"a git marketplace's cache version", "git", "mkt/plug/1.0.0", Plugins},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := sourceWorld(t, dir, tc.kind, "m", plain)
			testtree.Make(t, dir, "cfg/plugins/cache/mkt/plug/1.0.0/.claude-plugin/plugin.json={}")
			p := Places{Config: cfg, Home: dir}
			before, _ := digestOf(t, p, tc.source, tc.candidate)
			testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+noise)
			if after, _ := digestOf(t, p, tc.source, tc.candidate); after.Digest != before.Digest {
				t.Errorf("another plugin's entry and this one's noise moved the digest; facts %v", config.Facts(before.Canonical, after.Canonical))
			}
			testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+hooked)
			after, _ := digestOf(t, p, tc.source, tc.candidate)
			if after.Digest == before.Digest {
				t.Fatal("the entry's new hook did not move the digest")
			}
			fs := config.Facts(before.Canonical, after.Canonical)
			if len(fs) != 1 || fs[0].String() != `marketplace entry: new SessionStart hook runs "touch /tmp/x"` || !fs[0].Dangerous() {
				t.Errorf("facts %q, want the entry's new hook", fs)
			}
			if tc.source != Plugins {
				return // a local marketplace.json that cannot be read makes the whole folder the candidate
			}
			testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+garbage)
			broken, _ := digestOf(t, p, tc.source, tc.candidate)
			testtree.Make(t, dir, "m/.claude-plugin/marketplace.json="+garbage+" ")
			if again, _ := digestOf(t, p, tc.source, tc.candidate); again.Digest == broken.Digest || broken.Digest == after.Digest {
				t.Error("a marketplace.json that is not JSON is not bound byte for byte")
			}
		})
	}
}
