package managed

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadTakesOnlyAWholeTrustedFileOfTheKnownKeys(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		mode       os.FileMode
		ok         bool
		want       Config
	}{
		{"policy and events", `{"gate_policy":"strict","events":{"otlp":true,"endpoint":"https://c.example:4318/v1/logs","headers":{"k":"v"}}}`, 0o644, true,
			Config{GatePolicy: "strict", Events: Events{OTLP: true, Endpoint: "https://c.example:4318/v1/logs", Headers: map[string]string{"k": "v"}}}},
		{"empty object", `{}`, 0o644, true, Config{}},
		{"an unknown key is refused, never ignored", `{"gate_policy":"strict","gate_polcy":"audit"}`, 0o644, false, Config{}},
		{"a policy that is none", `{"gate_policy":"allow"}`, 0o644, false, Config{}},
		{"two values", `{} {}`, 0o644, false, Config{}},
		{"not JSON", `gate_policy: strict`, 0o644, false, Config{}},
		{"writable by others", `{"gate_policy":"audit"}`, 0o666, false, Config{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, File)
			if err := os.WriteFile(p, []byte(tc.body), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			c, err := Read(dir)
			if (err == nil) != tc.ok || tc.ok && (c.GatePolicy != tc.want.GatePolicy || c.Events.OTLP != tc.want.Events.OTLP || c.Events.Endpoint != tc.want.Events.Endpoint) {
				t.Fatalf("%+v, %v", c, err)
			}
			if !tc.ok && (!errors.Is(err, ErrConfig) || Policy(c, err) != "strict") {
				t.Fatalf("a file that cannot be read must answer as strict: %q, %v", Policy(c, err), err)
			}
		})
	}
}

func TestAMissingFileOrALinkIsNeverTrusted(t *testing.T) {
	dir := t.TempDir()
	if c, err := Read(dir); err != nil || Policy(c, err) != "" {
		t.Fatalf("missing: %+v %v", c, err)
	}
	if c, err := Read(""); err != nil || Policy(c, err) != "" {
		t.Fatalf("no managed dir: %+v %v", c, err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(target, []byte(`{"gate_policy":"audit"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}
	if c, err := Read(dir); err == nil || Policy(c, err) != "strict" {
		t.Fatalf("a link was followed: %+v %v", c, err)
	}
}

// What encoding/json takes too loosely is refused. So a file an
// administrator meant strict is never read weaker (second review).
func TestNullAndKeysGivenTwiceOrInAnotherCaseAreRefused(t *testing.T) {
	for _, body := range []string{`null`, `{"gate_policy":"strict","GATE_POLICY":"audit"}`, `{"gate_policy":"strict","gate_policy":"audit"}`,
		`{"events":{"otlp":true,"OTLP":false}}`, `{"events":null}`, `[]`} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, File), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if c, err := Read(dir); err == nil || Policy(c, err) != "strict" {
			t.Errorf("%s: %+v, %v", body, c, err)
		}
	}
}

// The client's own managed directory is read whatever else skillwire is
// pointed at. The strictest policy wins, so a user's environment cannot
// switch the administrator's off (second review).
func TestReadAllJoinsTheStrictest(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, File), []byte(`{"gate_policy":"strict","events":{"otlp":true,"endpoint":"https://a.example"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, File), []byte(`{"gate_policy":"audit","events":{"endpoint":"https://b.example"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadAll(a, b, "")
	if err != nil || c.GatePolicy != "strict" || !c.Events.OTLP || c.Events.Endpoint != "https://a.example" {
		t.Fatalf("%+v %v", c, err)
	}
}
