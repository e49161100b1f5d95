package mainagent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

// agentFiles are a plugin's agent files, relative to its folder, and
// their frontmatter names ("" for none).
var agentFiles = map[string]string{"agents/pagent.md": "pagent", "agents/sub/inner.md": "inner", "agents/sub/deeper/deep.md": "deep",
	"agents/fm.md": "other", "agents/nofm.md": "", "agents/dup.md": "dup"}

// plugin writes the plugin "plug" with agentFiles under root and returns
// its standing, each file in its manifest as written.
func plugin(t *testing.T, root claude.Root, name string, files ...map[string]string) *baseline.Standing {
	t.Helper()
	entries := []snapshot.Entry{{Kind: snapshot.Dir}, {Path: []byte("skills/sk/SKILL.md"), Kind: snapshot.File}}
	if len(files) == 0 {
		files = append(files, agentFiles)
	}
	for rel, front := range files[0] {
		body := "---\ndescription: d\n---\nbody\n"
		if front != "" {
			body = "---\nname: " + front + "\ndescription: d\n---\nbody\n"
		}
		p := filepath.Join(root.Path, name, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil || os.WriteFile(p, []byte(body), 0o644) != nil {
			t.Fatal(err)
		}
		entries = append(entries, snapshot.Entry{Path: []byte(rel), Kind: snapshot.File, Hash: blake3.Sum256([]byte(body))})
	}
	return &baseline.Standing{ID: "swplugin", Root: root, Name: []byte(name), Observed: &walker.Candidate{Name: []byte(name),
		Manifest: snapshot.Manifest{Entries: entries}}}
}

func cachedPlugin(t *testing.T) *baseline.Standing {
	return plugin(t, claude.Root{Path: t.TempDir(), Scope: claude.Global, Kind: claude.Plugins}, "mkt/plug/1.0.0")
}

// ownAgent writes the project's own agent file with content body under
// dir and returns its standing, its form canon ("" for none read).
func ownAgent(t *testing.T, dir, file, canon, body string) *baseline.Standing {
	t.Helper()
	root := filepath.Join(dir, ".claude", "agents")
	if err := os.MkdirAll(root, 0o755); err != nil || os.WriteFile(filepath.Join(root, file), []byte(body), 0o644) != nil {
		t.Fatal(err)
	}
	st := &baseline.Standing{ID: "swown" + file, Root: claude.Root{Path: root, Scope: claude.Project, Kind: claude.Agents}, Name: []byte(file),
		Observed: &walker.Candidate{Name: []byte(file), Manifest: snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.File, Hash: blake3.Sum256([]byte(body))}}}}}
	if canon != "" {
		st.Observed.Canonical = []byte(canon)
	}
	return st
}

func settings(agent string) baseline.Standing {
	return baseline.Standing{Root: claude.Root{Path: "/proj/.claude", Scope: claude.Project, Kind: claude.Config}, Name: []byte("settings.json"),
		Observed: &walker.Candidate{Name: []byte("settings.json"), Canonical: []byte(`{"agent":"` + agent + `"}`)}}
}

// match is the one Match of settings naming agent among sts.
func match(t *testing.T, agent string, sts ...*baseline.Standing) Match {
	t.Helper()
	all := []baseline.Standing{settings(agent)}
	for _, st := range sts {
		all = append(all, *st)
	}
	ms := Of(all)
	if len(ms) != 1 {
		t.Fatalf("%q: %d matches", agent, len(ms))
	}
	return ms[0]
}

func ids(sts []*baseline.Standing) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.ID)
	}
	return out
}

