package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// hostileReport verifies a tree that differs from its lock in every way. Its
// names are ones a shell, a terminal and a workflow-command parser would each
// act on.
func hostileReport(t *testing.T) *Report {
	t.Helper()
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	lock, _ := lockRepo(t, dir, walker.DefaultConfig())
	setVerdict(t, lock, "web", Verdict(verdict.Block))
	testtree.Make(t, dir,
		".claude/skills/pdf/SKILL.md=changed",
		".claude/skills/pdf/::error::pwned\r\n%0A=x",
		".claude/skills/new/",
		".claude/skills/$(id)\n::warning::x/",
		".claude/skills/\xff\x1b[31m/")
	rm(t, dir, ".claude/agents/reviewer.md")
	rm(t, dir, ".claude/commands")
	testtree.Make(t, dir, ".claude/commands=a file")
	r := verifyRepo(t, dir, lock, walker.DefaultConfig())
	if len(r.Added) != 1 || len(r.Removed) != 1 || len(r.Changed) != 1 || len(r.Anomalous) != 3 || len(r.Adverse) != 1 {
		t.Fatalf("unexpected report: %q", summary(r))
	}
	return r
}

var hostileBytes = []string{"$(id)", "::warning::x", "pwned", "\x1b", "\xff", "\r", "%0A"}

// noRawHostileBytes fails when out holds any hostile name raw. It also fails
// on any control or non-ASCII byte but the newline ending a line.
func noRawHostileBytes(t *testing.T, what string, out []byte) {
	t.Helper()
	for _, h := range hostileBytes {
		if bytes.Contains(out, []byte(h)) {
			t.Errorf("%s holds %q raw:\n%s", what, h, out)
		}
	}
	for i, c := range out {
		if c >= 0x7f || c < 0x20 && c != '\n' {
			t.Fatalf("%s: byte %#x at %d", what, c, i)
		}
	}
}

