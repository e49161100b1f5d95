package settingschange

import (
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
)

// What lets something run, connect or be allowed blocks. A removal only
// takes away. A permission rule's is the exception: a removed deny rule
// allows.
func TestOnlyWhatAddsOrAllowsBlocks(t *testing.T) {
	for _, tc := range []struct {
		f    config.Fact
		want bool
	}{
		{config.Fact{Kind: config.FactNewHook}, true},
		{config.Fact{Kind: config.FactNewMCPServer}, true},
		{config.Fact{Kind: config.FactPermissionRuleRemoved}, true},
		{config.Fact{Kind: config.FactEnableAllProjectMCP, Value: "true"}, true},
		{config.Fact{Kind: config.FactEnableAllProjectMCP, Value: "false"}, false},
		{config.Fact{Kind: config.FactHookRemoved}, false},
		{config.Fact{Kind: config.FactHelperRemoved}, false},
		{config.Fact{Kind: config.FactMCPServerRemoved}, false},
	} {
		if got := Blocks(tc.f); got != tc.want {
			t.Errorf("Blocks(%v) = %v, want %v", tc.f.Kind, got, tc.want)
		}
	}
}

// A source is read only from a root of its own scopes, by its own file
// name. A source of no settings file is found in no root.
func TestASourceIsFoundOnlyInItsOwnScopes(t *testing.T) {
	roots := []claude.Root{
		{Path: "/p/.claude", Kind: claude.Config, Scope: claude.Project, Names: []string{"settings.json"}},
		{Path: "/h/.claude", Kind: claude.Config, Scope: claude.Global, Names: []string{"settings.json", "settings.local.json"}},
		{Path: "/m", Kind: claude.Skills, Scope: claude.Managed, Names: []string{"managed-settings.json"}},
	}
	for source, want := range map[string]string{
		hookio.SourceUserSettings:    "/h/.claude",
		hookio.SourceProjectSettings: "/p/.claude",
		hookio.SourceLocalSettings:   "/h/.claude",
		hookio.SourcePolicySettings:  "",
		"skills":                     "",
		"\x1b[2J":                    "",
	} {
		got := ""
		if r, ok := Of(source).Root(roots); ok {
			got = r.Path
		}
		if got != want {
			t.Errorf("%q: root %q, want %q", source, got, want)
		}
	}
}
