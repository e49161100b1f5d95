// Package hookio reads the JSON a Claude Code hook is given on stdin. It
// renders the JSON the hook answers with. It holds the event names, the
// inputs of the events skillwire hooks, and the outputs of a session start
// and the gate.
package hookio

// The input and output shapes of the hook events the gate answers come
// from three sources.
//   - "Hooks reference", https://code.claude.com/docs/en/hooks. See its
//     sections PreToolUse, UserPromptExpansion, ConfigChange,
//     InstructionsLoaded and "JSON output". The last covers decision/reason,
//     hookSpecificOutput and systemMessage.
//   - The same page's history, mirrored at spybara.com
//     (anthropic/claude-code/history/docs/en). It lists UserPromptExpansion
//     "for slash commands". It lists ConfigChange and InstructionsLoaded as
//     events.
//   - The "Agentic AI Atlas" (atlas-staging.a5c.ai), to cross-check field
//     lists. Its records are hook-surface:claude.user-prompt-expansion,
//     claude.config-change and claude.instructions-loaded.
// Only the fields the gate needs are read. Everything else is ignored.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Errors of reading and rendering hook events.
var (
	ErrEventTooLarge  = errors.New("claude: hook input larger than 1 MiB")
	ErrEventTimeout   = errors.New("claude: hook input did not arrive in time")
	ErrEventMalformed = errors.New("claude: hook input is not the expected JSON object")
	ErrWrongEvent     = errors.New("claude: hook input is for another event")
	ErrNoDecision     = errors.New("claude: a hook answer must ask or deny")
	ErrReason         = errors.New("claude: a hook answer needs a reason of at most MaxContext bytes")
)

// Event names as Claude Code sends them in hook_event_name.
const (
	EventPreToolUse          = "PreToolUse"
	EventPostToolUse         = "PostToolUse"
	EventUserPromptExpansion = "UserPromptExpansion"
	EventConfigChange        = "ConfigChange"
	EventInstructionsLoaded  = "InstructionsLoaded"
	EventDirectoryAdded      = "DirectoryAdded"
	// EventSessionStart is the session's own hook event.
	EventSessionStart = "SessionStart"
)

// ReadEvent reads one hook's stdin within wait. Unlike ReadInput it
// refuses rather than truncates: a gate must not judge half an input.
func ReadEvent(r io.Reader, wait time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
		got <- result{b, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case res := <-got:
		if res.err != nil {
			return nil, fmt.Errorf("claude: reading hook input: %w", res.err)
		}
		if len(res.b) > MaxInput {
			return nil, ErrEventTooLarge
		}
		return res.b, nil
	case <-timer.C:
		return nil, ErrEventTimeout
	}
}

// ToolUse is what the gate reads of a PreToolUse input.
type ToolUse struct {
	// Tool is tool_name as sent: "Skill" or "Agent" ("Task" before Claude
	// Code renamed it). Any other tool is not a candidate.
	Tool string
	// Name is tool_input.skill for Skill, tool_input.subagent_type for
	// Agent/Task. It is attacker-controlled text, gated before any use.
	Name string
	// Command is a Bash call's tool_input.command: the model's text. The
	// gate reads it for skillwire's own decision commands, never shows it.
	Command string
	Cwd     string
	// ToolUseID and Session are tool_use_id and session_id. They bind an
	// ask at PreToolUse to the PostToolUse of the same call. Prompt is
	// prompt_id (OpenTelemetry's prompt.id), for the fleet's events.
	ToolUseID, Session, Prompt string
	// AgentType is agent_type: the agent the calling session or subagent
	// runs as. A settings "agent" makes it the main session's.
	AgentType string
	// Script and ScriptPath are a Workflow call's tool_input.script and
	// scriptPath; Name is its name. All are attacker text, never shown
	// unquoted.
	Script, ScriptPath string
	// Path is a Read, Edit or Write call's tool_input.file_path. Its touch
	// makes the client read the nested skills folders above it.
	Path string
}

