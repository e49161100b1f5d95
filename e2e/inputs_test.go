//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// recorder adds, beside skillwire's hooks, a hook per event that appends its
// stdin to a file. So a case can read the input the client really sent.
func (w *World) recorder(events ...string) string {
	w.t.Helper()
	out := filepath.Join(w.Root, "inputs.ndjson")
	script := w.Write("recorder.sh", "#!/bin/sh\ncat >> "+out+"\necho >> "+out+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.Config, "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		w.t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	for _, e := range events {
		groups, _ := hooks[e].([]any)
		hooks[e] = append(groups, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": script}}})
	}
	b, _ = json.Marshal(s)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
	return out
}

// inputs reads what the recorder kept, by event.
func inputs(t *testing.T, path string) map[string][]map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var in map[string]any
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatalf("a hook input is not JSON: %v: %q", err, sc.Text())
		}
		e, _ := in["hook_event_name"].(string)
		out[e] = append(out[e], in)
	}
	return out
}

// The hook inputs carry the fields skillwire reads, with the values it
// expects. This pins docs/claude-code.md's table of input fields.
func TestHookInputsCarryTheFieldsSkillwireReads(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	w.Skill("home/.claude/skills", "hello", "HELLO say hello")
	w.AgentFile("home/.claude/agents", "helper", "HELPER you help")
	w.Write("proj/CLAUDE.md", "# project\nBe brief.\n")
	w.Install()
	rec := w.recorder("SessionStart", "PreToolUse", "UserPromptExpansion", "ConfigChange", "InstructionsLoaded")
	m := model(t, []Reply{
		Skill("hello"),
		Agent("helper", "help"),
		Call("Write", map[string]any{"file_path": filepath.Join(w.Project, ".claude", "settings.json"), "content": `{"env":{"X_E2E":"1"}}`}),
		Call("Bash", map[string]any{"command": "sleep 2", "description": "wait for the settings watcher"}),
	}, Say("helped."))
	r := w.Claude(m, Run{Prompt: "/hello", Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
	noTrouble(t, r)
	got := inputs(t, rec)

	want := map[string]map[string]string{ // field → value ("" for any)
		"SessionStart":        {"session_id": "", "cwd": w.Project, "source": "startup", "transcript_path": ""},
		"PreToolUse":          {"session_id": "", "cwd": w.Project, "tool_name": "", "tool_input": "", "tool_use_id": "", "permission_mode": ""},
		"UserPromptExpansion": {"session_id": "", "cwd": w.Project, "expansion_type": "slash_command", "command_name": "hello", "command_source": "userSettings", "prompt": "/hello"},
		"ConfigChange":        {"session_id": "", "source": "project_settings", "file_path": filepath.Join(w.Project, ".claude", "settings.json")},
		"InstructionsLoaded":  {"session_id": "", "file_path": filepath.Join(w.Project, "CLAUDE.md"), "memory_type": "Project", "load_reason": "session_start"},
	}
	for event, fields := range want {
		ins := got[event]
		if len(ins) == 0 {
			t.Errorf("%s: no input recorded", event)
			continue
		}
		in := ins[0]
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("%s fields: %s", event, strings.Join(keys, ", "))
		for f, v := range fields {
			val, ok := in[f]
			if !ok {
				t.Errorf("%s: no %q in %v", event, f, in)
				continue
			}
			if s, _ := val.(string); v != "" && s != v {
				t.Errorf("%s: %s = %v, want %q", event, f, val, v)
			}
		}
	}
	tools := map[string]bool{}
	for _, in := range got["PreToolUse"] {
		name, _ := in["tool_name"].(string)
		tools[name] = true
		if name == "Agent" {
			ti, _ := in["tool_input"].(map[string]any)
			if ti["subagent_type"] != "helper" {
				t.Errorf("Agent tool_input: %v", ti)
			}
		}
		if name == "Skill" {
			ti, _ := in["tool_input"].(map[string]any)
			if ti["skill"] != "hello" {
				t.Errorf("Skill tool_input: %v", ti)
			}
		}
	}
	if !tools["Skill"] || !tools["Agent"] {
		t.Errorf("PreToolUse was not asked for both Skill and Agent (the matcher skillwire installs): %v", tools)
	}
}
