package config

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// pluginForm is the form of a plugin of the front files given, path →
// bytes, joined as the plugin roots join them.
func pluginForm(t *testing.T, files ...string) []byte {
	t.Helper()
	var paths []string
	var canons [][]byte
	for i := 0; i < len(files); i += 2 {
		ex := PluginFront([]byte(files[i+1]))
		if ex.Canonical == nil {
			t.Fatalf("%s: %v", files[i], ex.Anomalies)
		}
		paths, canons = append(paths, files[i]), append(canons, ex.Canonical)
	}
	return WithModules(JoinForms(canons), paths, canons)
}

const modTail = " in-process code that can answer, rewrite or drop every hook of your settings, skillwire's included"

func TestOnlyHooksFilesLoadModules(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"hooks/hooks.json", []string{"hooks/hooks.json", `{"modules":["./register.js"]}`},
			[]string{`hooks module "./register.js" (listed in "hooks/hooks.json") runs` + modTail}},
		{"the file plugin.json's hooks names", []string{".claude-plugin/plugin.json", `{"name":"pm","hooks":"./extra/more.json"}`, "extra/more.json", `{"modules":["./register.ts","../up.mjs"]}`},
			[]string{`hooks modules "./register.ts", "../up.mjs" (listed in "extra/more.json") run` + modTail}},
		{"both", []string{"hooks/hooks.json", `{"modules":["./a.js"]}`, ".claude-plugin/plugin.json", `{"hooks":["./x.json"]}`, "x.json", `{"modules":["./b.js"]}`},
			[]string{`hooks module "./a.js" (listed in "hooks/hooks.json") runs` + modTail, `hooks module "./b.js" (listed in "x.json") runs` + modTail}},
		{"control: inline in plugin.json, which the client ignores", []string{".claude-plugin/plugin.json", `{"name":"p","hooks":{"modules":["./r.js"]},"modules":["./r.js"]}`}, nil},
		{"control: a file plugin.json names for its MCP servers", []string{".claude-plugin/plugin.json", `{"mcpServers":"./m.json"}`, "m.json", `{"modules":["./r.js"]}`}, nil},
		{"control: no modules", []string{"hooks/hooks.json", `{"hooks":{}}`}, nil},
		{"control: an empty list", []string{"hooks/hooks.json", `{"modules":[]}`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			form := pluginForm(t, c.files...)
			if got := factLines(ModuleFacts(form)); !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if HasModules(form) != (c.want != nil) {
				t.Errorf("HasModules = %v", !(c.want != nil))
			}
		})
	}
}

// Hostile modules are told as written, each quoted and escaped, never
// opened: skillwire reads only the hooks file.
func TestHostileModulesAreToldAsWritten(t *testing.T) {
	huge := `{"modules":[` + strings.Repeat(`"./m.js",`, 5000) + `"./last.js"]}`
	for _, c := range []struct{ name, hooks, want string }{
		{"not a list", `{"modules":"./register.js"}`, `hooks module "./register.js" (listed in "hooks/hooks.json") runs` + modTail},
		{"an object", `{"modules":{"a":1}}`, `hooks module "{\"a\":1}" (listed in "hooks/hooks.json") runs` + modTail},
		{"entries not strings", `{"modules":[1,null,{"x":"y"}]}`, `hooks modules "1", "null", "{\"x\":\"y\"}" (listed in "hooks/hooks.json") run` + modTail},
		{"a huge list", huge, `hooks modules "./m.js", "./m.js", "./m.js", "./m.js" and 4997 more (listed in "hooks/hooks.json") run` + modTail},
		{"control bytes and bidi", `{"modules":["./r.js\u001b[2K\r\nIgnore skillwire\u202e"]}`, `hooks module "./r.js\x1b[2K\x0d\x0aIgnore skillwire\u202e" (listed in "hooks/hooks.json") runs` + modTail},
		{"paths that leave the plugin", `{"modules":["../../../etc/passwd","/abs/x.js"]}`, `hooks modules "../../../etc/passwd", "/abs/x.js" (listed in "hooks/hooks.json") run` + modTail},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := ModuleFacts(pluginForm(t, "hooks/hooks.json", c.hooks))
			if len(fs) != 1 || fs[0].String() != c.want {
				t.Fatalf("got  %q\nwant %q", factLines(fs), c.want)
			}
			if s := fs[0].String(); !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\u202e\x1b") {
				t.Errorf("not one escaped line: %q", s)
			}
		})
	}
}

func TestAHooksModuleRanksBeforeEveryOtherFact(t *testing.T) {
	fs := []Fact{{Kind: FactNewHook, Event: "SessionStart", Command: "x"}, {Kind: FactNameChanged}, {Kind: FactHooksModule, Name: HooksFile, Command: `["./r.js"]`}}
	slices.SortStableFunc(fs, func(a, b Fact) int { return a.Rank() - b.Rank() })
	if fs[0].Kind != FactHooksModule || !fs[0].Dangerous() {
		t.Errorf("a hooks module is not first and dangerous: %q", factLines(fs))
	}
	if got := CountFacts(fs); !strings.HasPrefix(got, "+1 hooks files listing modules, ") {
		t.Errorf("CountFacts does not count mods first: %q", got)
	}
}

// A form whose modules are told by ModuleFacts tells nothing more as a
// setting: the mod is one fact, not two.
func TestModulesAreNoSettingFact(t *testing.T) {
	if fs := Facts(nil, pluginForm(t, "hooks/hooks.json", `{"modules":["./r.js"]}`)); len(fs) != 0 {
		t.Errorf("Facts told %q", factLines(fs))
	}
}
