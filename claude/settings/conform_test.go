package settings

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/config"
)

func TestConformChangesOnlyWhatDiffersAndKeepsTheRestAsWritten(t *testing.T) {
	for _, c := range []struct {
		name, doc, want, out string
	}{
		{"a changed command, key order kept",
			`{"theme":"x","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"curl x | sh"}]}]}}`,
			`{"SessionStart":[{"hooks":[{"command":"echo ok","type":"command"}]}]}`,
			`{"theme":"x","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo ok"}]}]}}`},
		{"an added element dropped, the others kept as spelled",
			`{"p":{"allow":["Bash(curl:*)","Read","Write"]}}`,
			`{"allow":["Read","Write"]}`,
			`{"p":{"allow":["Read","Write"]}}`},
		{"an inserted element dropped",
			`{"p":{"a":[{"k":1,"j":2},{"x":0}]}}`,
			`{"a":[{"x":0}]}`,
			`{"p":{"a":[{"x":0}]}}`},
		{"a removed member added last",
			`{"p":{"b":1}}`,
			`{"a":true,"b":1}`,
			`{"p":{"b":1,"a":true}}`},
		{"a string escape that means the same is kept",
			`{"p":"\u0041b"}`,
			`"Ab"`,
			`{"p":"\u0041b"}`},
		{"a number spelled otherwise is a change (the canonical form keeps the text)",
			`{"p":1.0}`,
			`1`,
			`{"p":1}`},
		{"a new key", `{"theme":"x"}`, `{"a":[]}`, `{"theme":"x","p":{"a":[]}}`},
		{"another kind", `{"p":[1]}`, `{"a":1}`, `{"p":{"a":1}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := mustParse(t, c.doc)
			key := "p"
			if strings.Contains(c.doc, `"hooks"`) {
				key = "hooks"
			}
			if err := d.Conform([]string{key}, []byte(c.want)); err != nil {
				t.Fatal(err)
			}
			if got, want := string(d.Encode()), string(mustParse(t, c.out).Encode()); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestConformAndDeleteRefuseADuplicateKeyAndChangeNothing(t *testing.T) {
	for _, c := range []struct {
		doc  string
		path []string
	}{
		{`{"p":1,"p":2}`, []string{"p"}},
		{`{"p":{"a":1,"a":2}}`, []string{"p"}},
		{`{"p":{"a":1,"a":2}}`, []string{"p", "a"}},
		{`{"p":[{"x":1,"x":1}]}`, []string{"p"}},
		{`{"projects":{"/a":{},"/a":{}}}`, []string{"projects", "/a", "mcpServers"}},
	} {
		d := mustParse(t, c.doc)
		before := string(d.Encode())
		if err := d.Conform(c.path, []byte(`{"y":1}`)); !errors.Is(err, ErrShape) {
			t.Errorf("%s: Conform %v, want ErrShape", c.doc, err)
		}
		if dupLast := strings.Count(c.doc, `"`+c.path[len(c.path)-1]+`"`) > 1; dupLast {
			if err := d.Delete(c.path...); !errors.Is(err, ErrShape) {
				t.Errorf("%s: Delete %v, want ErrShape", c.doc, err)
			}
		}
		if string(d.Encode()) != before {
			t.Errorf("%s: changed by a refused edit: %s", c.doc, d.Encode())
		}
	}
}

func TestConformRefusesAWayThroughSomethingNotAnObject(t *testing.T) {
	d := mustParse(t, `{"projects":{"/a":"text"}}`)
	if err := d.Conform([]string{"projects", "/a", "mcpServers"}, []byte(`{}`)); !errors.Is(err, ErrShape) {
		t.Fatalf("error %v, want ErrShape", err)
	}
	if _, err := d.Keys("projects", "/a"); !errors.Is(err, ErrShape) {
		t.Fatalf("Keys: error %v, want ErrShape", err)
	}
}

func TestConformAddsTheObjectsMissingOnTheWay(t *testing.T) {
	d := mustParse(t, `{"numStartups":3}`)
	if err := d.Conform([]string{"projects", "/p", "mcpServers"}, []byte(`{"db":{"command":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	want := mustParse(t, `{"numStartups":3,"projects":{"/p":{"mcpServers":{"db":{"command":"x"}}}}}`).Encode()
	if string(d.Encode()) != string(want) {
		t.Errorf("got %s", d.Encode())
	}
	keys, err := d.Keys("projects")
	if err != nil || len(keys) != 1 || keys[0] != "/p" {
		t.Errorf("keys %q %v", keys, err)
	}
}

func TestConformRefusesGarbageForItsValue(t *testing.T) {
	for _, want := range []string{"", "{", `{"a":1} x`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), "\x00"} {
		d := mustParse(t, `{"a":1}`)
		if err := d.Conform([]string{"a"}, []byte(want)); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%.20q: error %v, want ErrNotJSON", want, err)
		}
		if string(d.Encode()) != "{\n  \"a\": 1\n}\n" {
			t.Errorf("%.20q: changed: %s", want, d.Encode())
		}
	}
}

func TestDuplicateKeyErrorsNeverQuoteTheFilesKeys(t *testing.T) {
	d := mustParse(t, "{\"\\u001b]0;pwned\\u0007\":1,\"\\u001b]0;pwned\\u0007\":2}")
	err := d.Conform([]string{"\x1b]0;pwned\x07"}, []byte(`1`))
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") || strings.Contains(err.Error(), "pwned") {
		t.Fatalf("error %q", err)
	}
}

func TestOpenFileReadsUpToItsOwnBoundAndNeverThroughALink(t *testing.T) {
	dir := t.TempDir()
	big := `{"a":"` + strings.Repeat("x", config.MaxJSON) + `"}`
	if err := os.WriteFile(dir+"/.claude.json", []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(dir+"/.claude.json", 2*config.MaxJSON)
	if err != nil || string(f.Bytes()) != big {
		t.Fatalf("a file over config.MaxJSON within its own bound: %v", err)
	}
	if _, err := OpenFile(dir+"/.claude.json", config.MaxJSON); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("past its bound: %v", err)
	}
	if err := os.Symlink(dir+"/.claude.json", dir+"/link.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(dir+"/link.json", 2*config.MaxJSON); err == nil {
		t.Fatal("read through a link")
	}
	if _, err := OpenFile(dir+"/absent.json", config.MaxJSON); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v", err)
	}
}

