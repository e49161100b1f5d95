package clientproc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTheSettingsFilesAreReadFromTheCommandLine: each --settings value
// that names a file is one, relative ones read against the folder the
// client started in; a JSON value names none; a value skillwire cannot
// read as the client does is a problem, never silence.
func TestTheSettingsFilesAreReadFromTheCommandLine(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	fp := newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj,
		"-p", "hi", "--settings", base+"/a.json", "--settings="+"rel/b.json", "--settings", ` {"hooks":{}} `, "--model", "x", "--settings")...)
	got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDE_PID", "100"))
	if want := []string{base + "/a.json", proj + "/rel/b.json"}; !slices.Equal(got.Settings, want) || got.Problem != "" {
		t.Errorf("settings %q (problem %q), want %q", got.Settings, got.Problem, want)
	}
	for _, v := range []string{"~/x.json", "../../x/./y.json"} {
		fp := newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj, "--settings", v)...)
		if got := (Client{Proc: fp.dir, Parent: 200}).Added(envOf("CLAUDE_PID", "100")); got.Problem == "" {
			t.Errorf("%q: no problem told, settings %q", v, got.Settings)
		}
	}
	var many []string
	for i := range MaxSettings + 1 {
		many = append(many, "--settings", base+"/"+strings.Repeat("s", i+1)+".json")
	}
	fp = newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj, many...)...)
	if got := (Client{Proc: fp.dir, Parent: 200}).Added(envOf("CLAUDE_PID", "100")); len(got.Settings) != MaxSettings || got.Problem != problemTooMany {
		t.Errorf("too many: %d watched, problem %q", len(got.Settings), got.Problem)
	}
}

func TestSettingsArgsAndInlineJSON(t *testing.T) {
	if got := SettingsArgs([]string{"claude", "--settings", "a", "--settings=b", "--settings"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("SettingsArgs = %q", got)
	}
	for v, want := range map[string]bool{`{}`: true, " {\"a\":1}\n": true, `{x`: false, `x}`: false, `./{}.json`: false, ``: false} {
		if inlineSettings(v) != want {
			t.Errorf("inlineSettings(%q) = %v", v, !want)
		}
	}
}

// TestTheMCPConfigFilesAreReadFromTheCommandLineAsTheClientParsesThem:
// --mcp-config takes one value or more, as commander's variadic option
// does: the next argument whatever it is, then each that does not start
// with "-"; --mcp-config=v one alone. Files only: a JSON value names none.
func TestTheMCPConfigFilesAreReadFromTheCommandLineAsTheClientParsesThem(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"claude", "--mcp-config", "a.json", "b.json", "-p", "hi"}, []string{"a.json", "b.json"}},
		{[]string{"claude", "--mcp-config", "-odd.json", "b.json"}, []string{"-odd.json", "b.json"}},
		{[]string{"claude", "--mcp-config=a.json", "b.json"}, []string{"a.json"}},
		{[]string{"claude", "--mcp-config", "a.json", "--", "b.json"}, []string{"a.json"}},
		{[]string{"claude", "-p", "hi", "--mcp-config", "a.json", "--model", "x", "--mcp-config", "c.json"}, []string{"a.json", "c.json"}},
		{[]string{"claude", "--", "--mcp-config", "a.json"}, nil},
		{[]string{"claude", "--mcp-config"}, nil},
		{[]string{"claude", "--mcp-config", "a.json", "-", "b.json"}, []string{"a.json", "-", "b.json"}},
	} {
		if got := MCPConfigArgs(tc.argv); !slices.Equal(got, tc.want) {
			t.Errorf("MCPConfigArgs(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	fp := newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj,
		"--mcp-config", base+"/a.json", "rel/b.json", ` {"mcpServers":{}} `, "--settings", base+"/s.json", "-p", "hi")...)
	got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDE_PID", "100"))
	if want := []string{base + "/a.json", proj + "/rel/b.json"}; !slices.Equal(got.MCPConfigs, want) || got.Problem != "" {
		t.Errorf("mcp configs %q (problem %q), want %q", got.MCPConfigs, got.Problem, want)
	}
	if want := []string{base + "/s.json"}; !slices.Equal(got.Settings, want) {
		t.Errorf("settings %q, want %q", got.Settings, want)
	}
	fp = newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj, "--mcp-config", "~/m.json")...)
	if got := (Client{Proc: fp.dir, Parent: 200}).Added(envOf("CLAUDE_PID", "100")); got.Problem == "" {
		t.Errorf("~/m.json: no problem told, configs %q", got.MCPConfigs)
	}
}

// TestThePromptFilesAreReadFromTheCommandLine: each of the three options
// that read a system prompt from a file takes one value, a path, even one
// spelled as JSON; "--" ends the options.
func TestThePromptFilesAreReadFromTheCommandLine(t *testing.T) {
	argv := []string{"claude", "--system-prompt-file", "s.md", "--append-system-prompt-file=a.md", "--append-subagent-system-prompt-file", "{}",
		"--append-system-prompt", "not-a-file.md", "--", "--system-prompt-file", "z.md"}
	if got, want := PromptFileArgs(argv), []string{"s.md", "a.md", "{}"}; !slices.Equal(got, want) {
		t.Errorf("PromptFileArgs = %q, want %q", got, want)
	}
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	fp := newFakeProc(t, hookChain("claude", "/opt/claude/bin/claude.exe", proj, argv[1:]...)...)
	got := Client{Proc: fp.dir, Parent: 200}.Added(envOf("CLAUDE_PID", "100"))
	if want := []string{proj + "/s.md", proj + "/a.md", proj + "/{}"}; !slices.Equal(got.PromptFiles, want) || got.Problem != "" {
		t.Errorf("prompt files %q (problem %q), want %q", got.PromptFiles, got.Problem, want)
	}
}