// Tool names of PreToolUse that can name a candidate.
const (
	ToolSkill = "Skill"
	ToolAgent = "Agent"
	ToolTask  = "Task"
	ToolBash  = "Bash"
	// ToolWorkflow runs a workflow script. It is one of a folder's by its
	// meta.name, one from a file (scriptPath) or the call's own (script).
	ToolWorkflow = "Workflow"
	// ToolRead, ToolEdit and ToolWrite touch a file (Path).
	ToolRead  = "Read"
	ToolEdit  = "Edit"
	ToolWrite = "Write"
)

// ParsePreToolUse reads a PreToolUse input.
func ParsePreToolUse(b []byte) (ToolUse, error) { return parseToolUse(b, EventPreToolUse) }

// ParsePostToolUse reads a PostToolUse input as ParsePreToolUse does: the
// tool call that ran.
func ParsePostToolUse(b []byte) (ToolUse, error) { return parseToolUse(b, EventPostToolUse) }

func parseToolUse(b []byte, event string) (ToolUse, error) {
	f, cwd, err := parseEvent(b, event)
	if err != nil {
		return ToolUse{}, err
	}
	u := ToolUse{Cwd: cwd}
	if u.Tool, err = f.str("tool_name"); err != nil {
		return ToolUse{}, err
	}
	if u.ToolUseID, err = f.str("tool_use_id"); err != nil {
		return ToolUse{}, err
	}
	if u.Session, err = f.str("session_id"); err != nil {
		return ToolUse{}, err
	}
	if u.Prompt, err = f.str("prompt_id"); err != nil {
		return ToolUse{}, err
	}
	if u.AgentType, err = f.str("agent_type"); err != nil {
		return ToolUse{}, err
	}
	key := ""
	switch u.Tool {
	case ToolSkill:
		key = "skill"
	case ToolAgent, ToolTask:
		key = "subagent_type"
	case ToolBash:
		key = "command"
	case ToolWorkflow:
		key = "name"
	case ToolRead, ToolEdit, ToolWrite:
		key = "file_path"
	default:
		return u, nil
	}
	input, err := f.obj("tool_input")
	if err != nil {
		return ToolUse{}, err
	}
	if u.Tool == ToolWorkflow {
		if u.Script, err = input.str("script"); err != nil {
			return ToolUse{}, err
		}
		if u.ScriptPath, err = input.str("scriptPath"); err != nil {
			return ToolUse{}, err
		}
	}
	v, err := input.str(key)
	if err != nil {
		return ToolUse{}, err
	}
	switch u.Tool {
	case ToolBash:
		u.Command = v
	case ToolRead, ToolEdit, ToolWrite:
		u.Path = v
	default:
		u.Name = v
	}
	return u, nil
}

// Expansion is what the gate reads of a UserPromptExpansion input: the
// command the person typed.
type Expansion struct {
	// Type is expansion_type: "slash_command" or "mcp_prompt".
	Type string
	// Name is command_name without one leading "/". The reference does not
	// say whether the slash is included, so both spellings are accepted.
	Name string
	// Source is command_source: "skill", "plugin", "builtin" or "mcp".
	Source string
	// Session is session_id: the session whose added folders apply.
	Session string
	Cwd     string
}

// ParseUserPromptExpansion reads a UserPromptExpansion input.
func ParseUserPromptExpansion(b []byte) (Expansion, error) {
	f, cwd, err := parseEvent(b, EventUserPromptExpansion)
	if err != nil {
		return Expansion{}, err
	}
	e := Expansion{Cwd: cwd}
	if e.Type, err = f.str("expansion_type"); err != nil {
		return Expansion{}, err
	}
	if e.Name, err = f.str("command_name"); err != nil {
		return Expansion{}, err
	}
	e.Name = strings.TrimPrefix(e.Name, "/")
	if e.Source, err = f.str("command_source"); err != nil {
		return Expansion{}, err
	}
	if e.Session, err = f.str("session_id"); err != nil {
		return Expansion{}, err
	}
	return e, nil
}

// ConfigChange is what the gate reads of a ConfigChange input.
type ConfigChange struct {
	// Source is one of the Source* values, or anything else as sent.
	Source string
	// Path is file_path when absolute, else "". Never cleaned or followed.
	Path string
	Cwd  string
	// Session is session_id: a reload of a skill is kept for it.
	Session string
}

