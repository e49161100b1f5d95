package auditlog

import (
	"errors"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/claude"
)

var testRoots = []claude.Root{
	{Path: "/home/u/.claude/skills", Scope: claude.Global, Kind: claude.Skills, ConfigDir: "/home/u/.claude"},
	{Path: "/home/u/.claude/agents", Scope: claude.Global, Kind: claude.Agents, ConfigDir: "/home/u/.claude"},
	{Path: "/work/p/.claude/skills", Scope: claude.Project, Kind: claude.Skills, ConfigDir: "/work/p/.claude"},
}

func TestScopesPutEachLogBesideItsRoots(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   string
		roots []claude.Root
		want  []Scope
	}{
		{"global and project logs", "", testRoots, []Scope{
			{Scope: claude.Global, Log: "/home/u/.claude/.audit-log.jsonl", Base: "/home/u",
				Roots: []string{"/home/u/.claude/skills", "/home/u/.claude/agents"}},
			{Scope: claude.Project, Log: "/work/p/.claude/.audit-log.jsonl", ProjectLog: true, Base: "/work/p",
				Roots: []string{"/work/p/.claude/skills"}},
		}},
		{"one log from the environment serves both and is nobody's repository", "/var/log/audit.jsonl", testRoots, []Scope{
			{Scope: claude.Global, Log: "/var/log/audit.jsonl", Base: "/home/u",
				Roots: []string{"/home/u/.claude/skills", "/home/u/.claude/agents"}},
			{Scope: claude.Project, Log: "/var/log/audit.jsonl", Base: "/work/p",
				Roots: []string{"/work/p/.claude/skills"}},
		}},
		{"no project", "", testRoots[:2], []Scope{
			{Scope: claude.Global, Log: "/home/u/.claude/.audit-log.jsonl", Base: "/home/u",
				Roots: []string{"/home/u/.claude/skills", "/home/u/.claude/agents"}},
		}},
		{"paths are cut as text, trailing slashes and all", "", []claude.Root{{Path: "/c/cfg//skills/", Scope: claude.Global, ConfigDir: "/c/cfg/"}}, []Scope{
			{Scope: claude.Global, Log: "/c/cfg/.audit-log.jsonl", Base: "/c", Roots: []string{"/c/cfg//skills/"}},
		}},
		{"a configuration directory at the top", "", []claude.Root{{Path: "/cfg/skills", Scope: claude.Global, ConfigDir: "/cfg"}}, []Scope{
			{Scope: claude.Global, Log: "/cfg/.audit-log.jsonl", Base: "/", Roots: []string{"/cfg/skills"}},
		}},
		{"a root of no configuration directory is in no scope", "", []claude.Root{{Path: "/etc/claude-code", Scope: claude.Managed, Kind: claude.Config}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Scopes(tc.env, tc.roots)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b Scope) bool {
				return a.Scope == b.Scope && a.Log == b.Log && a.ProjectLog == b.ProjectLog && a.Base == b.Base && slices.Equal(a.Roots, b.Roots)
			}) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The log's directory and Base are cut as text. Trailing slashes are
// dropped first, repeated slashes kept, and nothing left is "/".
//
// Every root Claude Code loads from speaks in the documented log of its
// configuration directory. The user's roots speak in
// <cfg>/.audit-log.jsonl. The project's speak in
// <project>/.claude/.audit-log.jsonl: its folder, .claude, the folders
// around it. No log lies beside the home or beside the project. That was
// the issue: the global roots read ~/.audit-log.jsonl. The project's read
// <parent of project>/.audit-log.jsonl. The administrator's roots and an
// added folder's are in no scope. No log a person or a repository writes
// explains them.
func TestEveryRootSpeaksInItsConfigurationDirectorysLog(t *testing.T) {
	p := claude.Places{Config: "/home/u/.claude", Project: "/tmp/w/p", ClaudeJSON: "/home/u", Managed: "/etc/claude-code",
		Home: "/home/u", Above: []string{"/tmp/w"}, Added: []string{"/srv/other"}}
	roots := p.Roots()
	scopes, err := Scopes("", roots)
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{}
	for _, sc := range scopes {
		for _, r := range sc.Roots {
			if logs[r] != "" {
				t.Fatalf("root %s in two scopes", r)
			}
			logs[r] = sc.Log
			if sc.ProjectLog != (sc.Scope == claude.Project) {
				t.Fatalf("scope %s: ProjectLog %v", sc.Scope, sc.ProjectLog)
			}
		}
	}
	for _, r := range roots {
		want := map[claude.Scope]string{claude.Global: "/home/u/.claude/.audit-log.jsonl", claude.Project: "/tmp/w/p/.claude/.audit-log.jsonl"}[r.Scope]
		if logs[r.Path] != want {
			t.Errorf("%s root %s (%s): log %q, want %q", r.Scope, r.Path, r.Kind, logs[r.Path], want)
		}
	}
	for _, must := range []string{"/home/u/.claude", "/home/u", "/tmp/w/p", "/tmp/w/p/.claude", "/tmp/w"} {
		if logs[must] == "" {
			t.Errorf("configuration root %s has no log", must)
		}
	}
	if len(scopes) != 2 {
		t.Fatalf("%d scopes, want the user's and the project's: %+v", len(scopes), scopes)
	}
}

func TestParentCutsTheLastComponentAsText(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"/a/b", "/a"},
		{"/a/b/", "/a"},
		{"/a/b//", "/a"},
		{"/a//b", "/a/"},
		{"/a", "/"},
		{"/a/", "/"},
		{"//a", "/"},
		{"///a", "//"},
		{"/", "/"},
		{"//", "/"},
		{"", "/"},
		{"a", "/"},
		{"a/b", "a"},
	} {
		t.Run(tc.p, func(t *testing.T) {
			if got := parent(tc.p); got != tc.want {
				t.Fatalf("parent(%q) = %q, want %q", tc.p, got, tc.want)
			}
		})
	}
}