// A plugin's agent is named as Claude Code 2.1.332 names it: the plugin,
// each subfolder of agents/, then the frontmatter name or else the stem,
// joined by ":". A bare name takes one whose name ends in ":" and it (e2e
// TestTheMainAgentIsNamedAsTheClientNamesPluginAgents). The old match by
// stem alone missed the subfolders and the frontmatter names. Controls: a
// stem the frontmatter renames, a skipped subfolder, another plugin's
// name, a skill, another case.
func TestAPluginsAgentIsNamedByItsSubfoldersAndFrontmatterName(t *testing.T) {
	cached := cachedPlugin(t)
	sources := plugin(t, claude.Root{Path: t.TempDir(), Scope: claude.Global, Kind: claude.PluginSources, Sources: map[string]string{"plug": "plug@mkt"}}, "plug")
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"plug:pagent", true}, {"pagent", true}, {"plug:sub:inner", true}, {"sub:inner", true}, {"inner", true},
		{"plug:sub:deeper:deep", true}, {"deep", true}, {"plug:other", true}, {"other", true}, {"plug:nofm", true}, {"nofm", true},
		{"plug:fm", false}, {"fm", false}, {"plug:inner", false}, {"plug:deep", false}, {"other:pagent", false},
		{"plug:sk", false}, {"PAgent", false}, {"ug:pagent", false}, {"plug:ghost", false},
	} {
		for _, st := range []*baseline.Standing{cached, sources} {
			m := match(t, tc.name, st)
			if got := len(m.Agents) == 1; got != tc.want || len(m.Unread) != 0 {
				t.Errorf("%s %q: agents %v, unread %v, want the plugin: %v", st.Root.Kind, tc.name, ids(m.Agents), ids(m.Unread), tc.want)
			}
		}
	}
}

// An own agent answers by its frontmatter name, exactly, and then hides a
// plugin's ":name" as the client's exact match first does. Its file's
// stem names nothing: an own x.md named otherwise must not hide the
// plugin's BLOCKed plug:x (the decoy). An own agent whose name skillwire
// could not read is unread: ambiguous, never taken as the benign one. An
// exact one the client does not load (no description) hides nothing.
func TestAnOwnAgentOfTheSameStemDoesNotHideAPluginsAgent(t *testing.T) {
	plug := cachedPlugin(t)
	plug.Verdict = &baseline.Verdict{Verdict: verdict.Block}
	described := "---\nname: dup\ndescription: d\n---\nbody\n"
	changed := ownAgent(t, t.TempDir(), "x.md", `{"name":"dup"}`, described)
	changed.Observed.Manifest.Entries[0].Hash[0]++
	for _, tc := range []struct {
		why            string
		own            *baseline.Standing
		agents, unread []string
	}{
		{"the same stem, named otherwise: the plugin's", ownAgent(t, t.TempDir(), "dup.md", `{"name":"decoy"}`, "---\nname: decoy\ndescription: d\n---\n"), []string{"swplugin"}, nil},
		{"named so exactly: the own agent's", ownAgent(t, t.TempDir(), "x.md", `{"name":"dup"}`, described), []string{"swownx.md"}, nil},
		{"named so, no description: the client loads it not, the plugin's", ownAgent(t, t.TempDir(), "x.md", `{"name":"dup"}`, "---\nname: dup\n---\n"), []string{"swplugin"}, nil},
		{"named so, its bytes not the walk's: ambiguous", changed, []string{"swplugin"}, []string{"swownx.md"}},
		{"another case is no exact name", ownAgent(t, t.TempDir(), "dup.md", `{"name":"Dup"}`, described), []string{"swplugin"}, nil},
		{"no frontmatter name is no agent", ownAgent(t, t.TempDir(), "dup.md", `{}`, described), []string{"swplugin"}, nil},
		{"the frontmatter unread: ambiguous", ownAgent(t, t.TempDir(), "dup.md", "", described), []string{"swplugin"}, []string{"swowndup.md"}},
		{"unreadable to the client too: no name", ownAgent(t, t.TempDir(), "dup.md", `{"name":{"unreadable":true},"unreadable":true}`, described), []string{"swplugin"}, nil},
	} {
		m := match(t, "dup", tc.own, plug)
		if !slices.Equal(ids(m.Agents), tc.agents) || !slices.Equal(ids(m.Unread), tc.unread) {
			t.Errorf("%s: agents %v unread %v, want %v %v", tc.why, ids(m.Agents), ids(m.Unread), tc.agents, tc.unread)
		}
	}
	// An exact own agent with hooks may be refused in ways skillwire does
	// not judge: unread, and it hides nothing.
	hooked := ownAgent(t, t.TempDir(), "x.md", `{"name":"dup"}`, "---\nname: dup\ndescription: d\nhooks: {}\n---\n")
	if m := match(t, "dup", hooked, plug); !slices.Equal(ids(m.Agents), []string{"swplugin"}) || !slices.Equal(ids(m.Unread), []string{"swownx.md"}) {
		t.Errorf("an own agent with hooks: agents %v unread %v", ids(m.Agents), ids(m.Unread))
	}
	// A plugin's exact agent hides no other's ":"-suffixed one.
	other := plugin(t, claude.Root{Path: t.TempDir(), Scope: claude.Global, Kind: claude.Plugins}, "mkt/other/1.0.0", map[string]string{"agents/plug/dup.md": "dup"})
	other.ID = "swother"
	if m := match(t, "plug:dup", plug, other); !slices.Equal(ids(m.Agents), []string{"swplugin", "swother"}) {
		t.Errorf("plug:dup and other:plug:dup: agents %v", ids(m.Agents))
	}
	// An own name the client refuses (a ":", a leading "-") names nothing,
	// not even exactly.
	for _, name := range []string{"plug:dup", "-dup", "plug\uff1adup"} {
		own := ownAgent(t, t.TempDir(), "x.md", `{"name":"`+name+`"}`, "---\nname: \""+name+"\"\ndescription: d\n---\n")
		if m := match(t, name, own); len(m.Agents)+len(m.Unread) != 0 {
			t.Errorf("an own agent named %q answers: %v %v", name, ids(m.Agents), ids(m.Unread))
		}
	}
	// A built-in named exactly hides a plugin's; folded it hides nothing.
	if m := match(t, "Explore", plug); !m.Builtin || len(m.Agents) != 0 {
		t.Errorf("Explore: %+v", m)
	}
	if m := match(t, "explore", plug); m.Builtin {
		t.Errorf("explore is taken for the built-in Explore")
	}
}

