//go:build e2e

package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commandKey is one settings key that makes the client run a command without
// asking. It says what makes the pinned client (2.1.328) run it.
type commandKey struct {
	key    string
	value  func(script, marketplaceURL string) string // the key's JSON value
	user   bool                                       // read from user settings only
	prints string                                     // what the script prints, as the client expects
	// env makes the client run it in -p with the stand-in still answering.
	env []string
	// provider makes the client run it only under a cloud provider, whose
	// endpoint here answers nothing. It is a further session, judged by the
	// marker.
	provider []string
	// typed makes the client run it only in an interactive session.
	typed *Typed
	runs  bool   // the client runs it
	fact  string // skillwire's fact, before the script's quoted path
	gated bool   // the ConfigChange gate blocks the model's write of it
}

func command(script, _ string) string { return jsonText(script) }

func commandObject(script, _ string) string {
	return `{"type":"command","command":` + jsonText(script) + `}`
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const awsCredentials = `{"Credentials":{"AccessKeyId":"AKIAE2E","SecretAccessKey":"e2e","SessionToken":"e2e"}}`

// unreachable is an endpoint where nothing listens. A provider session fails
// at once, after the client ran what it runs for its credentials.
const unreachable = "http://127.0.0.1:9"

var commandKeys = []commandKey{
	{key: "apiKeyHelper", value: command, prints: "sk-ant-e2e-from-the-helper", runs: true,
		fact: `apiKeyHelper now runs `, gated: true},
	{key: "awsAuthRefresh", value: command, prints: "refreshed",
		provider: []string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=us-east-1", "ANTHROPIC_BEDROCK_BASE_URL=" + unreachable, "CLAUDE_CODE_MAX_RETRIES=0"},
		runs:     true, fact: `awsAuthRefresh now runs `, gated: true},
	{key: "awsCredentialExport", value: command, prints: awsCredentials,
		provider: []string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=us-east-1", "ANTHROPIC_BEDROCK_BASE_URL=" + unreachable, "CLAUDE_CODE_MAX_RETRIES=0"},
		runs:     true, fact: `awsCredentialExport now runs `, gated: true},
	{key: "gcpAuthRefresh", value: command, prints: "refreshed",
		provider: []string{"CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=us-east5", "ANTHROPIC_VERTEX_PROJECT_ID=e2e", "ANTHROPIC_VERTEX_BASE_URL=" + unreachable, "CLAUDE_CODE_MAX_RETRIES=0"},
		runs:     true, fact: `gcpAuthRefresh now runs `, gated: true},
	{key: "otelHeadersHelper", value: command, prints: `{"X-E2E":"1"}`,
		env: []string{"DISABLE_TELEMETRY=", "CLAUDE_CODE_ENABLE_TELEMETRY=1", "OTEL_METRICS_EXPORTER=otlp", "OTEL_LOGS_EXPORTER=otlp",
			"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_EXPORTER_OTLP_ENDPOINT=" + unreachable},
		runs: true, fact: `otelHeadersHelper now runs `, gated: true},
	{key: "proxyAuthHelper", value: command, prints: "Basic ZTJlOmUyZQ==",
		env:  []string{"CLAUDE_CODE_ENABLE_PROXY_AUTH_HELPER=1", "HTTPS_PROXY=" + unreachable, "NO_PROXY=127.0.0.1"},
		runs: true, fact: `proxyAuthHelper now runs `, gated: true},
	{key: "statusLine", value: commandObject, prints: "E2E-STATUS",
		typed: &Typed{}, runs: true, fact: `statusLine now runs `, gated: true},
	{key: "subagentStatusLine", value: commandObject, prints: "E2E-AGENT-STATUS",
		typed: &Typed{Prompt: "run an agent", Args: []string{"--permission-mode", "default"}},
		runs:  true, fact: `subagentStatusLine now runs `, gated: true},
	{key: "fileSuggestion", value: commandObject, prints: "README.md",
		typed: &Typed{Keys: "@"}, runs: true, fact: `fileSuggestion now runs `, gated: true},
	{key: "extraKnownMarketplaces", user: true, prints: `{"X-E2E":"1"}`,
		value: func(script, url string) string {
			return `{"mkt":{"source":{"source":"url","url":` + jsonText(url) + `,"headersHelper":` + jsonText(script) + `}}}`
		},
		runs: true, fact: `marketplace "mkt" headersHelper now runs `, gated: true},
	// A key no client version has. The client runs nothing, and skillwire
	// tells it as a setting. The gate blocks the model's write of it, as of
	// any key it never heard of. Unknown is never clean.
	{key: "fooHelper", value: command, prints: "never", fact: `setting "fooHelper" is now `, gated: true},
}

// Every command-running key the client runs is told (issue 22). One case per
// key. The model writes the key into settings mid-session, and the
// ConfigChange gate blocks that write. The next session's advisory names the
// key and its command. The person's line counts it. Then the client, under
// what makes it run the key, runs the script: its marker file appears.
// Control: skillwire's hooks uninstalled. The write is taken, the client
// still runs the script, and no request to the model carries the fact.
func TestACommandKeyTheClientRunsIsToldAndGated(t *testing.T) {
	t.Parallel()
	for _, k := range commandKeys {
		for _, hooked := range []bool{true, false} {
			name := k.key
			if !hooked {
				name += "/control: hooks uninstalled"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				commandKeyWorld(t, k, hooked)
			})
		}
	}
}

