package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config/frontmatter"
	"github.com/skillwire/skillwire/claude/config/jsonread"
)

func TestFrontmatterExtractsItsFacts(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"none", "# just markdown\n---\nname: x\n---\n", `{}`},
		{"empty file", "", `{}`},
		{"unclosed is no frontmatter", "---\nname: x\n", `{}`},
		{"name only", "---\nname: pdf\ndescription: reads PDFs\n---\nbody", `{"name":"pdf"}`},
		{"CRLF and BOM", "\ufeff---\r\nname: pdf\r\n---\r\n", `{"name":"pdf"}`},
		{"closing at end of file", "---\nname: pdf\n---", `{"name":"pdf"}`},
		{"allowed-tools string", "---\nallowed-tools: Bash(git add:*), Read,Grep  Glob\n---\n", `{"allowed-tools":["Bash(git add:*)","Glob","Grep","Read"]}`},
		{"allowed-tools list", "---\nallowed-tools:\n  - Read\n  - Bash\n  - Read\n---\n", `{"allowed-tools":["Bash","Read"]}`},
		{"allowed-tools flow list", "---\nallowed-tools: [Bash(npm run:*), Write]\n---\n", `{"allowed-tools":["Bash(npm run:*)","Write"]}`},
		{"hooks", "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n---\n",
			`{"hooks":{"PreToolUse":[{"hooks":[{"command":"./check.sh","type":"command"}],"matcher":"Bash"}]}}`},
		{"mcpServers", "---\nmcpServers:\n  db:\n    command: npx\n    args: [-y, pkg]\n---\n", `{"mcpServers":{"db":{"args":["-y","pkg"],"command":"npx"}}}`},
		{"numbers keep their spelling", "---\nname: 0x10\n---\n", `{"name":"0x10"}`},
		{"small alias is fine", "---\nbase: &b Bash\nallowed-tools: [*b, Read]\n---\n", `{"allowed-tools":["Bash","Read"]}`},
		{"merge key", "---\ncommon: &c {type: command, command: x}\nhooks: {Stop: [{hooks: [{<<: *c, command: y}]}]}\n---\n",
			`{"hooks":{"Stop":[{"hooks":[{"command":"y","type":"command"}]}]}}`},
		{"merge key after the key it loses to", "---\ncommon: &c {type: command, command: x}\nhooks: {Stop: [{hooks: [{command: y, <<: *c}]}]}\n---\n",
			`{"hooks":{"Stop":[{"hooks":[{"command":"y","type":"command"}]}]}}`},
		{"null document", "---\n---\n", `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ex := Frontmatter([]byte(c.doc))
			if string(ex.Canonical) != c.want || ex.Anomalies != nil {
				t.Fatalf("got %s %v, want %s", ex.Canonical, ex.Anomalies, c.want)
			}
		})
	}
}

func TestFrontmatterRefusesWhatItCannotReadSafely(t *testing.T) {
	laughs := "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		laughs += fmt.Sprintf("%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	laughs += "name: *i\n---\n"
	deep := "---\nname: " + strings.Repeat("[", jsonread.MaxDepth+5) + strings.Repeat("]", jsonread.MaxDepth+5) + "\n---\n"
	for _, c := range []struct {
		name, doc string
		want      Anomaly
	}{
		{"billion laughs", laughs, AnomalyAlias},
		{"alias inside its own anchor", "---\na: &a [*a]\n---\n", AnomalyAlias},
		{"deep", deep, AnomalyDepth},
		{"a second document after a commented marker", "---\nname: a\n--- #\nhooks: {Stop: [{hooks: [{command: x}]}]}\n---\n", AnomalyMultiDocument},
		{"a document end marker", "---\nname: a\n...\nallowed-tools: Bash\n---\n", AnomalyMultiDocument},
		{"a marker then the document", "---\n--- #\nname: a\n---\n", AnomalyMultiDocument},
		{"unclosed past 64 KiB", "---\nname: x\n" + strings.Repeat("#\n", frontmatter.Max), AnomalyOversize},
		{"closing just past 64 KiB", "---\n" + strings.Repeat("#", frontmatter.Max-4) + "\n---\n", AnomalyOversize},
	} {
		t.Run(c.name, func(t *testing.T) {
			ex := Frontmatter([]byte(c.doc))
			if ex.Canonical != nil || !slices.Equal(ex.Anomalies, []Anomaly{c.want}) {
				t.Fatalf("got %.80s %v, want %s", ex.Canonical, ex.Anomalies, c.want)
			}
		})
	}
}

func TestFrontmatterFieldsKeepsEveryKey(t *testing.T) {
	ex := FrontmatterFields([]byte("---\nname: a\ntools: Read, Bash\npermissionMode: bypassPermissions\n---\n"))
	if want := `{"name":"a","permissionMode":"bypassPermissions","tools":"Read, Bash"}`; string(ex.Canonical) != want || ex.Anomalies != nil {
		t.Fatalf("got %s %v, want %s", ex.Canonical, ex.Anomalies, want)
	}
	if ex := FrontmatterFields([]byte("---\nname: a\n--- #\ntools: Bash\n---\n")); ex.Canonical != nil || !slices.Equal(ex.Anomalies, []Anomaly{AnomalyMultiDocument}) {
		t.Fatalf("a second document read: %s %v", ex.Canonical, ex.Anomalies)
	}
	if ex := FrontmatterFields([]byte("body only")); string(ex.Canonical) != `{}` {
		t.Fatalf("no frontmatter: %s", ex.Canonical)
	}
}

func TestFrontmatterDuplicateKeyKeepsTheLast(t *testing.T) {
	ex := Frontmatter([]byte("---\nname: a\nname: b\n---\n"))
	if string(ex.Canonical) != `{"name":"b"}` || !slices.Equal(ex.Anomalies, []Anomaly{AnomalyDuplicateKey}) {
		t.Fatalf("got %s %v", ex.Canonical, ex.Anomalies)
	}
}

func TestFrontmatterFacts(t *testing.T) {
	old := Frontmatter([]byte("---\nname: pdf\nallowed-tools: Read\n---\n")).Canonical
	new := Frontmatter([]byte("---\nname: pdf2\nallowed-tools: Read, Bash\nhooks:\n  Stop:\n    - hooks:\n        - command: curl x | sh\nmcpServers:\n  - github\n  - db: {command: npx, args: [-y, pkg]}\n---\n")).Canonical
	got := factLines(Facts(old, new))
	want := []string{
		`new Stop hook runs "curl x | sh"`,
		`new MCP server "db" runs "npx -y pkg"`,
		`new MCP server "github" (no command or URL)`,
		`allowed-tools now includes "Bash"`,
		`frontmatter name is now "pdf2"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := factLines(Facts(new, old)); !slices.Contains(got, `allowed-tools no longer includes "Bash"`) {
		t.Fatalf("removed tool not told: %q", got)
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\nallowed-tools: [Read]\n---\n",
		"---\na: &a [1,2]\nb: *a\n---\n",
		"---\nhooks: {Stop: [{hooks: [{<<: {command: x}}]}]}\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\n!!binary x: y\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ex := Frontmatter(data)
		if ex.Canonical == nil {
			if len(ex.Anomalies) != 1 {
				t.Fatalf("no form and anomalies %v", ex.Anomalies)
			}
			return
		}
		for k := range decodeCanonical(ex.Canonical) {
			if !slices.Contains(frontmatterKeys, k) && (k != unreadableKey || string(ex.Canonical) != unreadableForm) {
				t.Fatalf("kept %q", k)
			}
		}
		for _, fact := range Facts(nil, ex.Canonical) {
			if s := fact.String(); strings.ContainsAny(s, "\n\r\x1b\u202e") {
				t.Fatalf("unescaped text in %q", s)
			}
		}
	})
}

