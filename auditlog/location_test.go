package auditlog

import (
	"errors"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/claude"
)

var testRoots = []claude.Root{
	{Path: "/home/u/.claude/skills", Scope: claude.Global, Kind: claude.Skills},
	{Path: "/home/u/.claude/agents", Scope: claude.Global, Kind: claude.Agents},
	{Path: "/work/p/.claude/skills", Scope: claude.Project, Kind: claude.Skills},
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
		{"paths are cut as text, trailing slashes and all", "", []claude.Root{{Path: "/c/cfg//skills/", Scope: claude.Global}}, []Scope{
			{Scope: claude.Global, Log: "/c/cfg/.audit-log.jsonl", Base: "/c", Roots: []string{"/c/cfg//skills/"}},
		}},
		{"a configuration directory at the top", "", []claude.Root{{Path: "/cfg/skills", Scope: claude.Global}}, []Scope{
			{Scope: claude.Global, Log: "/cfg/.audit-log.jsonl", Base: "/", Roots: []string{"/cfg/skills"}},
		}},
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

// The log's directory and Base are cut as text: trailing slashes dropped
// first, repeated slashes kept, and nothing left is "/".
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