// ConfigChange sources as the reference lists them (also the matcher values).
const (
	SourceUserSettings    = "user_settings"
	SourceProjectSettings = "project_settings"
	SourceLocalSettings   = "local_settings"
	SourcePolicySettings  = "policy_settings"
	SourceSkills          = "skills"
)

// Blockable reports whether Claude Code honours a block of this change.
// A change to policy (managed) settings always takes effect.
func (c ConfigChange) Blockable() bool { return c.Source != SourcePolicySettings }

// ParseConfigChange reads a ConfigChange input.
func ParseConfigChange(b []byte) (ConfigChange, error) {
	f, cwd, err := parseEvent(b, EventConfigChange)
	if err != nil {
		return ConfigChange{}, err
	}
	c := ConfigChange{Cwd: cwd}
	if c.Source, err = f.str("source"); err != nil {
		return ConfigChange{}, err
	}
	if c.Path, err = f.str("file_path"); err != nil {
		return ConfigChange{}, err
	}
	if c.Session, err = f.str("session_id"); err != nil {
		return ConfigChange{}, err
	}
	c.Path = absolute(c.Path)
	return c, nil
}

// InstructionsLoad is what the gate records of an InstructionsLoaded input.
type InstructionsLoad struct {
	// Path is file_path when absolute, else "". Never cleaned or followed.
	Path string
	// MemoryType is "User", "Project", "Local" or "Managed".
	MemoryType string
	// Reason is load_reason: "session_start", "nested_traversal",
	// "path_glob_match", "include" or "compact".
	Reason string
	Cwd    string
	// Session is session_id: the folders /add-dir added to it are read
	// where the client reads them.
	Session string
}

// ParseInstructionsLoaded reads an InstructionsLoaded input. The event
// cannot block, so it has no output.
func ParseInstructionsLoaded(b []byte) (InstructionsLoad, error) {
	f, cwd, err := parseEvent(b, EventInstructionsLoaded)
	if err != nil {
		return InstructionsLoad{}, err
	}
	l := InstructionsLoad{Cwd: cwd}
	if l.Path, err = f.str("file_path"); err != nil {
		return InstructionsLoad{}, err
	}
	l.Path = absolute(l.Path)
	if l.MemoryType, err = f.str("memory_type"); err != nil {
		return InstructionsLoad{}, err
	}
	if l.Reason, err = f.str("load_reason"); err != nil {
		return InstructionsLoad{}, err
	}
	if l.Session, err = f.str("session_id"); err != nil {
		return InstructionsLoad{}, err
	}
	return l, nil
}

// DirectoryAdd is a DirectoryAdded input, with the folder's absolute path.
// Claude Code 2.1.328 fires it when a folder is added mid-session. That is
// /add-dir (source "slash_command") or an SDK's register_repo_root.
type DirectoryAdd struct {
	// Directory is directory as sent, never cleaned; "" when missing.
	Directory       string
	Source, Session string
	Cwd             string
}

// ParseDirectoryAdded reads a DirectoryAdded input. The event cannot block:
// the client reads only systemMessage of its output.
func ParseDirectoryAdded(b []byte) (DirectoryAdd, error) {
	f, cwd, err := parseEvent(b, EventDirectoryAdded)
	if err != nil {
		return DirectoryAdd{}, err
	}
	d := DirectoryAdd{Cwd: cwd}
	for _, v := range []struct {
		key string
		to  *string
	}{{"directory", &d.Directory}, {"source", &d.Source}, {"session_id", &d.Session}} {
		if *v.to, err = f.str(v.key); err != nil {
			return DirectoryAdd{}, err
		}
	}
	return d, nil
}

// fields is one JSON object by exact key. encoding/json matches struct tags
// case-insensitively. So {"skill":"a","SKILL":"b"} would read "b" where
// Claude Code reads "a". A map keeps keys exact. The last duplicate wins,
// as in JavaScript.
type fields map[string]json.RawMessage

// parseEvent refuses what is not one JSON object. It refuses an input that
// names another event. An input without hook_event_name is taken as the
// event the hook was installed for. It returns the object and its cwd when
// absolute.
func parseEvent(b []byte, event string) (fields, string, error) {
	f, err := parseObject(b)
	if err != nil {
		return nil, "", err
	}
	name, err := f.str("hook_event_name")
	if err != nil {
		return nil, "", err
	}
	if name != "" && name != event {
		return nil, "", ErrWrongEvent
	}
	cwd, err := f.str("cwd")
	if err != nil {
		return nil, "", err
	}
	return f, absolute(cwd), nil
}

