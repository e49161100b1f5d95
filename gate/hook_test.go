package gate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
)

// hook is the tree's environment as a hook sees it: the roots located for
// the hook's cwd, as the command locates them. located counts the calls.
func (tr *tree) hook(located *int) HookEnv {
	return HookEnv{Claude: tr.claudeEnv(), For: func(cwd string) (Env, error) {
		*located++
		places, err := claude.Locate(tr.claudeEnv(), cwd)
		env := tr.env
		env.Roots = places.Roots()
		return env, err
	}}
}

// Inputs of each event, naming the skill "pdf" where a use names one.
const (
	toolUse      = `{"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"pdf"}}`
	typed        = `{"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"pdf","command_source":"skill"}`
	userSettings = `{"hook_event_name":"ConfigChange","source":"user_settings"}`
	policyChange = `{"hook_event_name":"ConfigChange","source":"policy_settings"}`
)

func loaded(tr *tree) string {
	b, _ := json.Marshal(map[string]string{"hook_event_name": "InstructionsLoaded", "file_path": filepath.Join(tr.project, "CLAUDE.md"),
		"memory_type": "Project", "load_reason": "session_start"})
	return string(b)
}

// checkResponse: the answer printed is want (None: nothing), and a note
// holds note.
func checkResponse(t *testing.T, r Response, want Answer, note string) {
	t.Helper()
	if (len(r.Out) > 0) != (want != None) || r.Answer != want || !strings.Contains(strings.Join(r.Notes, "\n"), note) {
		t.Fatalf("answer %s, out %s, notes %q; want %s and a note %q", r.Answer, r.Out, r.Notes, want, note)
	}
}

func TestASteeredProjectDeniesEveryEventAndNothingIsJudged(t *testing.T) {
	for _, tc := range []struct {
		name, event string
		input       func(*tree) string
		want        Answer
		note        string
	}{
		{"a tool use", hookio.EventPreToolUse, func(*tree) string { return toolUse }, Deny, "PreToolUse deny: project settings set"},
		{"a typed /name", hookio.EventUserPromptExpansion, func(*tree) string { return typed }, Deny, "UserPromptExpansion deny: project settings set"},
		{"a settings change", hookio.EventConfigChange, func(*tree) string { return userSettings }, Deny, "ConfigChange block: project settings set"},
		{"a policy settings change, which cannot be blocked", hookio.EventConfigChange, func(*tree) string { return policyChange }, None,
			"ConfigChange block: project settings set"},
		{"an instruction file's load", hookio.EventInstructionsLoaded, loaded, None, "InstructionsLoaded not recorded: project settings set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.skill("user", "pdf")
			tr.write(filepath.Join(tr.project, ".claude", "settings.local.json"), `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/fresh"}}`)
			var located int
			r := Handle(context.Background(), tc.event, []byte(tc.input(tr)), tr.hook(&located))
			checkResponse(t, r, tc.want, tc.note)
			if located != 0 || r.Dir != "" {
				t.Fatalf("located %d times, hook log in %q: the steered environment was trusted", located, r.Dir)
			}
		})
	}
}