// A plugin's agent file whose bytes changed since the walk, or whose
// plugin name skillwire cannot read, has an unread name: ambiguous. One
// agent of the plugin named otherwise does not clear it. Control: read
// as the walk saw it, the name answers.
func TestAPluginAgentWhoseNameIsUnreadIsAmbiguous(t *testing.T) {
	plug := cachedPlugin(t)
	for i, e := range plug.Observed.Manifest.Entries {
		if string(e.Path) == "agents/fm.md" {
			plug.Observed.Manifest.Entries[i].Hash[0]++
		}
	}
	if m := match(t, "other", plug); len(m.Agents) != 0 || len(m.Unread) != 1 {
		t.Errorf("a changed file: agents %v unread %v, want it unread", ids(m.Agents), ids(m.Unread))
	}
	if m := match(t, "pagent", plug); len(m.Agents) != 1 || len(m.Unread) != 0 {
		t.Errorf("control, its other agent: agents %v unread %v", ids(m.Agents), ids(m.Unread))
	}
	// A walk cut short, or a link below agents/, may hide an agent file.
	for _, hide := range []func(*baseline.Standing){
		func(st *baseline.Standing) { st.Observed.Manifest.Partial = true },
		func(st *baseline.Standing) {
			st.Observed.Manifest.Entries = append(st.Observed.Manifest.Entries, snapshot.Entry{Path: []byte("agents/l"), Kind: snapshot.Symlink, Reason: anomaly.Symlink})
		},
	} {
		st := cachedPlugin(t)
		hide(st)
		if m := match(t, "hidden", st); len(m.Unread) != 1 || m.Unknown() {
			t.Errorf("a plugin whose agents/ was not fully observed: unread %v", ids(m.Unread))
		}
	}
	nameless := plugin(t, claude.Root{Path: t.TempDir(), Scope: claude.Global, Kind: claude.PluginSources, Sources: map[string]string{}}, "plug")
	if m := match(t, "any:pagent", nameless); len(m.Unread) != 1 || m.Unknown() {
		t.Errorf("a plugin whose name is unread: %+v", m)
	}
}

