package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParsePreToolUse(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want ToolUse
		err  error
	}{
		{"skill names its skill", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Skill","tool_input":{"skill":"pdf","args":"x"}}`,
			ToolUse{Tool: "Skill", Name: "pdf", Cwd: "/p"}, nil},
		{"plugin skill keeps its namespace", `{"tool_name":"Skill","tool_input":{"skill":"docs:pdf"}}`,
			ToolUse{Tool: "Skill", Name: "docs:pdf"}, nil},
		{"agent names its subagent type", `{"tool_name":"Agent","tool_input":{"subagent_type":"reviewer","prompt":"p"}}`,
			ToolUse{Tool: "Agent", Name: "reviewer"}, nil},
		{"task is the agent tool's old name", `{"tool_name":"Task","tool_input":{"subagent_type":"reviewer"}}`,
			ToolUse{Tool: "Task", Name: "reviewer"}, nil},
		{"a Read names the file it touches, no candidate", `{"tool_name":"Read","tool_input":{"file_path":"x","skill":"pdf"}}`,
			ToolUse{Tool: "Read", Path: "x"}, nil},
		{"another tool names nothing", `{"tool_name":"Glob","tool_input":{"path":"x","skill":"pdf"}}`,
			ToolUse{Tool: "Glob"}, nil},
		{"a Bash call's command is read, and names no candidate", `{"tool_name":"Bash","tool_input":{"command":"ls","skill":"pdf"}}`,
			ToolUse{Tool: "Bash", Command: "ls"}, nil},
		{"a workflow call's name, script and scriptPath are read", `{"tool_name":"Workflow","tool_input":{"name":"wf","script":"export const meta = {}","scriptPath":"/tmp/x.js","args":{"q":1}}}`,
			ToolUse{Tool: "Workflow", Name: "wf", Script: "export const meta = {}", ScriptPath: "/tmp/x.js"}, nil},
		{"a workflow call of a script alone names nothing", `{"tool_name":"Workflow","tool_input":{"script":"s"}}`,
			ToolUse{Tool: "Workflow", Script: "s"}, nil},
		{"a workflow's script that is not a string is refused", `{"tool_name":"Workflow","tool_input":{"name":"wf","script":["s"]}}`, ToolUse{}, ErrEventMalformed},
		{"a workflow's scriptPath that is not a string is refused", `{"tool_name":"Workflow","tool_input":{"scriptPath":1}}`, ToolUse{}, ErrEventMalformed},
		{"a traversal name is returned as sent for the gate to refuse", `{"tool_name":"Skill","tool_input":{"skill":"../../x"}}`,
			ToolUse{Tool: "Skill", Name: "../../x"}, nil},
		{"keys match exactly, not case-insensitively", `{"tool_name":"Skill","tool_input":{"skill":"a","SKILL":"b","Skill":"c"}}`,
			ToolUse{Tool: "Skill", Name: "a"}, nil},
		{"the last duplicate key wins as in JavaScript", `{"tool_name":"Skill","tool_input":{"skill":"a","skill":"b"}}`,
			ToolUse{Tool: "Skill", Name: "b"}, nil},
		{"a relative cwd is dropped", `{"cwd":"rel/dir","tool_name":"Skill","tool_input":{"skill":"pdf"}}`,
			ToolUse{Tool: "Skill", Name: "pdf"}, nil},
		{"null input names nothing", `{"tool_name":"Skill","tool_input":null}`,
			ToolUse{Tool: "Skill"}, nil},
		{"another event is refused", `{"hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"pdf"}}`,
			ToolUse{}, ErrWrongEvent},
		{"a number for a name is refused", `{"tool_name":"Skill","tool_input":{"skill":7}}`, ToolUse{}, ErrEventMalformed},
		{"an array input is refused", `{"tool_name":"Skill","tool_input":["pdf"]}`, ToolUse{}, ErrEventMalformed},
		{"null is refused", `null`, ToolUse{}, ErrEventMalformed},
		{"an array is refused", `[{"tool_name":"Skill"}]`, ToolUse{}, ErrEventMalformed},
		{"empty input is refused", ``, ToolUse{}, ErrEventMalformed},
		{"data after the object is refused", `{"tool_name":"Skill"} {"tool_name":"Bash"}`, ToolUse{}, ErrEventMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePreToolUse([]byte(tc.in))
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestParsePreToolUseNeverKeepsInvalidUTF8(t *testing.T) {
	in := []byte("{\"tool_name\":\"Skill\",\"tool_input\":{\"skill\":\"p\xffd\\u0000\\u001b[31m\"}}")
	got, err := ParsePreToolUse(in)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(got.Name) || got.Name != "p\uFFFDd\x00\x1b[31m" {
		t.Fatalf("name %q", got.Name)
	}
}

func TestParseUserPromptExpansion(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Expansion
	}{
		{"a typed command", `{"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"pdf","command_args":"a b","command_source":"skill","prompt":"x"}`,
			Expansion{Type: "slash_command", Name: "pdf", Source: "skill"}},
		{"one leading slash is dropped", `{"command_name":"/docs:pdf","command_source":"plugin"}`,
			Expansion{Name: "docs:pdf", Source: "plugin"}},
		{"only one leading slash is dropped", `{"command_name":"//pdf"}`, Expansion{Name: "/pdf"}},
		{"an mcp prompt", `{"expansion_type":"mcp_prompt","command_name":"srv:p","command_source":"mcp"}`,
			Expansion{Type: "mcp_prompt", Name: "srv:p", Source: "mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUserPromptExpansion([]byte(tc.in))
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseConfigChange(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		want      ConfigChange
		blockable bool
	}{
		{"project settings", `{"hook_event_name":"ConfigChange","source":"project_settings","file_path":"/p/.claude/settings.json"}`,
			ConfigChange{Source: SourceProjectSettings, Path: "/p/.claude/settings.json"}, true},
		{"a skill file", `{"source":"skills","file_path":"/h/.claude/skills/pdf/SKILL.md","session_id":"s1"}`,
			ConfigChange{Source: SourceSkills, Path: "/h/.claude/skills/pdf/SKILL.md", Session: "s1"}, true},
		{"policy settings cannot be blocked", `{"source":"policy_settings","file_path":"/etc/claude-code/managed-settings.json"}`,
			ConfigChange{Source: SourcePolicySettings, Path: "/etc/claude-code/managed-settings.json"}, false},
		{"a relative path is dropped, not resolved", `{"source":"local_settings","file_path":"../../etc/passwd"}`,
			ConfigChange{Source: SourceLocalSettings}, true},
		{"a path is never cleaned", `{"source":"user_settings","file_path":"/h/./.claude/../x"}`,
			ConfigChange{Source: SourceUserSettings, Path: "/h/./.claude/../x"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfigChange([]byte(tc.in))
			if err != nil || got != tc.want || got.Blockable() != tc.blockable {
				t.Fatalf("got %+v (blockable %v), %v; want %+v", got, got.Blockable(), err, tc.want)
			}
		})
	}
}

func TestParseInstructionsLoaded(t *testing.T) {
	in := `{"hook_event_name":"InstructionsLoaded","cwd":"/p","file_path":"/p/CLAUDE.md","memory_type":"Project","load_reason":"session_start","globs":["*.go"]}`
	got, err := ParseInstructionsLoaded([]byte(in))
	want := InstructionsLoad{Path: "/p/CLAUDE.md", MemoryType: "Project", Reason: "session_start", Cwd: "/p"}
	if err != nil || got != want {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	if _, err := ParseInstructionsLoaded([]byte(`{"hook_event_name":"ConfigChange"}`)); !errors.Is(err, ErrWrongEvent) {
		t.Fatalf("another event: %v", err)
	}
}

func TestReadEventRefusesRatherThanTruncates(t *testing.T) {
	exact := bytes.Repeat([]byte{' '}, MaxInput)
	if b, err := ReadEvent(bytes.NewReader(exact), time.Minute); err != nil || len(b) != MaxInput {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
	over := bytes.Repeat([]byte{' '}, MaxInput+1)
	if _, err := ReadEvent(bytes.NewReader(over), time.Minute); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestReadEventGivesUpOnAStdinThatNeverCloses(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	if _, err := ReadEvent(r, time.Millisecond); !errors.Is(err, ErrEventTimeout) {
		t.Fatalf("got %v", err)
	}
}

func TestOutputsHaveTheReferenceShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(Decision, string) ([]byte, error)
		d      Decision
		want   string
	}{
		{"pre-tool-use ask", PreToolUseOutput, Ask,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r \"q\""}}`},
		{"pre-tool-use deny", PreToolUseOutput, Deny,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r \"q\""}}`},
		{"prompt expansion deny blocks", UserPromptExpansionOutput, Deny,
			`{"decision":"block","reason":"r \"q\""}`},
		{"prompt expansion ask adds context the person sees", UserPromptExpansionOutput, Ask,
			`{"systemMessage":"r \"q\"","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"r \"q\""}}`},
		{"config change deny blocks", ConfigChangeOutput, Deny, `{"decision":"block","reason":"r \"q\""}`},
		{"config change ask blocks too", ConfigChangeOutput, Ask, `{"decision":"block","reason":"r \"q\""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.render(tc.d, `r "q"`)
			if err != nil || string(got) != tc.want+"\n" {
				t.Fatalf("got %s, %v\nwant %s", got, err, tc.want)
			}
			var v any
			if err := json.Unmarshal(got, &v); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
		})
	}
}

var renderers = map[string]func(Decision, string) ([]byte, error){
	"PreToolUse":          PreToolUseOutput,
	"UserPromptExpansion": UserPromptExpansionOutput,
	"ConfigChange":        ConfigChangeOutput,
}

func TestOutputsRefuseNoDecisionAndNoReason(t *testing.T) {
	for name, render := range renderers {
		t.Run(name, func(t *testing.T) {
			for _, d := range []Decision{0, Deny + 1} {
				if _, err := render(d, "r"); !errors.Is(err, ErrNoDecision) {
					t.Errorf("decision %d: %v", d, err)
				}
			}
			for _, r := range []string{"", strings.Repeat("x", MaxContext+1)} {
				if _, err := render(Deny, r); !errors.Is(err, ErrReason) {
					t.Errorf("reason of %d bytes: %v", len(r), err)
				}
			}
		})
	}
}

func TestOutputsAreASCIIAndNeverAllow(t *testing.T) {
	reason := "skill \"p\xffdf\" \u202e\x1b[31m\U0001F600 allow"
	for name, render := range renderers {
		for _, d := range []Decision{Ask, Deny} {
			t.Run(name+" "+d.String(), func(t *testing.T) {
				out, err := render(d, reason)
				if err != nil {
					t.Fatal(err)
				}
				checkOutput(t, out, reason)
			})
		}
	}
}

// checkOutput holds every rendered answer to its invariants. Each is
// printable ASCII JSON on one line, with no allow-like decision. Its
// reason is intact.
func checkOutput(t *testing.T, out []byte, reason string) {
	t.Helper()
	body, ok := bytes.CutSuffix(out, []byte("\n"))
	if !ok {
		t.Fatalf("no newline: %q", out)
	}
	for _, c := range body {
		if c < 0x20 || c > 0x7e {
			t.Fatalf("byte %#x in %q", c, out)
		}
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if d, ok := v["decision"]; ok && d != "block" {
		t.Fatalf("decision %v", d)
	}
	if _, ok := v["continue"]; ok {
		t.Fatalf("continue in %s", out)
	}
	want := strings.ToValidUTF8(reason, "\uFFFD")
	if r, ok := v["reason"]; ok && r != want {
		t.Fatalf("reason %q, want %q", r, want)
	}
	if h, ok := v["hookSpecificOutput"].(map[string]any); ok {
		if p, ok := h["permissionDecision"]; ok && p != "ask" && p != "deny" {
			t.Fatalf("permissionDecision %v", p)
		}
		for _, k := range []string{"permissionDecisionReason", "additionalContext"} {
			if r, ok := h[k]; ok && r != want {
				t.Fatalf("%s %q, want %q", k, r, want)
			}
		}
		if _, ok := h["updatedInput"]; ok {
			t.Fatalf("updatedInput in %s", out)
		}
	}
}

func FuzzEventInput(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Skill","tool_input":{"skill":"pdf"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":{"subagent_type":"../x"}}`,
		`{"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"/docs:pdf","command_source":"plugin"}`,
		`{"hook_event_name":"ConfigChange","source":"skills","file_path":"/h/.claude/skills/a/SKILL.md"}`,
		`{"hook_event_name":"InstructionsLoaded","file_path":"/p/CLAUDE.md","memory_type":"Project","load_reason":"include"}`,
		"{\"tool_name\":\"Skill\",\"tool_input\":{\"skill\":\"\xff\\u0000\\ud800\"}}",
		`{"tool_input":{"skill":{"skill":[1,2,{"a":null}]}}}`,
		`[]`, `"x"`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		names := []string{}
		if u, err := ParsePreToolUse(b); err == nil {
			names = append(names, u.Name, u.Cwd)
		}
		if e, err := ParseUserPromptExpansion(b); err == nil {
			names = append(names, e.Name, e.Source)
		}
		if c, err := ParseConfigChange(b); err == nil {
			names = append(names, c.Path, c.Source)
			if c.Path != "" && c.Path[0] != '/' {
				t.Fatalf("relative path %q", c.Path)
			}
		}
		if l, err := ParseInstructionsLoaded(b); err == nil {
			names = append(names, l.Path, l.Reason)
		}
		// Even a reason built from raw input must come out as safe JSON.
		for _, n := range names {
			if n == "" || len(n) > MaxContext {
				continue
			}
			for _, render := range renderers {
				out, err := render(Deny, n)
				if err != nil {
					t.Fatal(err)
				}
				checkOutput(t, out, n)
			}
		}
	})
}
