package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/hookio"

	"github.com/skillwire/skillwire/claude/config"
)

const testCommand = "/opt/sw/bin/skillwire hook session-start"

func mustParse(t *testing.T, doc string) *Doc {
	t.Helper()
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%q): %v", doc, err)
	}
	return s
}

func TestParseRefusesWhatIsNotOneObject(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      error
	}{
		{"empty", "", ErrNotJSON},
		{"whitespace", " \n", ErrNotJSON},
		{"array", "[]", ErrNotObject},
		{"string", `"x"`, ErrNotObject},
		{"null", "null", ErrNotObject},
		{"number", "1", ErrNotObject},
		{"unclosed", `{"a": 1`, ErrNotJSON},
		{"trailing comma", `{"a": 1,}`, ErrNotJSON},
		{"missing value", `{"a":}`, ErrNotJSON},
		{"bare key", `{a: 1}`, ErrNotJSON},
		{"comment", "// settings\n{}", ErrNotJSON},
		{"two byte order marks", "\ufeff\ufeff{}", ErrNotJSON},
		{"two objects", `{} {}`, ErrNotJSON},
		{"trailing text", `{"a": 1} x`, ErrNotJSON},
		{"control byte in string", "{\"a\": \"\x1b\"}", ErrNotJSON},
		{"too large", `{"a": "` + strings.Repeat("x", config.MaxJSON) + `"}`, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSettingsErrorsNeverQuoteTheFile(t *testing.T) {
	for _, doc := range []string{"{\"$(whoami)\" x}", "{\"a\": `x`}", "{\"a\": 1} \x1b[2J"} {
		_, err := Parse([]byte(doc))
		if err == nil {
			t.Fatalf("%q parsed", doc)
		}
		if strings.ContainsAny(err.Error(), "$`\x1b") {
			t.Fatalf("error %q quotes the file", err)
		}
	}
}

func TestEncodeKeepsEverythingButWhitespace(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", `{}`, "{}\n"},
		{"empty containers", `{"a":{},"b":[ ]}`, "{\n  \"a\": {},\n  \"b\": []\n}\n"},
		{"key order", `{"z":1,"a":2,"m":3}`, "{\n  \"z\": 1,\n  \"a\": 2,\n  \"m\": 3\n}\n"},
		{"number spellings", `{"a":1.50,"b":1e3,"c":-0,"d":1E+2,"e":100000000000000000000000000001}`,
			"{\n  \"a\": 1.50,\n  \"b\": 1e3,\n  \"c\": -0,\n  \"d\": 1E+2,\n  \"e\": 100000000000000000000000000001\n}\n"},
		{"string escapes", `{"a":"\u00e9\/<&>","\u0062":"\"\\\n"}`,
			"{\n  \"a\": \"\\u00e9\\/<&>\",\n  \"\\u0062\": \"\\\"\\\\\\n\"\n}\n"},
		{"duplicate keys", `{"a":1,"a":2}`, "{\n  \"a\": 1,\n  \"a\": 2\n}\n"},
		{"literals", `{"t":true,"f":false,"n":null}`, "{\n  \"t\": true,\n  \"f\": false,\n  \"n\": null\n}\n"},
		{"nesting", `{"a":[1,[2,{}],{"b":[]}]}`,
			"{\n  \"a\": [\n    1,\n    [\n      2,\n      {}\n    ],\n    {\n      \"b\": []\n    }\n  ]\n}\n"},
		{"invalid UTF-8 kept as bytes", "{\"a\":\"\xff\xfe\"}", "{\n  \"a\": \"\xff\xfe\"\n}\n"},
		{"whitespace around", " \r\n\t{ \"a\" :\t1 } \n", "{\n  \"a\": 1\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(mustParse(t, tc.in).Encode())
			if got != tc.want {
				t.Fatalf("Encode:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestAddSessionStart(t *testing.T) {
	entry := `{"type":"command","command":"` + testCommand + `","timeout":10}`
	for _, tc := range []struct {
		name, in, want string
		added          bool
	}{
		{"empty file", `{}`, `{"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`, true},
		{"hooks last, after other settings", `{"model":"opus","n":1.50}`,
			`{"model":"opus","n":1.50,"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`, true},
		{"other events kept", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`,
			`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}],"SessionStart":[{"hooks":[` + entry + `]}]}}`, true},
		{"appended after other groups", `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"}]}]}}`,
			`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"}]},{"hooks":[` + entry + `]}]}}`, true},
		{"already there", `{"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`, false},
		{"under a wrong matcher, beside others: moved to a group without one", `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"},{"type":"command","command":"` + testCommand + `"}]}]}}`,
			`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"}]},{"hooks":[` + entry + `]}]}}`, true},
		{"under a wrong matcher alone: its group goes, one without a matcher comes", `{"hooks":{"SessionStart":[{"matcher":"resume","hooks":[{"type":"command","command":"` + testCommand + `"}]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`, true},
		{"a matcher that is not a string is wrong", `{"hooks":{"SessionStart":[{"matcher":1,"hooks":[` + entry + `]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[` + entry + `]}]}}`, true},
		{"same text in another field is not the hook", `{"hooks":{"SessionStart":[{"hooks":[{"type":"prompt","command":"` + testCommand + `"}]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[{"type":"prompt","command":"` + testCommand + `"}]},{"hooks":[` + entry + `]}]}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.in)
			added, err := s.AddHook(hookio.EventSessionStart, "", testCommand)
			if err != nil {
				t.Fatal(err)
			}
			if added != tc.added {
				t.Fatalf("added = %v, want %v", added, tc.added)
			}
			if got, want := s.Encode(), mustParse(t, tc.want).Encode(); !bytes.Equal(got, want) {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestRemoveSessionStartRemovesOnlyOurs(t *testing.T) {
	ours := func(c string) string { return `{"type":"command","command":"` + c + `","timeout":10}` }
	other := `{"type":"command","command":"echo hi"}`
	for _, tc := range []struct {
		name, in, want string
		removed        int
	}{
		{"only ours: everything it created goes", `{"a":1,"hooks":{"SessionStart":[{"hooks":[` + ours(testCommand) + `]}]}}`, `{"a":1}`, 1},
		{"older binary path", `{"hooks":{"SessionStart":[{"hooks":[` + ours("/usr/local/bin/skillwire hook session-start") + `]}]},"b":2}`, `{"b":2}`, 1},
		{"quoted path", `{"hooks":{"SessionStart":[{"hooks":[` + ours(`'/home/a b/skillwire' hook session-start`) + `]}]}}`, `{}`, 1},
		{"neighbour in the group stays", `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[` + other + `,` + ours(testCommand) + `]}]}}`,
			`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[` + other + `]}]}}`, 1},
		{"other groups and events stay", `{"hooks":{"Stop":[{"hooks":[` + other + `]}],"SessionStart":[{"hooks":[` + other + `]},{"hooks":[` + ours(testCommand) + `]}]}}`,
			`{"hooks":{"Stop":[{"hooks":[` + other + `]}],"SessionStart":[{"hooks":[` + other + `]}]}}`, 1},
		{"emptied SessionStart goes, other events stay", `{"hooks":{"Stop":[],"SessionStart":[{"hooks":[` + ours(testCommand) + `]}]}}`,
			`{"hooks":{"Stop":[]}}`, 1},
		{"a group that was empty already stays", `{"hooks":{"SessionStart":[{"hooks":[]},{"hooks":[` + ours(testCommand) + `]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[]}]}}`, 1},
		{"two of ours", `{"hooks":{"SessionStart":[{"hooks":[` + ours(testCommand) + `]},{"hooks":[` + ours("/old/skillwire hook session-start") + `]}]}}`, `{}`, 2},
		{"nothing of ours: empty containers untouched", `{"hooks":{"SessionStart":[]}}`, `{"hooks":{"SessionStart":[]}}`, 0},
		{"look-alikes stay", `{"hooks":{"SessionStart":[{"hooks":[` +
			ours("/x/skillwire hook session-start; rm -rf ~") + `,` +
			ours("/x/skillwire-dev hook session-start") + `,` +
			ours("skillwire hook session-start") + `,` +
			ours("'/x/skillwire' hook session-start") + `,` +
			ours("/x/skillwire hook session-start --debug") + `,` +
			`{"type":"prompt","command":"/x/skillwire hook session-start"}` +
			`]}]}}`, "", 0},
		{"other events are never touched", `{"hooks":{"Stop":[{"hooks":[` + ours(testCommand) + `]}]}}`, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.in)
			removed, err := s.RemoveHooks(hookio.EventSessionStart, HookSpecs[0].IsCommand)
			if err != nil {
				t.Fatal(err)
			}
			if len(removed) != tc.removed {
				t.Fatalf("removed %q, want %d", removed, tc.removed)
			}
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if got, want := s.Encode(), mustParse(t, want).Encode(); !bytes.Equal(got, want) {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestSettingsOfUnexpectedShapeAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"hooks not an object", `{"hooks":[]}`},
		{"hooks null", `{"hooks":null}`},
		{"SessionStart not an array", `{"hooks":{"SessionStart":{}}}`},
		{"group not an object", `{"hooks":{"SessionStart":["x"]}}`},
		{"group hooks not an array", `{"hooks":{"SessionStart":[{"hooks":{}}]}}`},
		{"hook not an object", `{"hooks":{"SessionStart":[{"hooks":[1]}]}}`},
		{"duplicate hooks", `{"hooks":{},"hooks":{}}`},
		{"duplicate SessionStart", `{"hooks":{"SessionStart":[],"SessionStart":[]}}`},
		{"duplicate group hooks", `{"hooks":{"SessionStart":[{"hooks":[],"hooks":[]}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.doc)
			before := s.Encode()
			if _, err := s.AddHook(hookio.EventSessionStart, "", testCommand); !errors.Is(err, ErrShape) {
				t.Fatalf("AddHook: %v, want ErrShape", err)
			}
			if _, err := s.RemoveHooks(hookio.EventSessionStart, HookSpecs[0].IsCommand); !errors.Is(err, ErrShape) {
				t.Fatalf("RemoveHooks: %v, want ErrShape", err)
			}
			if !bytes.Equal(s.Encode(), before) {
				t.Fatal("a refused edit changed the document")
			}
		})
	}
}

