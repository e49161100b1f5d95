package settings

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// hooksJSON is a settings file holding skillwire's hooks of events.
func hooksJSON(events ...string) string {
	var parts []string
	for _, h := range HookSpecs {
		if !slices.Contains(events, h.Event) {
			continue
		}
		m := ""
		if h.Matcher != "" {
			m = `"matcher":` + strconv.Quote(h.Matcher) + `,`
		}
		parts = append(parts, strconv.Quote(h.Event)+`:[{`+m+`"hooks":[{"type":"command","command":"/usr/local/bin/skillwire hook `+h.Sub+`"}]}]`)
	}
	return `{"hooks":{` + strings.Join(parts, ",") + `}}`
}

func TestAnInstallLackingSomeOfSkillwiresHooksIsIncomplete(t *testing.T) {
	var all []string
	for _, h := range HookSpecs {
		all = append(all, h.Event)
	}
	but := func(e string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(x string) bool { return x == e })
	}
	for _, tc := range []struct {
		name    string
		tree    []string
		path    string   // relative, "" for none incomplete
		missing []string // events
	}{
		{"nothing installed", []string{"cfg/settings.json={}"}, "", nil},
		{"every hook", []string{"cfg/settings.json=" + hooksJSON(all...)}, "", nil},
		{"DirectoryAdded missing", []string{"cfg/settings.json=" + hooksJSON(but("DirectoryAdded")...)}, "cfg/settings.json", []string{"DirectoryAdded"}},
		{"only SessionStart in the managed drop-in", []string{"m/managed-settings.d/skillwire.json=" + hooksJSON("SessionStart")}, "m/managed-settings.d/skillwire.json", but("SessionStart")},
		{"the rest in the user's settings counts", []string{"m/managed-settings.d/skillwire.json=" + hooksJSON("SessionStart"), "cfg/settings.json=" + hooksJSON(but("SessionStart")...)}, "", nil},
		{"a project install", []string{"p/.claude/settings.local.json=" + hooksJSON("SessionStart", "PreToolUse")}, "p/.claude/settings.local.json", but("SessionStart")[1:]},
		{"the gate's hooks without SessionStart are no install", []string{"cfg/settings.json=" + hooksJSON(but("SessionStart")...)}, "", nil},
		{"another program's command is not skillwire's", []string{"cfg/settings.json=" + strings.ReplaceAll(hooksJSON(all...), "hook directory-added", "hook directory-added; curl x")}, "cfg/settings.json", []string{"DirectoryAdded"}},
		{"a linked file is never read", []string{"x.json=" + hooksJSON(all...), "cfg/settings.json -> ../x.json"}, "", nil},
		{"garbage is no install", []string{"cfg/settings.json={\"hooks\":[1,2"}, "", nil},
		// An install from before the gate judged Workflow calls. Its
		// PreToolUse and PostToolUse run for every tool but Workflow.
		{"an older matcher without Workflow", []string{"cfg/settings.json=" + strings.ReplaceAll(hooksJSON(all...), "|Workflow", "")}, "cfg/settings.json", []string{"PreToolUse", "PostToolUse"}},
		{"a matcher that is not a string", []string{"cfg/settings.json=" + strings.Replace(hooksJSON(all...), `"matcher":"^(Skill|Agent|Task|Workflow|Bash)$"`, `"matcher":["Workflow"]`, 1)}, "cfg/settings.json", []string{"PreToolUse"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, append([]string{"cfg/", "p/", "m/"}, tc.tree...)...)
			p := claude.Places{Config: filepath.Join(dir, "cfg"), Project: filepath.Join(dir, "p"), Managed: filepath.Join(dir, "m")}
			got := IncompleteIn(p)
			if tc.path == "" {
				if got != nil {
					t.Fatalf("incomplete %+v, want none", got)
				}
				return
			}
			if got == nil || got.Path != filepath.Join(dir, tc.path) || !slices.Equal(got.Events(), tc.missing) {
				t.Fatalf("incomplete %+v, want %s lacking %v", got, tc.path, tc.missing)
			}
		})
	}
}
