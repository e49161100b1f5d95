package settings

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
)

func TestHooksOffNamesEverySettingsFileThatStopsSkillwiresHooks(t *testing.T) {
	const off = `{"disableAllHooks":true}`
	managedHook := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/usr/local/bin/skillwire hook session-start"}]}]}}`
	for _, tc := range []struct {
		name string
		tree []string
		want []string // scope:path relative to the test's directory
	}{
		{"nothing set", []string{"cfg/settings.json={}", "p/.claude/settings.json={}"}, nil},
		{"project settings.json", []string{"p/.claude/settings.json=" + off}, []string{"project:p/.claude/settings.json"}},
		{"project settings.local.json", []string{"p/.claude/settings.local.json=" + off}, []string{"project:p/.claude/settings.local.json"}},
		{"the user's settings.json", []string{"cfg/settings.json=" + off}, []string{"global:cfg/settings.json"}},
		{"false is no finding", []string{"p/.claude/settings.json={\"disableAllHooks\":false}"}, nil},
		{"a string is no finding", []string{"p/.claude/settings.json={\"disableAllHooks\":\"true\"}"}, nil},
		{"the last of duplicate keys counts", []string{"p/.claude/settings.json={\"disableAllHooks\":false,\"disableAllHooks\":true}"}, []string{"project:p/.claude/settings.json"}},
		{"a link is never followed", []string{"x.json=" + off, "p/.claude/settings.json -> ../../x.json"}, nil},
		{"a linked .claude is never followed", []string{"x/settings.json=" + off, "p/.claude -> ../x"}, nil},
		{"skillwire's managed hooks run under a project's disableAllHooks", []string{"p/.claude/settings.json=" + off, "m/managed-settings.d/skillwire.json=" + managedHook}, nil},
		{"a managed drop-in without skillwire's hook does not help", []string{"p/.claude/settings.json=" + off, "m/managed-settings.d/skillwire.json={}"}, []string{"project:p/.claude/settings.json"}},
		{"managed disableAllHooks stops managed hooks too", []string{"m/managed-settings.json=" + off, "m/managed-settings.d/skillwire.json=" + managedHook}, []string{"managed:m/managed-settings.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, append([]string{"cfg/", "p/", "m/"}, tc.tree...)...)
			p := claude.Places{Config: filepath.Join(dir, "cfg"), Project: filepath.Join(dir, "p"), Managed: filepath.Join(dir, "m")}
			var got []string
			for _, h := range HooksOffIn(p) {
				rel, err := filepath.Rel(dir, h.Path)
				testtree.Must(t, err)
				got = append(got, string(h.Scope)+":"+rel)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("HooksOff = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHooksOffReadsAProjectThatIsTheConfigDirectoryOnce(t *testing.T) {
	home := t.TempDir()
	testtree.Make(t, home, ".claude/settings.json={\"disableAllHooks\":true}")
	p := claude.Places{Config: filepath.Join(home, ".claude"), Project: home}
	if got := HooksOffIn(p); len(got) != 1 || got[0].Scope != claude.Global {
		t.Errorf("HooksOff = %+v, want the user's file once", got)
	}
}