func TestAUseThatNamesNoCandidateIsAnsweredWithNothing(t *testing.T) {
	for _, tc := range []struct{ name, event, input string }{
		{"another tool", hookio.EventPreToolUse, `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"x"}}`},
		{"a built-in command", hookio.EventUserPromptExpansion,
			`{"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"pdf","command_source":"builtin"}`},
		{"an MCP prompt", hookio.EventUserPromptExpansion,
			`{"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"pdf","command_source":"mcp"}`},
		{"an expansion that is no slash command", hookio.EventUserPromptExpansion,
			`{"hook_event_name":"UserPromptExpansion","expansion_type":"mcp_prompt","command_name":"pdf"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.skill("user", "pdf") // new: a use of it would ask
			var located int
			if r := Handle(context.Background(), tc.event, []byte(tc.input), tr.hook(&located)); r.Out != nil || r.Notes != nil || located != 0 {
				t.Fatalf("%+v, located %d times", r, located)
			}
		})
	}
}

func TestAnAskCarriesWhatTheHookLogKeeps(t *testing.T) {
	for _, tc := range []struct{ event, input, note string }{
		{hookio.EventPreToolUse, toolUse, "skillwire gate: PreToolUse ask: "},
		{hookio.EventUserPromptExpansion, typed, "skillwire gate: UserPromptExpansion ask: "},
	} {
		t.Run(tc.event, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.skill("user", "pdf")
			var located int
			r := Handle(context.Background(), tc.event, []byte(tc.input), tr.hook(&located))
			checkResponse(t, r, Ask, tc.note)
			if r.Dir != tr.env.Store.Dir || r.Reason == "" || len(r.IDs) != 1 || !strings.HasPrefix(r.IDs[0], "sw") {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestInputThatCannotBeReadIsAnsweredByTheMirroredPolicy(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}} {
		t.Run(tc.p.String(), func(t *testing.T) {
			tr := newTree(t)
			tr.policy(tc.p)
			var located int
			r := Handle(context.Background(), hookio.EventPreToolUse, []byte(`{"tool_name": evil`), tr.hook(&located))
			checkResponse(t, r, tc.want, "policy "+tc.p.String())
			checkResponse(t, r, tc.want, "; the hook input could not be read")
			if tc.want != None && (r.Dir != tr.env.Store.Dir || r.Reason == "") {
				t.Fatalf("a deny the hook log cannot keep: %+v", r)
			}
			if strings.Contains(strings.Join(r.Notes, ""), "evil") {
				t.Fatalf("the input is quoted: %q", r.Notes)
			}
		})
	}
	t.Run("an instruction file's load", func(t *testing.T) {
		tr := newTree(t)
		tr.policy(Strict)
		var located int
		r := Handle(context.Background(), hookio.EventInstructionsLoaded, []byte(`{"file_path": `), tr.hook(&located))
		checkResponse(t, r, None, "InstructionsLoaded input could not be read; nothing was recorded")
	})
}

func TestAStoreThatCannotBeLocatedIsAnsweredAsStrict(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("user", "pdf")
	tr.policy(Balanced)
	h := HookEnv{Claude: tr.claudeEnv(), For: func(string) (Env, error) { return Env{}, errors.New("SKILLWIRE_STATE_DIR is relative") }}
	for _, tc := range []struct {
		event, input string
		want         Answer
		note         string
	}{
		{hookio.EventPreToolUse, toolUse, Deny, "could not judge (the store could not be located or read); policy strict denies"},
		{hookio.EventConfigChange, userSettings, Deny, "could not judge (the store could not be located or read); policy strict denies"},
		{hookio.EventInstructionsLoaded, loaded(tr), None, "the instruction file's load could not be recorded"},
	} {
		t.Run(tc.event, func(t *testing.T) {
			r := Handle(context.Background(), tc.event, []byte(tc.input), h)
			checkResponse(t, r, tc.want, tc.note)
			if r.Dir != "" {
				t.Fatalf("a hook log in %q, which could not be located", r.Dir)
			}
		})
	}
}

func TestPastTheHooksDeadlineTheAnswerIsThePolicys(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}} {
		t.Run(tc.p.String(), func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.skill("user", "pdf") // new: balanced would ask if it could judge
			tr.policy(tc.p)
			held := tr.store() // the check waits for the lock past the hook's deadline
			defer held.Close()
			tr.env.Store.LockTimeout = time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			var located int
			r := Handle(ctx, hookio.EventPreToolUse, []byte(toolUse), tr.hook(&located))
			checkResponse(t, r, tc.want, "could not judge")
		})
	}
}

// The model's Bash call that records a person's decision is asked under
// balanced and strict, silent under audit; any other command is answered
// with nothing, and in a steered project the decision is denied.
func TestTheModelsBashCallRecordingADecisionIsAskedOfThePerson(t *testing.T) {
	bash := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
		return string(b)
	}
	for _, tc := range []struct {
		policy Policy
		cmd    string
		want   Answer
	}{
		{Balanced, "skillwire record sw1 --verdict SAFE-TO-PROPOSE --expect-digest blake3:00", Ask},
		{Strict, "cd x && sh -c 'skillwire trust add ci'", Ask},
		{Balanced, "skillwire gate policy audit", Ask},
		{Audit, "skillwire record sw1 --verdict SAFE-TO-PROPOSE", None},
		{Balanced, "skillwire status", None},
		{Strict, "go test ./...", None},
	} {
		t.Run(tc.policy.String()+"/"+tc.cmd, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.policy(tc.policy)
			var located int
			r := Handle(context.Background(), hookio.EventPreToolUse, []byte(bash(tc.cmd)), tr.hook(&located))
			if r.Answer != tc.want {
				t.Fatalf("%+v, want %v", r, tc.want)
			}
			if tc.want == Ask && (!strings.Contains(string(r.Out), `"permissionDecision":"ask"`) || !strings.Contains(r.Reason, "a decision only a person makes")) {
				t.Fatalf("%s / %q", r.Out, r.Reason)
			}
		})
	}
	tr := newTree(t)
	tr.write(filepath.Join(tr.project, ".claude", "settings.local.json"), `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/fresh"}}`)
	var located int
	if r := Handle(context.Background(), hookio.EventPreToolUse, []byte(bash("skillwire record sw1")), tr.hook(&located)); r.Answer != Deny || located != 0 {
		t.Fatalf("steered: %+v, located %d", r, located)
	}
}

// Every ask and deny is also an OCSF Detection Finding in events.ndjson
// beside the store, carrying Claude Code's session.id and prompt.id, for a
// fleet's pipeline; a silent answer writes nothing.
func TestAnAskOrDenyIsAFleetEvent(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("user", "pdf")
	tr.skill("user", "ok")
	tr.deliver()
	tr.record(tr.deliver()["global/ok"], verdict.Safe)
	var located int
	in := func(name string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": name},
			"session_id": "sess-9", "prompt_id": "prompt-3", "tool_use_id": "toolu_9", "cwd": tr.project})
		return b
	}
	if r := Handle(context.Background(), hookio.EventPreToolUse, in("ok"), tr.hook(&located)); r.Out != nil {
		t.Fatalf("a vetted skill was answered: %s", r.Out)
	}
	if _, err := os.Stat(filepath.Join(tr.env.Store.Dir, "events.ndjson")); err == nil {
		t.Fatal("a silent answer wrote an event")
	}
	if r := Handle(context.Background(), hookio.EventPreToolUse, in("pdf"), tr.hook(&located)); r.Answer != Ask {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(filepath.Join(tr.env.Store.Dir, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if ev["class_uid"] != float64(2004) || !strings.Contains(string(b), `"sess-9"`) || !strings.Contains(string(b), `"prompt-3"`) || !strings.Contains(string(b), `"ask"`) {
		t.Fatalf("%s", b)
	}
}

// A call made while the session runs as a BLOCKed agent (a project's
// settings "agent" made it the main one; the hook input's agent_type says
// so) is denied, whatever the call; an agent that is merely new adds
// nothing to the call's own answer (issue 21, finding 3).
func TestACallMadeAsABlockedAgentIsDenied(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "agents", "evilagent.md"), "---\nname: evilagent\n---\nbad\n")
	tr.write(filepath.Join(tr.cfg, "agents", "newagent.md"), "---\nname: newagent\n---\nnew\n")
	tr.skill("user", "ok")
	sts := tr.deliver()
	tr.record(sts["global/evilagent.md"], verdict.Block)
	tr.record(sts["global/ok"], verdict.Safe)
	call := func(tool, agent string) []byte {
		in := map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool, "agent_type": agent, "cwd": tr.project,
			"tool_input": map[string]any{"skill": "ok", "command": "ls"}}
		b, _ := json.Marshal(in)
		return b
	}
	var located int
	for _, tool := range []string{"Skill", "Bash"} {
		r := Handle(context.Background(), hookio.EventPreToolUse, call(tool, "evilagent"), tr.hook(&located))
		if r.Answer != Deny || !strings.Contains(r.Reason, `agent "evilagent"`) || !strings.Contains(r.Reason, "BLOCK") {
			t.Errorf("%s as evilagent: %+v", tool, r)
		}
		if r := Handle(context.Background(), hookio.EventPreToolUse, call(tool, "newagent"), tr.hook(&located)); r.Out != nil {
			t.Errorf("%s as a new agent: %s", tool, r.Out)
		}
		if r := Handle(context.Background(), hookio.EventPreToolUse, call(tool, "Explore"), tr.hook(&located)); r.Out != nil {
			t.Errorf("%s as a built-in agent: %s", tool, r.Out)
		}
	}
	for _, n := range tr.notes(sts["global/newagent.md"].ID) {
		t.Errorf("the new agent judged beside a call was journaled: %+v", n)
	}
}

// A BLOCKed custom agent that takes a built-in's name ("Explore") is the
// one the client runs as the main agent: calls made as it are denied too
// (review finding: built-in names were skipped).
func TestACallMadeAsABlockedAgentNamedLikeABuiltInIsDenied(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "agents", "shadow.md"), "---\nname: Explore\n---\nbad\n")
	sts := tr.deliver()
	tr.record(sts["global/shadow.md"], verdict.Block)
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "agent_type": "Explore", "cwd": tr.project,
		"tool_input": map[string]any{"command": "ls"}})
	var located int
	if r := Handle(context.Background(), hookio.EventPreToolUse, b, tr.hook(&located)); r.Answer != Deny || !strings.Contains(r.Reason, "BLOCK") {
		t.Fatalf("%+v", r)
	}
}