// A plugin that lists its agents in plugin.json or its marketplace entry
// loads those, named by their names alone, and not agents/: its names are
// unread, and ambiguous. Its agents/ still answer. Controls: a plugin.json
// without "agents", and one whose bytes are not the walk's.
func TestAPluginThatListsItsAgentsIsUnread(t *testing.T) {
	for _, tc := range []struct {
		why, json string
		skew      bool
		canon     string
		unread    bool
	}{
		{"plugin.json lists agents", `{"name":"plug","agents":["./custom/cx.md"]}`, false, "", true},
		{"control: plugin.json lists none", `{"name":"plug"}`, false, "", false},
		{"plugin.json not the walk's", `{"name":"plug"}`, true, "", true},
		{"the marketplace entry lists agents", `{"name":"plug"}`, false, `{"marketplaceEntry":{"entry":{"agents":["./x.md"]},"marketplace":{}}}`, true},
	} {
		plug := cachedPlugin(t)
		dir := filepath.Join(plug.Root.Path, string(plug.Name), ".claude-plugin")
		if err := os.MkdirAll(dir, 0o755); err != nil || os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(tc.json), 0o644) != nil {
			t.Fatal(err)
		}
		e := snapshot.Entry{Path: []byte(".claude-plugin/plugin.json"), Kind: snapshot.File, Hash: blake3.Sum256([]byte(tc.json))}
		if tc.skew {
			e.Hash[0]++
		}
		plug.Observed.Manifest.Entries = append(plug.Observed.Manifest.Entries, e)
		if tc.canon != "" {
			plug.Observed.Canonical = []byte(tc.canon)
		}
		if m := match(t, "cx", plug); (len(m.Unread) == 1) != tc.unread || m.Unknown() == tc.unread {
			t.Errorf("%s: %q unread %v, want %v", tc.why, "cx", ids(m.Unread), tc.unread)
		}
		if m := match(t, "pagent", plug); len(m.Agents) != 1 || len(m.Unread) != 0 {
			t.Errorf("%s: its agents/pagent.md: agents %v unread %v", tc.why, ids(m.Agents), ids(m.Unread))
		}
	}
}

// A skills folder holding a plugin loads as one, its agents named by its
// plugin.json's name (e2e TestASkillsFolderPluginsAgentIsTheMainAgent).
// Without a name there, its names are unread. Control: a skill folder
// with agents/ but no plugin.json is no plugin.
func TestASkillsFolderPluginsAgentAnswersByItsPluginJSONName(t *testing.T) {
	for _, tc := range []struct {
		why, json      string
		agents, unread int
	}{
		{"named sp", `{"name":"sp"}`, 1, 0},
		{"no name", `{}`, 0, 1},
		{"control: no plugin.json", "", 0, 0},
	} {
		root := claude.Root{Path: t.TempDir(), Scope: claude.Global, Kind: claude.Skills}
		sp := plugin(t, root, "sp", map[string]string{"agents/sx.md": "sx"})
		if tc.json != "" {
			dir := filepath.Join(root.Path, "sp", ".claude-plugin")
			if err := os.MkdirAll(dir, 0o755); err != nil || os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(tc.json), 0o644) != nil {
				t.Fatal(err)
			}
			es := append(sp.Observed.Manifest.Entries, snapshot.Entry{Path: []byte(".claude-plugin/plugin.json"), Kind: snapshot.File, Hash: blake3.Sum256([]byte(tc.json))})
			slices.SortFunc(es, func(a, b snapshot.Entry) int { return snapshot.ComparePaths(a.Path, b.Path) })
			sp.Observed.Manifest.Entries = es
		}
		if m := match(t, "sp:sx", sp); len(m.Agents) != tc.agents || len(m.Unread) != tc.unread {
			t.Errorf("%s: agents %v unread %v, want %d %d", tc.why, ids(m.Agents), ids(m.Unread), tc.agents, tc.unread)
		}
	}
}

// A name no observed agent answers to is unknown. Controls: a built-in's
// name, and the plugin's own agent.
func TestAMainAgentNoObservedAgentAnswersToIsUnknown(t *testing.T) {
	plug := cachedPlugin(t)
	for name, want := range map[string]bool{"plug:ghost": true, "ghost": true, "general-purpose": false, "plug:pagent": false} {
		if got := match(t, name, plug).Unknown(); got != want {
			t.Errorf("%q: unknown %v, want %v", name, got, want)
		}
	}
	if s := Shown("a\x1b[31m"); !strings.HasPrefix(s, "an agent whose name is hidden (#") || strings.ContainsRune(s, 0x1b) {
		t.Errorf("an ungated name shown as %q", s)
	}
	if s := Shown("plug:pagent"); s != `agent "plug:pagent"` {
		t.Errorf("a plugin's agent shown as %q", s)
	}
}