func TestInstallThenUninstallRestoresTheDocument(t *testing.T) {
	for _, doc := range []string{
		`{}`,
		`{"model":"opus","n":1.50,"big":1e3}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`,
		`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"}]}]},"z":[]}`,
		`{"hooks":{"SessionStart":[{"hooks":[]}]}}`,
	} {
		s := mustParse(t, doc)
		want := s.Encode()
		if added, err := s.AddHook(hookio.EventSessionStart, "", testCommand); err != nil || !added {
			t.Fatalf("%s: AddHook = %v, %v", doc, added, err)
		}
		if removed, err := s.RemoveHooks(hookio.EventSessionStart, HookSpecs[0].IsCommand); err != nil || len(removed) != 1 {
			t.Fatalf("%s: RemoveHooks = %q, %v", doc, removed, err)
		}
		if got := s.Encode(); !bytes.Equal(got, want) {
			t.Fatalf("%s: got\n%s", doc, got)
		}
	}
}

func TestHookCommandQuotesForTheShell(t *testing.T) {
	for _, tc := range []struct{ exe, want string }{
		{"/usr/local/bin/skillwire", "/usr/local/bin/skillwire hook session-start"},
		{"/opt/sw-1.2_x+y/skillwire", "/opt/sw-1.2_x+y/skillwire hook session-start"},
		{"/opt/a~b/skillwire", "'/opt/a~b/skillwire' hook session-start"},
		{"/home/a b/skillwire", "'/home/a b/skillwire' hook session-start"},
		{"/home/it's/skillwire", `'/home/it'\''s/skillwire' hook session-start`},
		{"/tmp/$(whoami)/`id`/skillwire", "'/tmp/$(whoami)/`id`/skillwire' hook session-start"},
		{"/home/josé/skillwire", "'/home/josé/skillwire' hook session-start"},
	} {
		got, err := HookCommand(tc.exe)
		if err != nil || got != tc.want {
			t.Errorf("HookCommand(%q) = %q, %v; want %q", tc.exe, got, err, tc.want)
		}
		if strings.HasSuffix(tc.exe, "/skillwire") && !HookSpecs[0].IsCommand(got) {
			t.Errorf("IsCommand(%q) = false for install's own command", got)
		}
	}
	for _, bad := range []string{"", "skillwire", "./skillwire", "/a/\xff/skillwire"} {
		if _, err := HookCommand(bad); !errors.Is(err, ErrBadExecPath) {
			t.Errorf("HookCommand(%q) = %v, want ErrBadExecPath", bad, err)
		}
	}
}

