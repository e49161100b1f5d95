package lockfile

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// A lock spells a dot-leading skill such as ".hidden-tools" plainly (issue
// 32): Claude Code 2.1.332 lists and runs it by that name, and skillwire
// judges it as a skill (claude.DotName). A lock written before spelled it
// as name_hex; that lock still reads and verifies the tree clean. A name
// DotName refuses (spelled as the client's own files, a control byte) stays
// hex, and a hex name that is plain by the display gate is still refused.
func TestLockFilesSpellADotLeadingSkillNamePlainly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, ".claude/skills/.hidden-tools/SKILL.md=---\nname: .hidden-tools\n---\nx\n", ".claude/skills/pdf/SKILL.md=x")
	lock, _ := lockRepo(t, dir, walker.DefaultConfig())
	data := mustMarshal(t, lock)
	for _, want := range []string{`"name": ".hidden-tools"`, `"name": "pdf"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the fresh lock has no %s:\n%s", want, data)
		}
	}
	if r := verifyRepo(t, dir, lock, walker.DefaultConfig()); len(summary(r)) > 0 {
		t.Errorf("the fresh lock: %q", summary(r))
	}

	before := bytes.Replace(data, []byte(`"name": ".hidden-tools"`), []byte(`"name_hex": "`+hex.EncodeToString([]byte(".hidden-tools"))+`"`), 1)
	old, err := Parse(before)
	if err != nil {
		t.Fatalf("a lock written before, with name_hex: %v", err)
	}
	if !slices.ContainsFunc(old.Candidates, func(c Candidate) bool { return string(c.Name) == ".hidden-tools" }) {
		t.Fatal("the lock written before lost .hidden-tools")
	}
	if r := verifyRepo(t, dir, old, walker.DefaultConfig()); len(summary(r)) > 0 {
		t.Errorf("the lock written before: %q", summary(r))
	}
	if again := mustMarshal(t, old); !bytes.Equal(again, data) {
		t.Errorf("relocked, the lock written before is not the fresh one:\n%s", again)
	}

	plainHex := bytes.Replace(data, []byte(`"name": "pdf"`), []byte(`"name_hex": "`+hex.EncodeToString([]byte("pdf"))+`"`), 1)
	if _, err := Parse(plainHex); err == nil {
		t.Error("a gated name spelled as name_hex was read")
	}
	one := t.TempDir()
	testtree.Make(t, one, ".claude/skills/x/SKILL.md=x")
	single, _ := lockRepo(t, one, walker.DefaultConfig())
	data = mustMarshal(t, single)
	for _, n := range []string{".claude", ".Claude-tools", ".mcp-tools", ".git", ".x.json", ".ev\x1bil", "..hidden", ".", ".-x"} {
		spelled := hex.EncodeToString([]byte(n))
		if l := NameLabel(".claude/skills", []byte(n)); l != "hex:"+spelled {
			t.Errorf("NameLabel(%q) = %q, want its hex", n, l)
		}
		quoted, _ := json.Marshal(n)
		if _, err := Parse(bytes.Replace(data, []byte(`"name": "x"`), []byte(`"name": `+string(quoted)), 1)); err == nil {
			t.Errorf("a name DotName refuses, %q, was read plainly", n)
		}
		if _, err := Parse(bytes.Replace(data, []byte(`"name": "x"`), []byte(`"name_hex": "`+spelled+`"`), 1)); err != nil && n != "." {
			t.Errorf("a name DotName refuses, %q, spelled as name_hex: %v", n, err)
		}
	}
	if l := NameLabel(".claude/rules", []byte(".hidden-tools")); l != "hex:"+hex.EncodeToString([]byte(".hidden-tools")) {
		t.Errorf("a dot name of a root the client loads no dot name from is shown as %q", l)
	}
}
