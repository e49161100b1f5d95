// Package e2e drives the real Claude Code client, pinned by version in
// CLAUDE_CODE_VERSION. The client talks to a scripted stand-in for the
// Messages API on loopback. skillwire's hooks are installed exactly as a user
// installs them. `make e2e` runs it, never `go test ./...`. The build tag e2e
// keeps its tests out of the ordinary run.
//
// A case judges only what the client did: the request bodies it sent to the
// model, its debug log, and the result of `claude -p`.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reply is one turn of the stand-in model: text, tool calls, or both.
type Reply struct {
	Text  string
	Tools []ToolCall
}

// ToolCall is one tool_use block the model makes.
type ToolCall struct {
	Name  string
	Input map[string]any
}

// Say is a reply of text alone.
func Say(text string) Reply { return Reply{Text: text} }

// Call is a reply making one tool call.
func Call(name string, input map[string]any) Reply {
	return Reply{Tools: []ToolCall{{Name: name, Input: input}}}
}

// Skill is the model calling the Skill tool.
func Skill(name string) Reply { return Call("Skill", map[string]any{"skill": name}) }

// Agent is the model calling the Agent tool for a custom agent.
func Agent(subagentType, prompt string) Reply {
	return Call("Agent", map[string]any{"description": "run " + subagentType, "prompt": prompt, "subagent_type": subagentType})
}

// Request is one request body the client sent, decoded enough to judge.
type Request struct {
	Raw    []byte
	Body   map[string]any
	Main   bool // the request carried tools: a turn of an agent loop
	Agent  bool // a subagent's loop (its system prompt is not the main one)
	Number int
	At     time.Time // when it arrived
}

// Model is the stand-in. The main loop's requests take the script's replies
// in order. A subagent's requests take the agent script's. Every other
// request (a title, a summary, a quota probe) is answered with short text.
// When a script runs out, the reply is "done." so the loop ends.
type Model struct {
	URL string

	mu       sync.Mutex
	script   []Reply
	agent    []Reply
	requests []Request
	srv      *http.Server
	ln       net.Listener
	errs     []string
}

// StartModel listens on an ephemeral loopback port. Nothing else is ever
// contacted: the client is pointed here with ANTHROPIC_BASE_URL.
func StartModel(script []Reply, agentScript []Reply) (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Model{URL: "http://" + ln.Addr().String(), script: script, agent: agentScript, ln: ln}
	m.srv = &http.Server{Handler: m}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// Close stops the server.
func (m *Model) Close() { _ = m.srv.Close() }

// Requests are every request body received, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Errors are the requests the stand-in could not answer as scripted.
func (m *Model) Errors() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.errs...)
}

// Sent reports whether any request body holds s. It matches s as JSON-encoded
// text, however the client escaped it.
func (m *Model) Sent(s string) bool {
	enc, _ := json.Marshal(s)
	inner := enc[1 : len(enc)-1]
	for _, r := range m.Requests() {
		if bytes.Contains(r.Raw, inner) || bytes.Contains(r.Raw, []byte(s)) {
			return true
		}
	}
	return false
}

// ToolResults are the texts of the tool_result blocks the client sent back
// for the stand-in's tool calls. They are keyed by the tool's name, each
// once: every request repeats the conversation so far.
func (m *Model) ToolResults() map[string][]string {
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, r := range m.Requests() {
		msgs, _ := r.Body["messages"].([]any)
		for _, mm := range msgs {
			msg, _ := mm.(map[string]any)
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				blk, _ := b.(map[string]any)
				id, _ := blk["tool_use_id"].(string)
				if blk["type"] != "tool_result" || seen[id] {
					continue
				}
				seen[id] = true
				out[toolOf(id)] = append(out[toolOf(id)], textOf(blk["content"]))
			}
		}
	}
	return out
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") {
		m.note("unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		m.note("undecodable body: %v", err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	}
	tools, _ := req["tools"].([]any)
	main := len(tools) > 0
	agent := main && isSubagent(req)

	m.mu.Lock()
	n := len(m.requests)
	m.requests = append(m.requests, Request{Raw: body, Body: req, Main: main, Agent: agent, Number: n, At: time.Now()})
	reply := Say("ok.")
	switch {
	case agent:
		reply = Say("done.")
		if len(m.agent) > 0 {
			reply, m.agent = m.agent[0], m.agent[1:]
		}
	case main:
		reply = Say("done.")
		if len(m.script) > 0 {
			reply, m.script = m.script[0], m.script[1:]
		}
	}
	m.mu.Unlock()

	model, _ := req["model"].(string)
	if stream, _ := req["stream"].(bool); stream {
		m.stream(w, n, model, reply)
		return
	}
	writeJSON(w, message(n, model, reply))
}

func (m *Model) note(format string, args ...any) {
	m.mu.Lock()
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

// isSubagent tells a subagent's loop from the main one. The main loop's
// system prompt introduces Claude Code itself and offers the Agent tool. A
// subagent is not offered the Agent tool.
func isSubagent(req map[string]any) bool {
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		if tm, _ := t.(map[string]any); tm["name"] == "Agent" || tm["name"] == "Task" {
			return false
		}
	}
	return true
}

const toolIDPrefix = "toolu_sw"

// toolID names a tool_use block so its result can be traced to the tool.
func toolID(n, i int, name string) string {
	return fmt.Sprintf("%s%d_%d_%s", toolIDPrefix, n, i, name)
}

func toolOf(id string) string {
	if !strings.HasPrefix(id, toolIDPrefix) {
		return ""
	}
	parts := strings.SplitN(id, "_", 4)
	if len(parts) < 4 {
		return ""
	}
	return parts[3]
}

func textOf(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, x := range c {
			if xm, _ := x.(map[string]any); xm != nil {
				if s, ok := xm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

func blocks(n int, r Reply) []map[string]any {
	var out []map[string]any
	if r.Text != "" || len(r.Tools) == 0 {
		out = append(out, map[string]any{"type": "text", "text": r.Text})
	}
	for i, t := range r.Tools {
		out = append(out, map[string]any{"type": "tool_use", "id": toolID(n, i, t.Name), "name": t.Name, "input": t.Input})
	}
	return out
}

func stopReason(r Reply) string {
	if len(r.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func message(n int, model string, r Reply) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_sw%d", n), "type": "message", "role": "assistant", "model": model,
		"content": blocks(n, r), "stop_reason": stopReason(r), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
}

// stream writes the server-sent event sequence of the Messages API.
func (m *Model) stream(w http.ResponseWriter, n int, model string, r Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	start := message(n, model, Reply{})
	start["content"] = []any{}
	start["stop_reason"] = nil
	send("message_start", map[string]any{"message": start})
	for i, blk := range blocks(n, r) {
		switch blk["type"] {
		case "text":
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": blk["text"]}})
		case "tool_use":
			in, _ := json.Marshal(blk["input"])
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": blk["id"], "name": blk["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