func TestSessionStartSpecKnowsOnlyInstallsCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"/usr/bin/skillwire hook session-start", true},
		{"'/a b/skillwire' hook session-start", true},
		{`'/it'\''s/skillwire' hook session-start`, true},
		{"/skillwire hook session-start", true},
		{"skillwire hook session-start", false},
		{"~/bin/skillwire hook session-start", false},
		{"/usr/bin/skillwire hook session-start ", false},
		{"/usr/bin/skillwire  hook session-start", false},
		{"/usr/bin/skillwire hook session-start && curl x", false},
		{"/usr/bin/not-skillwire hook session-start", false},
		{"/usr/bin/skillwire.old hook session-start", false},
		{"'/usr/bin/skillwire' hook session-start", false},
		{`"/a b/skillwire" hook session-start`, false},
		{"'/a b/skillwire'x hook session-start", false},
		{"'/a b/skillwire hook session-start", false},
		{"/a;b/skillwire hook session-start", false},
		{"/usr/bin/skillwire hook session-end", false},
	} {
		if got := HookSpecs[0].IsCommand(tc.cmd); got != tc.want {
			t.Errorf("IsCommand(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestHooksDisabled(t *testing.T) {
	for doc, want := range map[string]bool{
		`{}`:                              false,
		`{"disableAllHooks":true}`:        true,
		`{"disableAllHooks":false}`:       false,
		`{"disableAllHooks":"true"}`:      false,
		`{"hooks":{"disableAllHooks":1}}`: false,
	} {
		if got := mustParse(t, doc).HooksDisabled(); got != want {
			t.Errorf("%s: HooksDisabled = %v", doc, got)
		}
	}
}

func equalValue(a, b *value) bool {
	if a.kind != b.kind || !bytes.Equal(a.raw, b.raw) || len(a.members) != len(b.members) || len(a.elems) != len(b.elems) {
		return false
	}
	for i := range a.members {
		ma, mb := a.members[i], b.members[i]
		if !bytes.Equal(ma.key, mb.key) || ma.name != mb.name || !equalValue(ma.val, mb.val) {
			return false
		}
	}
	for i := range a.elems {
		if !equalValue(a.elems[i], b.elems[i]) {
			return false
		}
	}
	return true
}

func semantic(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// FuzzRoundTrip: any JSON object parses. decode→encode→decode is the same
// document, meaning the same to encoding/json. Installing then
// uninstalling the hook restores it. The exception is an original that
// already held a skillwire hook or an empty hooks/SessionStart. Uninstall
// cannot tell those from what one install created.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"model":"opus","n":1.50,"big":1e3,"neg":-0.0e-0}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":5}]}]}}`,
		`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"y"}]}]}}`,
		`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/x/skillwire hook session-start"}]}]}}`,
		`{"a":{"b":[1,[2,[3,{}]]]},"a":"\u00e9\/","\ud83d\ude00":null}`,
		"{\"bad\":\"\xff\"}",
		` { "a" : [ ] , "b" : { } } `,
		`{"hooks":{}}`,
		`[1]`,
		`{"a":1}{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			trimmed := bytes.TrimLeft(data, " \t\r\n")
			if json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{' && len(data) <= config.MaxJSON {
				t.Fatalf("a valid JSON object was refused: %v", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("invalid JSON was accepted")
		}
		enc := s.Encode()
		s2, err := Parse(enc)
		if err != nil {
			t.Fatalf("the encoding does not parse: %v\n%s", err, enc)
		}
		if !equalValue(s.root, s2.root) {
			t.Fatalf("decode→encode→decode changed the document:\n%s", enc)
		}
		if !bytes.Equal(s2.Encode(), enc) {
			t.Fatal("encoding is not stable")
		}
		if !reflect.DeepEqual(semantic(t, data), semantic(t, enc)) {
			t.Fatalf("the encoding means something else:\n%s", enc)
		}

		cmds, err := s.Commands(hookio.EventSessionStart)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if HookSpecs[0].IsCommand(c) {
				return
			}
		}
		if h := s.root.lookup("hooks"); h != nil {
			if len(h.val.members) == 0 {
				return
			}
			if ss := h.val.lookup("SessionStart"); ss != nil && len(ss.val.elems) == 0 {
				return
			}
		}
		if added, err := s.AddHook(hookio.EventSessionStart, "", testCommand); err != nil || !added {
			t.Fatalf("AddHook = %v, %v", added, err)
		}
		if removed, err := s.RemoveHooks(hookio.EventSessionStart, HookSpecs[0].IsCommand); err != nil || len(removed) != 1 || removed[0] != testCommand {
			t.Fatalf("RemoveHooks = %q, %v", removed, err)
		}
		if got := s.Encode(); !bytes.Equal(got, enc) {
			t.Fatalf("install then uninstall changed the document:\n%s\nwant:\n%s", got, enc)
		}
	})
}

// TestParseRefusesDeepNestingWithoutOverflowingTheStack: the deepest
// document the size bound admits is refused, never a stack overflow.
func TestParseRefusesDeepNestingWithoutOverflowingTheStack(t *testing.T) {
	deep := []byte(`{"a":` + strings.Repeat("[", config.MaxJSON-5))
	if _, err := Parse(deep); !errors.Is(err, ErrNotJSON) {
		t.Fatalf("%d levels: %v, want ErrNotJSON", config.MaxJSON-5, err)
	}
	ok := []byte(`{"a":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`)
	if _, err := Parse(ok); err != nil {
		t.Fatalf("%d levels: %v", maxDepth, err)
	}
}

func TestParseStripsOneLeadingBOM(t *testing.T) {
	if _, err := Parse([]byte("\xef\xbb\xbf{\"hooks\":{}}")); err != nil {
		t.Errorf("a settings file with a BOM: %v", err)
	}
	if _, err := Parse([]byte("\xef\xbb\xbf\xef\xbb\xbf{}")); err == nil {
		t.Error("two BOMs parsed")
	}
}