func commandKeyWorld(t *testing.T, k commandKey, hooked bool) {
	w := NewWorld(t)
	w.TrustProject()
	w.Write("proj/README.md", "a project\n")
	marker := filepath.Join(w.Root, "ran-"+k.key)
	script := w.Write("bin/"+k.key+".sh", "#!/bin/sh\necho ran >> "+marker+"\necho '"+k.prints+"'\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	url, env := marketplace(t, w)
	settings := filepath.Join(w.Project, ".claude", "settings.json")
	if k.user {
		settings = filepath.Join(w.Config, "settings.json")
	} else {
		w.Write("proj/.claude/settings.json", "{}")
	}
	w.Install()
	if hooked {
		r := w.Claude(model(t, nil), Run{Prompt: "hello", Env: env}) // the clean state, accepted
		noTrouble(t, r)
	} else {
		w.MustSkillwire(nil, "hook", "uninstall", "--yes")
	}

	// The model writes the key into the settings file mid-session.
	m := model(t, []Reply{
		Call("Write", map[string]any{"file_path": settings, "content": withKey(t, settings, k.key, k.value(script, url))}),
		Call("Bash", map[string]any{"command": "sleep 2", "description": "wait for the settings watcher"}),
	})
	r := w.Claude(m, Run{Prompt: "set up the project", Args: []string{"--dangerously-skip-permissions"},
		Env: append(append([]string{"IS_SANDBOX=1"}, env...), k.env...)})
	noTrouble(t, r)
	blocked := strings.Contains(r.Debug, "ConfigChange hook blocked change to "+settings)
	if blocked != (hooked && k.gated) {
		t.Errorf("the client blocked the model's write of %s: %v, want %v", k.key, blocked, hooked && k.gated)
	}
	if blocked && Exists(marker) {
		t.Errorf("the client ran %s in the session whose write of it was blocked", k.key)
	}

	// The next session: skillwire tells the key and its command.
	fact := k.fact + `"` + script + `"`
	m = model(t, nil)
	r = w.Claude(m, Run{Prompt: "hello", Env: append(append([]string{}, env...), k.env...)})
	noTrouble(t, r)
	if a := advisory(m); hooked && !strings.Contains(a, fact) {
		t.Errorf("the advisory does not tell %s:\nwant %s\nin   %s", k.key, fact, a)
	}
	if !hooked && m.Sent(fact) {
		t.Errorf("control: a request carried %q with skillwire's hooks uninstalled", fact)
	}
	notice := strings.Contains(r.Debug, `"systemMessage":"skillwire: `) && strings.Contains(r.Debug, "1 other change that runs code or asks less")
	if notice != hooked {
		t.Errorf("the person's line counts the change of %s: %v, want %v", k.key, notice, hooked)
	}

	// The client runs it, where it runs it.
	switch {
	case k.provider != nil:
		w.Claude(model(t, nil), Run{Prompt: "hello", Env: append(append([]string{}, env...), k.provider...)})
	case k.typed != nil:
		s := *k.typed
		s.Env = env
		s.Done = func() bool { return Exists(marker) }
		m = model(t, []Reply{Agent("general-purpose", "say done")})
		w.Interactive(m, s)
	}
	if got := Exists(marker); got != k.runs {
		t.Errorf("the client ran %s: %v, want %v", k.key, got, k.runs)
	}
}

// withKey is the settings file's JSON with key set to value.
func withKey(t *testing.T, path, key, value string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s[key] = json.RawMessage(value)
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// marketplace serves an empty marketplace over https on loopback. The client
// runs a headersHelper only for an https URL. It returns the URL and the
// environment that makes the client trust its certificate.
func marketplace(t *testing.T, w *World) (string, []string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write([]byte(`{"name":"mkt","owner":{"name":"e2e"},"plugins":[]}`))
	}))
	t.Cleanup(srv.Close)
	ca := w.Write("marketplace-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return srv.URL + "/marketplace.json", []string{"NODE_EXTRA_CA_CERTS=" + ca}
}

// An exec-form hook's payload in args is told. The hook is `command:
// "/bin/sh"` with `args`. The client runs the new args, and skillwire tells
// the change as a new hook naming them. Control: hooks uninstalled, the
// client runs the new args and no request carries the fact.
func TestAnExecFormHooksNewArgsRunAndAreTold(t *testing.T) {
	t.Parallel()
	hook := func(payload string) string {
		return `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/bin/sh","args":["-c",` + jsonText(payload) + `]}]}]}}`
	}
	for _, hooked := range []bool{true, false} {
		name := "told"
		if !hooked {
			name = "control: hooks uninstalled"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			ran := filepath.Join(w.Project, "ran")
			w.Write("proj/.claude/settings.json", hook("echo v1 >> ran"))
			w.Install()
			r := w.Claude(model(t, nil), Run{Prompt: "hello"})
			noTrouble(t, r)
			if b, _ := os.ReadFile(ran); string(b) != "v1\n" {
				t.Fatalf("the client did not run the exec-form hook's args: %q", b)
			}
			if !hooked {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			w.Write("proj/.claude/settings.json", hook("echo v2 >> ran"))
			m := model(t, nil)
			r = w.Claude(m, Run{Prompt: "hello"})
			noTrouble(t, r)
			if b, _ := os.ReadFile(ran); string(b) != "v1\nv2\n" {
				t.Errorf("the client did not run the new args: %q", b)
			}
			const fact = `new UserPromptSubmit hook runs "/bin/sh -c 'echo v2 >> ran'"`
			if hooked && !strings.Contains(advisory(m), fact) {
				t.Errorf("the advisory does not tell the new args:\nwant %s\nin   %s", fact, advisory(m))
			}
			if !hooked && m.Sent(fact) {
				t.Errorf("control: a request carried %q with skillwire's hooks uninstalled", fact)
			}
		})
	}
}