func TestSARIFHasTheRequiredFieldsOf210(t *testing.T) {
	r := hostileReport(t)
	out, err := json.Marshal(r.SARIF("skillwire.lock", "1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	noRawHostileBytes(t, "SARIF", out)

	var log struct {
		Schema  *string `json:"$schema"`
		Version *string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    *string `json:"ruleId"`
				RuleIndex *int    `json:"ruleIndex"`
				Level     string  `json:"level"`
				Message   struct {
					Text *string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&log); err != nil {
		t.Fatal(err)
	}
	if log.Version == nil || *log.Version != "2.1.0" {
		t.Fatalf("version %v, want 2.1.0", log.Version)
	}
	if log.Schema == nil || !strings.HasSuffix(*log.Schema, "sarif-schema-2.1.0.json") {
		t.Errorf("$schema %v", log.Schema)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "skillwire" {
		t.Errorf("driver name %q", d.Name)
	}
	if u, err := url.Parse(d.InformationURI); err != nil || !u.IsAbs() {
		t.Errorf("informationUri %q is not an absolute URI", d.InformationURI)
	}
	ruleIDs := map[string]int{}
	for i, rule := range d.Rules {
		if !regexp.MustCompile(`^SW\d{3}$`).MatchString(rule.ID) || rule.ShortDescription.Text == "" {
			t.Errorf("rule %d: %+v", i, rule)
		}
		ruleIDs[rule.ID] = i
	}
	perRule := map[string]int{}
	for i, res := range run.Results {
		if res.RuleID == nil || res.Message.Text == nil || *res.Message.Text == "" {
			t.Fatalf("result %d lacks ruleId or message.text", i)
		}
		idx, ok := ruleIDs[*res.RuleID]
		if !ok || res.RuleIndex == nil || *res.RuleIndex != idx {
			t.Errorf("result %d: ruleId %s, ruleIndex %v: not the driver's rule", i, *res.RuleID, res.RuleIndex)
		}
		if res.Level != "error" {
			t.Errorf("result %d: level %q", i, res.Level)
		}
		if len(res.Locations) != 1 {
			t.Fatalf("result %d: %d locations", i, len(res.Locations))
		}
		uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
		if u, err := url.Parse(uri); err != nil || u.IsAbs() || strings.HasPrefix(uri, "/") || u.String() != uri {
			t.Errorf("result %d: uri %q is not a clean relative reference", i, uri)
		}
		perRule[*res.RuleID]++
	}
	// One result per changed file: SKILL.md modified, the hostile one added.
	want := map[string]int{"SW001": 1, "SW002": 1, "SW003": 2, "SW004": 3, "SW005": 1}
	if fmt.Sprint(perRule) != fmt.Sprint(want) {
		t.Errorf("results per rule %v, want %v", perRule, want)
	}
	for _, loc := range []string{`".claude/skills/pdf/SKILL.md"`, `".claude/skills/pdf"`, `".claude/commands"`} {
		if !bytes.Contains(out, []byte(`"uri":`+loc)) {
			t.Errorf("no result at %s", loc)
		}
	}
}

func TestSARIFFailureIsAnUnsuccessfulRun(t *testing.T) {
	out, err := json.Marshal(SARIFFailure("cannot verify: skillwire.lock does not exist", "1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Invocations []struct {
				ExecutionSuccessful *bool `json:"executionSuccessful"`
			} `json:"invocations"`
			Results []any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Results == nil || len(log.Runs[0].Results) != 0 ||
		len(log.Runs[0].Invocations) != 1 || log.Runs[0].Invocations[0].ExecutionSuccessful == nil ||
		*log.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Errorf("failure log: %s", out)
	}
}

func TestGitHubEscaping(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"%0A", "%250A", "%250A"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
	} {
		if got := ghData(tc.in); got != tc.data {
			t.Errorf("ghData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := ghProperty(tc.in); got != tc.prop {
			t.Errorf("ghProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestGitHubAnnotationsAreOneCommandPerLine(t *testing.T) {
	r := hostileReport(t)
	var b bytes.Buffer
	if err := r.WriteGitHub(&b, "skillwire.lock"); err != nil {
		t.Fatal(err)
	}
	noRawHostileBytes(t, "annotations", b.Bytes())
	line := regexp.MustCompile(`^::error file=[A-Za-z0-9._/-]+,title=SW00[1-5] [a-z-]+::[^\r\n]+$`)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("not one well-formed annotation: %q", l)
		}
	}
	if len(lines) != 8 {
		t.Errorf("%d annotations, want 8 (one per finding, one per changed file):\n%s", len(lines), b.String())
	}
	if !strings.Contains(b.String(), "::error file=.claude/skills/pdf/SKILL.md,title=SW003 file-changed::file SKILL.md modified in .claude/skills/pdf") {
		t.Errorf("no annotation on the changed file:\n%s", b.String())
	}

	b.Reset()
	ok := &Report{Roots: DefaultRoots(), Matched: 4}
	if err := ok.WriteGitHub(&b, "skillwire.lock"); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "::notice title=skillwire verify::4 candidates in 6 roots match skillwire.lock\n" {
		t.Errorf("a match prints %q", got)
	}
	if got := GitHubError("a\n::x", "no\nlock"); got != "::error title=skillwire verify%3A cannot verify \"a\\x0a%3A%3Ax\"::no%0Alock\n" {
		t.Errorf("GitHubError = %q", got)
	}
}

func TestTextAndJSONShowNoRawHostileBytes(t *testing.T) {
	r := hostileReport(t)
	var text bytes.Buffer
	if err := r.WriteText(&text, "skillwire.lock"); err != nil {
		t.Fatal(err)
	}
	noRawHostileBytes(t, "text", text.Bytes())
	for _, want := range []string{
		`^skillwire.lock does not match the tree \(7 findings\):$`,
		`^  anomalous +\.claude/skills/hex:` + fmt.Sprintf("%x", "$(id)\n::warning::x") + ` +badname$`,
		`^    added +hex:` + fmt.Sprintf("%x", "::error::pwned\r\n%0A") + ` +file$`,
		`^  anomalous +\.claude/commands \(the root\) +root$`,
		`^  adverse +\.claude/skills/web +the lock's verdict is BLOCK$`,
		`^After a review of every change, update the lock with: skillwire lock$`,
	} {
		if !regexp.MustCompile("(?m)" + want).Match(text.Bytes()) {
			t.Errorf("text lacks %s:\n%s", want, text.String())
		}
	}

	out, err := json.Marshal(r.JSON())
	if err != nil {
		t.Fatal(err)
	}
	noRawHostileBytes(t, "JSON", out)
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ok", "added", "removed", "changed", "anomalous", "adverse", "matched"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["ok"] != false {
		t.Errorf("ok = %v", doc["ok"])
	}
	if !bytes.Contains(out, []byte(`{"root":".claude/skills","name":null,"name_hex":"`+fmt.Sprintf("%x", "$(id)\n::warning::x")+`","reasons":["badname"]}`)) {
		t.Errorf("badname candidate not shown by hex: %s", out)
	}
	if !bytes.Contains(out, []byte(`{"root":".claude/commands","name":null,"reasons":["root"]}`)) {
		t.Errorf("anomalous root not shown: %s", out)
	}
}