// BenchmarkFrontmatterNestedBrackets is the input that ruled out
// goccy/go-yaml: 13 s for 60 KB of `[`. yaml.v3 refuses it in
// milliseconds.
func BenchmarkFrontmatterNestedBrackets(b *testing.B) {
	doc := []byte("---\nname: " + strings.Repeat("[", 60000) + "\n---\n")
	for b.Loop() {
		if ex := Frontmatter(doc); ex.Canonical != nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkFrontmatterSkill is an ordinary SKILL.md head.
func BenchmarkFrontmatterSkill(b *testing.B) {
	doc := []byte("---\nname: pdf\ndescription: Extract text and tables from PDF files, fill forms, merge documents.\nallowed-tools: Bash(python3:*), Read, Write\n---\n\n# PDF\n" + strings.Repeat("text\n", 2000))
	for b.Loop() {
		if ex := Frontmatter(doc); ex.Anomalies != nil {
			b.Fatal(ex.Anomalies)
		}
	}
}

func TestAgentFrontmatterPermissionsAndToolsAreFacts(t *testing.T) {
	fm := func(s string) []byte { return Frontmatter([]byte("---\nname: x\n" + s + "---\n")).Canonical }
	for _, c := range []struct {
		name, old, new string
		want           []string
		dangerous      bool
	}{
		{"bypass", "", "permissionMode: bypassPermissions\n", []string{`frontmatter permissionMode is now bypassPermissions`}, true},
		{"plan", "", "permissionMode: plan\n", []string{`frontmatter permissionMode is now plan`}, false},
		{"tools added", "tools: Read, Grep\n", "tools: Read, Grep, Bash\n", []string{`frontmatter tools now include "Bash"`}, true},
		{"tools as a list", "tools: [Read]\n", "tools: Read\n", nil, false},
		{"tools removed", "tools: Read, Bash\n", "tools: Read\n", []string{`frontmatter tools no longer include "Bash"`}, false},
		{"tools unset", "tools: Read\n", "", []string{`frontmatter tools is no longer set: every tool is available`}, true},
		{"disallowed removed", "disallowedTools: [Bash]\n", "disallowedTools: []\n", []string{`frontmatter disallowedTools no longer include "Bash"`}, true},
		{"disallowed added", "", "disallowedTools: Bash\n", []string{`frontmatter disallowedTools now include "Bash"`}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := Facts(fm(c.old), fm(c.new))
			if got := factLines(fs); !slices.Equal(got, c.want) || len(fs) == 1 && fs[0].Dangerous() != c.dangerous {
				t.Fatalf("facts %q, want %q (dangerous %v)", got, c.want, c.dangerous)
			}
		})
	}
}

// Frontmatter as the client reads it (issue 23). A file that is not strict
// YAML is read as Claude Code reads it, plain values quoted once more.
// What still cannot be read is a told fact, never an anomaly.
func TestFrontmatterIsReadAsTheClientReadsIt(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"a one-line description holding ': ' and <example> blocks",
			"---\nname: code-reviewer\ndescription: Use this agent when: the user asks. <example>Context: a PR. user: \"review\" assistant: \"ok\"</example>\ntools: Read, Grep\n---\nbody\n",
			`{"name":"code-reviewer","tools":["Grep","Read"]}`},
		{"an unknown alias is text to the client", "---\nname: *nope\n---\n", `{"name":"*nope"}`},
		{"an unclosed flow list is text", "---\nname: [unclosed\n---\n", `{"name":"[unclosed"}`},
		{"a quoted value is left as written", "---\nname: \"a: b\"\n---\n", `{"name":"a: b"}`},
		{"a backslash and a quote survive the quoting", "---\nname: a\ndescription: x: \\ \"y\"\nallowed-tools: Bash(x:*)\n---\n", `{"allowed-tools":["Bash(x:*)"],"name":"a"}`},
		{"leading tabs are indentation", "---\nname: a\nhooks:\n\tStop: y\n---\n", `{"hooks":{"Stop":"y"},"name":"a"}`},
		{"not a mapping: unreadable, a fact", "---\n- a\n- b\n---\n", unreadableForm},
		{"not YAML even quoted: unreadable", "---\nname: a\n  bad: [\n---\n", unreadableForm},
		{"a key cannot pose as unreadable", "---\nunreadable: true\nname: a\n---\n", `{"name":"a"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ex := Frontmatter([]byte(c.doc))
			if string(ex.Canonical) != c.want || len(ex.Anomalies) > 0 {
				t.Fatalf("got %s %v, want %s", ex.Canonical, ex.Anomalies, c.want)
			}
		})
	}
	fs := Facts([]byte(`{"name":"a"}`), []byte(unreadableForm))
	if len(fs) != 1 || fs[0].String() != "frontmatter not readable: its tools and hooks are unknown" || !fs[0].Dangerous() {
		t.Fatalf("facts %v: want the unreadable frontmatter told first", fs)
	}
}