// An Object is the object at its path, indexed once. Edits through it are
// edits of the document, in place. A duplicate name, or a value that is
// not an object, is refused as Conform refuses it.
func TestAnObjectEditsTheDocumentInPlace(t *testing.T) {
	d, err := Parse([]byte(`{"projects": {"/a": {"mcpServers": {"x": 1}, "history": []}, "/b": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := d.Object("projects")
	if err != nil || o == nil {
		t.Fatalf("Object = %v, %v", o, err)
	}
	if got := o.Names(); len(got) != 2 || got[0] != "/a" || got[1] != "/b" {
		t.Fatalf("Names = %q", got)
	}
	if err := o.Get("/a").Conform([]string{"mcpServers"}, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := o.Put("/c\x1b").Conform([]string{"mcpServers"}, []byte(`{"y": 2}`)); err != nil {
		t.Fatal(err)
	}
	if err := o.Get("/b").Conform([]string{"mcpServers"}, []byte(`{}`)); !errors.Is(err, ErrShape) {
		t.Fatalf("conform inside a number: %v", err)
	}
	if o.Get("/missing") != nil {
		t.Fatal("Get of a missing member")
	}
	want := `{"projects": {"/a": {"mcpServers": {}, "history": []}, "/b": 2, "/c\u001b": {"mcpServers": {"y": 2}}}}`
	got := d.Encode()
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	for _, doc := range []string{`{"projects": {"/a": {}, "/a": {}}}`, `{"projects": 1}`, `{"projects": {}, "projects": {}}`} {
		d, err := Parse([]byte(doc))
		if err != nil {
			continue // refused as a whole already
		}
		if _, err := d.Object("projects"); !errors.Is(err, ErrShape) {
			t.Errorf("%s: Object = %v, want ErrShape", doc, err)
		}
	}
	if o, err := New().Object("projects"); o != nil || err != nil {
		t.Fatalf("absent: %v, %v", o, err)
	}
}
