//go:build e2e

package e2e

import (
	"os"
	"testing"
)

func TestProbe(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip("probe")
	}
	w := NewWorld(t)
	w.Skill("home/.claude/skills", "hello", "HELLO-BODY-MARKER say hello")
	w.Install()
	m, err := StartModel([]Reply{Skill("hello")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := w.Claude(m, Run{Prompt: "run hello"})
	t.Logf("exit %d\nstdout %s\nstderr %s", r.Exit, r.Stdout, r.Stderr)
	os.WriteFile("/tmp/probe-debug.log", []byte(r.Debug), 0o644)
	for _, q := range m.Requests() {
		os.WriteFile("/tmp/probe-req-"+string(rune('a'+q.Number))+".json", q.Raw, 0o644)
		t.Logf("req %d main=%v agent=%v model=%v len=%d", q.Number, q.Main, q.Agent, q.Body["model"], len(q.Raw))
	}
	t.Logf("errs %v", m.Errors())
	t.Logf("tool results %v", m.ToolResults())
}
