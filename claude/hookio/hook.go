package hookio

import (
	"encoding/json"
	"io"
	"strings"
	"time"
)

// Input is the part of a hook's stdin JSON skillwire reads.
type Input struct {
	Cwd     string `json:"cwd"`
	Source  string `json:"source"` // startup, resume, clear, compact
	Session string `json:"session_id"`
}

// MaxInput bounds how much of stdin a hook reads; the rest is ignored.
const MaxInput = 1 << 20

// ReadInput reads the hook's stdin within wait. Empty, huge or malformed
// input is the zero Input. A stdin that never closes is tolerated too. A
// cwd that is not absolute is dropped.
func ReadInput(r io.Reader, wait time.Duration) Input {
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, MaxInput))
		got <- b
	}()
	var b []byte
	select {
	case b = <-got:
	case <-time.After(wait):
	}
	var in Input
	if json.Unmarshal(b, &in) != nil {
		return Input{}
	}
	if !strings.HasPrefix(in.Cwd, "/") {
		in.Cwd = ""
	}
	return in
}

// SessionStartOutput is the one JSON object a SessionStart hook prints.
// context is added to the session, for the model. notice is the one line
// the client shows the person (systemMessage). It is never sent to the
// model, and left out when "".
func SessionStartOutput(context, notice string) ([]byte, error) {
	var out struct {
		SystemMessage      string `json:"systemMessage,omitempty"`
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	out.HookSpecificOutput.HookEventName = EventSessionStart
	out.HookSpecificOutput.AdditionalContext = context
	out.SystemMessage = notice
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MaxContext is Claude Code's cap on a hook's output strings. skillwire
// stays well under it.
const MaxContext = 10_000

// NoticeOutput is the output of an event that only tells the person:
// {"systemMessage": notice}, nil for no notice. That is the one field of
// DirectoryAdded's output the client reads. A notice past MaxContext is
// refused.
func NoticeOutput(notice string) ([]byte, error) {
	if notice == "" {
		return nil, nil
	}
	if len(notice) > MaxContext {
		return nil, ErrReason
	}
	b, err := json.Marshal(struct {
		SystemMessage string `json:"systemMessage"`
	}{notice})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
