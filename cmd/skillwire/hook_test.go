package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/skillwire/skillwire/session"
)

// decodeOne requires out to be exactly one SessionStart object and returns
// its additionalContext.
func decodeOne(t *testing.T, out []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout: %q", out)
	}
	if v.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("event %q", v.HookSpecificOutput.HookEventName)
	}
	return v.HookSpecificOutput.AdditionalContext
}

func TestHookAlwaysAnswersWithinItsDeadline(t *testing.T) {
	stdin, w := io.Pipe() // never closed: a stdin that never ends
	var out bytes.Buffer
	dir := t.TempDir()
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir, "SKILLWIRE_STATE_DIR": dir + "/state", "CLAUDE_PROJECT_DIR": dir}
	s := &streams{in: stdin, out: &out, err: io.Discard, getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	start := time.Now()
	worker := runSessionStart(context.Background(), s, 50*time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	if got := decodeOne(t, out.Bytes()); got != session.TextDeadline {
		t.Fatalf("advisory %q", got)
	}
	// The late worker may not write a second object; let it finish before
	// the temporary directory goes.
	w.Close()
	<-worker
	if got := decodeOne(t, out.Bytes()); got != session.TextDeadline {
		t.Fatalf("after the worker: %q", out.Bytes())
	}
}

func TestHookPanicDegradesToOneAdvisoryLine(t *testing.T) {
	var out bytes.Buffer
	s := &streams{in: bytes.NewReader(nil), out: &out, err: io.Discard,
		getenv: func(string) (string, bool) { panic("injected") }}
	runSessionStart(context.Background(), s, 5*time.Second)
	if got := decodeOne(t, out.Bytes()); got != session.TextIncomplete {
		t.Fatalf("advisory %q", got)
	}
}