func TestScopesRefuseARelativeLogFromTheEnvironment(t *testing.T) {
	for _, env := range []string{"audit.jsonl", "./audit.jsonl", "~/audit.jsonl"} {
		if _, err := Scopes(env, testRoots); !errors.Is(err, ErrRelativeLog) {
			t.Errorf("Scopes(%q): %v, want ErrRelativeLog", env, err)
		}
	}
}

func TestPickTakesTheProjectUnlessGlobalOrAnAbsoluteGlobalPath(t *testing.T) {
	scopes, err := Scopes("", testRoots)
	if err != nil {
		t.Fatal(err)
	}
	globalOnly := scopes[:1]
	homeScopes, err := Scopes("", (claude.Places{Config: "/home/u/.claude", ClaudeJSON: "/home/u", Project: "/home/u/p", Home: "/home/u"}).Roots())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		scopes []Scope
		global bool
		path   string
		want   claude.Scope
	}{
		{"project by default", scopes, false, ".claude/skills/s/f", claude.Project},
		{"global when asked", scopes, true, ".claude/skills/s/f", claude.Global},
		{"global without a project", globalOnly, false, ".claude/skills/s/f", claude.Global},
		{"an absolute path in a global root goes to the global log", scopes, false, "/home/u/.claude/skills/s/f", claude.Global},
		{"an absolute path in the project stays in the project", scopes, false, "/work/p/.claude/skills/s/f", claude.Project},
		{"a relative path that would be global from the home stays in the project", scopes, false, "../../home/u/.claude/skills/s/f", claude.Project},
		{"an absolute path in the project under a home that is a global root stays in the project", homeScopes, false, "/home/u/p/.claude/skills/s/f", claude.Project},
		{"an absolute path in a global root under that home goes to the global log", homeScopes, false, "/home/u/.claude/skills/s/f", claude.Global},
		{"the home is a root of named files: another file there is in no root", homeScopes, false, "/home/u/notes.md", claude.Project},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PickFor(tc.scopes, tc.global, tc.path); got.Scope != tc.want {
				t.Fatalf("PickFor = %s, want %s", got.Scope, tc.want)
			}
			if tc.path[0] != '/' {
				if got := Pick(tc.scopes, tc.global); got.Scope != tc.want {
					t.Fatalf("Pick = %s, want %s", got.Scope, tc.want)
				}
			}
		})
	}
}

func TestScopeLocateJoinsButNeverCleans(t *testing.T) {
	sc := Scope{Base: "/home/u", Roots: []string{"/home/u/.claude/skills", "/home/u/.claude/agents/"}}
	for _, tc := range []struct {
		path, root, rel string
		ok              bool
	}{
		{".claude/skills/s/SKILL.md", "/home/u/.claude/skills", "s/SKILL.md", true},
		{"/home/u/.claude/skills/s/SKILL.md", "/home/u/.claude/skills", "s/SKILL.md", true},
		{".claude/agents/a.md", "/home/u/.claude/agents/", "a.md", true},
		{".claude/skills", "", "", false},  // the root itself is no file of a candidate
		{".claude/skills/", "", "", false}, // an empty component
		{".claude/skills/s/../t/f", "", "", false},
		{"./.claude/skills/s/f", "", "", false},
		{".claude//skills/s/f", "", "", false},
		{"/home/u/.claude/skills/./s", "", "", false},
		{".claude/skillsX/s/f", "", "", false},
		{"/etc/passwd", "", "", false},
		{"/", "", "", false},
		{"", "", "", false},
	} {
		root, rel, ok := sc.Locate(tc.path)
		if root != tc.root || rel != tc.rel || ok != tc.ok {
			t.Errorf("Locate(%q) = %q, %q, %v; want %q, %q, %v", tc.path, root, rel, ok, tc.root, tc.rel, tc.ok)
		}
	}
}

func TestDottedFindsEveryDotDotDotAndEmptyComponent(t *testing.T) {
	for p, want := range map[string]bool{
		"a/b": false, "/a/b": false, ".claude/x": false, "a..b/c": false,
		"/": true, "a/./b": true, "a/../b": true, "a//b": true, "a/": true, "./a": true, "..": true, ".": true,
	} {
		if got := Dotted(p); got != want {
			t.Errorf("Dotted(%q) = %v, want %v", p, got, want)
		}
	}
}