func parseObject(b []byte) (fields, error) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return nil, ErrEventMalformed
	}
	var f fields
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEventMalformed, err)
	}
	return f, nil
}

// str is the string at key; missing or null is "", another type an error.
func (f fields) str(key string) (string, error) {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: %s is not a string", ErrEventMalformed, key)
	}
	return s, nil
}

// obj is the object at key; missing or null is empty, another type an error.
func (f fields) obj(key string) (fields, error) {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return fields{}, nil
	}
	return parseObject(raw)
}

func absolute(p string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// Decision is a hook answer the gate gives. There is deliberately no allow.
// Allow would skip the person's own permission prompt.
type Decision uint8

const (
	Ask Decision = iota + 1
	Deny
)

func (d Decision) String() string {
	switch d {
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// PreToolUseOutput renders a PreToolUse answer:
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":
// "ask"|"deny","permissionDecisionReason":reason}}. An ask's reason is shown
// to the person in the prompt. A deny's is shown to the model.
func PreToolUseOutput(d Decision, reason string) ([]byte, error) {
	if err := check(d, reason); err != nil {
		return nil, err
	}
	return line(jsonObject(
		"hookSpecificOutput", jsonObject(
			"hookEventName", EventPreToolUse,
			"permissionDecision", d.String(),
			"permissionDecisionReason", reason))), nil
}

// UserPromptExpansionOutput renders a UserPromptExpansion answer. Deny is
// the top-level {"decision":"block","reason":reason}, which stops the
// expansion. Ask has no counterpart in this event. So the finding is added
// as hookSpecificOutput.additionalContext for the model. It is also the
// common systemMessage, which the person who typed the command sees.
func UserPromptExpansionOutput(d Decision, reason string) ([]byte, error) {
	if err := check(d, reason); err != nil {
		return nil, err
	}
	if d == Deny {
		return line(jsonObject("decision", "block", "reason", reason)), nil
	}
	return line(jsonObject(
		"systemMessage", reason,
		"hookSpecificOutput", jsonObject(
			"hookEventName", EventUserPromptExpansion,
			"additionalContext", reason))), nil
}

// ConfigChangeOutput renders a ConfigChange answer: the top-level
// {"decision":"block","reason":reason}. The event has no ask. A change it
// lets through is in effect at once, so ask blocks too. That is the
// conservative reading. The reason names the finding either way.
func ConfigChangeOutput(d Decision, reason string) ([]byte, error) {
	if err := check(d, reason); err != nil {
		return nil, err
	}
	return line(jsonObject("decision", "block", "reason", reason)), nil
}

func check(d Decision, reason string) error {
	if d != Ask && d != Deny {
		return ErrNoDecision
	}
	if reason == "" || len(reason) > MaxContext {
		return ErrReason
	}
	return nil
}

func line(b []byte) []byte { return append(b, '\n') }

// jsonObject renders a JSON object from key, value pairs in order. A value
// is a string or a nested object. The result is printable ASCII.
func jsonObject(kv ...any) []byte {
	var b []byte
	b = append(b, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendASCIIString(b, kv[i].(string))
		b = append(b, ':')
		switch v := kv[i+1].(type) {
		case string:
			b = appendASCIIString(b, v)
		case []byte:
			b = append(b, v...)
		}
	}
	return append(b, '}')
}

// appendASCIIString quotes s as a JSON string in printable ASCII only.
// Every other rune is \uXXXX, a surrogate pair above U+FFFF. Every invalid
// byte is \ufffd. So no raw byte of an attacker's name reaches a terminal
// or a log, even if a reason were ever built from one.
func appendASCIIString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		case r > 0xffff:
			r -= 0x10000
			b = u(b, 0xd800+(r>>10))
			b = u(b, 0xdc00+(r&0x3ff))
		default: // controls, DEL, non-ASCII, and RuneError for invalid bytes
			b = u(b, r)
		}
	}
	return append(b, '"')
}
