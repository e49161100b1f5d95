package gate

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/shellcmd"
)

func bashUse(cmd string) []byte {
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})
	return b
}

// Issue #31: 150,000 nested $( crashed the hook with a stack dump, even
// under audit. A command past shellcmd's bounds is unknown: it is answered
// as a check that failed, with a short reason that quotes none of it.
func TestABashCommandPastTheBoundsIsAnsweredAsACheckThatFailed(t *testing.T) {
	hostile := "\x1b[2J\u202e"
	lines := []struct{ name, line, bound string }{
		{"the issue's 150,000 $(", "echo " + strings.Repeat("$(", 150_000) + hostile + strings.Repeat(")", 150_000), "is larger than 65536 bytes"},
		{"1,000 $(", "echo " + strings.Repeat("$(", 1000) + hostile + strings.Repeat(")", 1000), "nests deeper than 128"},
		{"a long word", "echo " + hostile + strings.Repeat("a", shellcmd.MaxBytes), "is larger than 65536 bytes"},
		{"2^15 brace words", "ls " + strings.Repeat("{a,b}", 15) + " " + hostile, "expands past what skillwire reads"},
	}
	for _, l := range lines {
		for _, tc := range []struct {
			policy Policy
			want   Answer
			says   string
		}{
			{Audit, None, "policy audit answers nothing"},
			{Balanced, Ask, "policy balanced asks"},
			{Strict, Deny, "policy strict denies until it can"},
		} {
			t.Run(tc.policy.String()+"/"+l.name, func(t *testing.T) {
				tr := newTree(t)
				tr.deliver()
				tr.policy(tc.policy)
				var located int
				r := Handle(context.Background(), hookio.EventPreToolUse, bashUse(l.line), tr.hook(&located))
				note := "skillwire gate: could not read the command (the Bash command " + l.bound + "); " + tc.says
				checkResponse(t, r, tc.want, note)
				if tc.want != None && r.Reason != note {
					t.Errorf("reason %q, want %q", r.Reason, note)
				}
				if strings.ContainsAny(string(r.Out)+strings.Join(r.Notes, ""), "\x1b\u202e") {
					t.Errorf("the command's bytes got out: %q %q", r.Out, r.Notes)
				}
			})
		}
	}
}

// A command past the bounds may be a decision. In a steered project it is
// denied, and with no store to read the policy from it is denied too.
func TestAnUnreadBashCommandIsDeniedWhenSteeredOrUnlocated(t *testing.T) {
	deep := strings.Repeat("(", 1000) + "x"
	tr := newTree(t)
	tr.write(filepath.Join(tr.project, ".claude", "settings.local.json"), `{"env":{"SKILLWIRE_STATE_DIR":"/tmp/fresh"}}`)
	var located int
	if r := Handle(context.Background(), hookio.EventPreToolUse, bashUse(deep), tr.hook(&located)); r.Answer != Deny || located != 0 {
		t.Errorf("steered: %+v, located %d", r, located)
	}
	h := HookEnv{Claude: newTree(t).claudeEnv(), For: func(string) (Env, error) { return Env{}, errors.New("SKILLWIRE_STATE_DIR is relative") }}
	r := Handle(context.Background(), hookio.EventPreToolUse, bashUse(deep), h)
	checkResponse(t, r, Deny, "could not read the command (the Bash command nests deeper than 128); policy strict denies")
}

// The command is read within the hook's deadline. A read still running at
// the deadline, or one that panics, is answered by policy: never allowed
// by silence under strict.
func TestABashCommandUnreadByTheDeadlineIsAnsweredByPolicy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		name     string
		decision func(string) (string, bool, error)
		policy   Policy
		want     Answer
		note     string
	}{
		{"late", func(string) (string, bool, error) { <-release; return "", false, nil }, Strict, Deny, "could not judge in time (its deadline passed); policy strict denies"},
		{"late", func(string) (string, bool, error) { <-release; return "", false, nil }, Balanced, Ask, "could not judge in time (its deadline passed); policy balanced asks"},
		{"late", func(string) (string, bool, error) { <-release; return "", false, nil }, Audit, None, "policy audit answers nothing"},
		{"panicking", func(string) (string, bool, error) { panic("boom") }, Strict, Deny, "could not judge (an internal error); policy strict denies"},
	} {
		t.Run(tc.name+"/"+tc.policy.String(), func(t *testing.T) {
			testHookDecision = tc.decision
			defer func() { testHookDecision = nil }()
			tr := newTree(t)
			tr.deliver()
			tr.policy(tc.policy)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			var located int
			r := Handle(ctx, hookio.EventPreToolUse, bashUse("go test ./..."), tr.hook(&located))
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("answered after %v", d)
			}
			checkResponse(t, r, tc.want, tc.note)
		})
	}
}

// Issue #34: a Bash command that records no decision is answered before
// the gate locates anything. No settings are read, no store is opened, no
// candidate is discovered (For is never called). The control: a decision
// is located, then asked.
func TestABashCommandThatDecidesNothingLocatesNothing(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.policy(Strict)
	located := 0
	h := tr.hook(&located)
	for _, cmd := range []string{"ls -la && git status", "go test ./...", "skillwire status", "cat $(ls) | grep -v skillwire"} {
		b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": tr.project, "tool_input": map[string]any{"command": cmd}})
		if r := Handle(context.Background(), hookio.EventPreToolUse, b, h); r.Out != nil || r.Notes != nil || located != 0 {
			t.Errorf("%q: %+v, located %d times, want nothing and never", cmd, r, located)
		}
	}
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": tr.project, "tool_input": map[string]any{"command": "skillwire trust add ci"}})
	if r := Handle(context.Background(), hookio.EventPreToolUse, b, h); r.Answer != Ask || located != 1 {
		t.Errorf("the control: %+v, located %d times, want an ask after locating once", r, located)
	}
}
