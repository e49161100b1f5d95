package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
)

// nestedTree is a project whose sub/.claude/skills holds foo, reviewed SAFE.
// Its clock runs a minute ahead: the files written now are past the racy
// window of a stamp.
func nestedTree(t *testing.T) (*tree, string) {
	tr := newTree(t)
	foo := filepath.Join(tr.project, "sub", ".claude", "skills", "foo", "SKILL.md")
	tr.write(filepath.Join(tr.project, "sub", "x.txt"), "one\n")
	tr.write(foo, "---\nname: foo\n---\nFOO v1\n")
	tr.locate()
	if !slices.Contains(tr.env.Nested, filepath.Join(tr.project, "sub")) {
		t.Fatalf("sub is not nested: %q", tr.env.Nested)
	}
	tr.deliver()
	tr.record(tr.deliver()["project/foo"], verdict.Safe)
	tr.env.Now = time.Now().Add(time.Minute)
	return tr, foo
}

// touch is a Read of file that ran in session s, as its PostToolUse says.
func (tr *tree) touch(s, file string) {
	tr.t.Helper()
	must(tr.t, keepServed(context.Background(), hookio.ToolUse{Tool: hookio.ToolRead, Path: file, Cwd: tr.project, Session: s}, tr.env))
}

func (tr *tree) use(s, name string) Result {
	tr.t.Helper()
	res, err := Check(context.Background(), Use{Kind: resolve.Skill, Name: name, Event: "PreToolUse", Session: s}, tr.env)
	must(tr.t, err)
	return res
}

// A nested skill written after the client read it is changed, even when its
// bytes are put back. The disk then matches the review, but the stamp of its
// files moved: the copy the client serves may be the other. Reviewed, it is
// pending: strict denies, balanced asks. Control: untouched since the read,
// it answers as the disk does.
func TestANestedSkillChangedAfterTheClientReadItAndPutBackIsChanged(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		back   bool
		want   Answer
	}{
		{"put back, strict", Strict, true, Deny},
		{"put back, balanced", Balanced, true, Ask},
		{"control: untouched, strict", Strict, false, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, foo := nestedTree(t)
			tr.policy(c.policy)
			tr.touch("s1", filepath.Join(tr.project, "sub", "x.txt"))
			if c.back {
				tr.write(foo, "---\nname: foo\n---\nEVIL\n")
				tr.write(foo, "---\nname: foo\n---\nFOO v1\n")
			}
			res := tr.use("s1", "foo")
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
			if c.want != None && !strings.Contains(res.Reason, "was written after Claude Code read it") {
				t.Errorf("reason %q", res.Reason)
			}
		})
	}
}

// A nested skill the client read changed is changed. The copy read is not
// the reviewed one, whatever the disk holds later. Here the disk still holds
// it, so the disk's own answer (pending) says so too.
func TestANestedSkillReadChangedIsChanged(t *testing.T) {
	tr, foo := nestedTree(t)
	tr.policy(Strict)
	tr.write(foo, "---\nname: foo\n---\nEVIL\n")
	tr.touch("s1", filepath.Join(tr.project, "sub", "x.txt"))
	if res := tr.use("s1", "foo"); res.Answer != Deny {
		t.Fatalf("%s %q, want deny", res.Answer, res.Reason)
	}
}

// A nested skill whose copy the client read was not kept is asked, never
// silently allowed: no touch seen (no PostToolUse), another session's
// touch, no session id, a touch of a file elsewhere, and a copy the stamp
// cannot prove (written in the racy window). Control: the session's own
// touch of a file below sub/ answers as the disk does.
func TestANestedSkillWithNoCopyKeptIsAsked(t *testing.T) {
	for _, c := range []struct {
		name            string
		touched, useIn  string
		file            string
		racy            bool
		want            Answer
		wantServedWords bool
	}{
		{"no touch seen", "", "s1", "", false, Ask, true},
		{"another session's touch", "s2", "s1", "sub/x.txt", false, Ask, true},
		{"no session id", "s1", "", "sub/x.txt", false, Ask, true},
		{"a touch of a file elsewhere", "s1", "s1", "x.txt", false, Ask, true},
		{"written in the racy window", "s1", "s1", "sub/x.txt", true, Ask, true},
		{"control: the session's touch", "s1", "s1", "sub/x.txt", false, None, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := nestedTree(t)
			tr.policy(Strict)
			tr.write(filepath.Join(tr.project, "x.txt"), "top\n")
			if c.racy {
				tr.env.Now = time.Now()
			}
			if c.touched != "" {
				tr.touch(c.touched, filepath.Join(tr.project, c.file))
			}
			res := tr.use(c.useIn, "foo")
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
			if c.wantServedWords && !strings.Contains(res.Reason, "skillwire kept no proof of that copy") {
				t.Errorf("reason %q", res.Reason)
			}
		})
	}
}

// The bound holds what is kept: past MaxServedFolders a folder is not kept,
// so its skill is asked. A folder kept before the bound still answers as the
// disk does.
func TestANestedFolderPastTheBoundIsAsked(t *testing.T) {
	tr, _ := nestedTree(t)
	tr.policy(Strict)
	tr.touch("s1", filepath.Join(tr.project, "sub", "x.txt"))
	must(t, baseline.Update(storeOptions(context.Background(), tr.env.Store), func(tx *baseline.Tx) error {
		for i := range hookstate.MaxServedFolders {
			if _, err := tx.SessionServed().Keep("s2", fmt.Sprintf("/elsewhere/d%d/.claude/skills", i), nil, "", tr.env.Now); err != nil {
				return err
			}
		}
		return nil
	}))
	tr.touch("s2", filepath.Join(tr.project, "sub", "x.txt"))
	if res := tr.use("s2", "foo"); res.Answer != Ask {
		t.Errorf("past the bound: %s %q, want ask", res.Answer, res.Reason)
	}
	if res := tr.use("s1", "foo"); res.Answer != None {
		t.Errorf("kept before the bound: %s %q, want none", res.Answer, res.Reason)
	}
}

// A later touch keeps nothing new: the client read the folder once. A skill
// written after the first touch, its bytes put back, stays changed after a
// second one. One that appeared after it is asked (the client never read
// it).
func TestALaterTouchKeepsNothingNew(t *testing.T) {
	tr, foo := nestedTree(t)
	tr.policy(Strict)
	tr.touch("s1", filepath.Join(tr.project, "sub", "x.txt"))
	tr.write(foo, "---\nname: foo\n---\nFOO v2\n")
	tr.write(foo, "---\nname: foo\n---\nFOO v1\n")
	tr.write(filepath.Join(tr.project, "sub", ".claude", "skills", "bar", "SKILL.md"), "---\nname: bar\n---\nBAR\n")
	tr.touch("s1", filepath.Join(tr.project, "sub", "x.txt"))
	if res := tr.use("s1", "foo"); res.Answer != Deny || !strings.Contains(res.Reason, "after Claude Code read it") {
		t.Errorf("foo: %s %q, want deny as written after the read", res.Answer, res.Reason)
	}
	if res := tr.use("s1", "bar"); res.Answer != Ask {
		t.Errorf("bar: %s %q, want ask", res.Answer, res.Reason)
	}
}

// Through the hooks: a Read's PostToolUse keeps the copy, and the Skill
// call's PreToolUse judges it. A skill written after the read and put back
// is denied under strict. Control: a top-level skill, read at the start,
// is judged on the disk as before.
func TestAReadsPostToolUseKeepsWhatTheSkillCallIsJudgedOn(t *testing.T) {
	tr, foo := nestedTree(t)
	tr.policy(Strict)
	n := 0
	h := tr.hook(&n)
	input := func(event, tool string, in map[string]string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": event, "tool_name": tool, "tool_input": in,
			"session_id": "s1", "tool_use_id": "t1", "cwd": tr.project})
		return b
	}
	r := Handle(context.Background(), hookio.EventPostToolUse, input(hookio.EventPostToolUse, "Read", map[string]string{"file_path": filepath.Join(tr.project, "sub", "x.txt")}), h)
	if len(r.Out) > 0 || len(r.Notes) > 0 {
		t.Fatalf("the Read's PostToolUse answered %s %q", r.Out, r.Notes)
	}
	tr.write(foo, "---\nname: foo\n---\nEVIL\n")
	must(t, os.WriteFile(foo, []byte("---\nname: foo\n---\nFOO v1\n"), 0o644))
	r = Handle(context.Background(), hookio.EventPreToolUse, input(hookio.EventPreToolUse, "Skill", map[string]string{"skill": "foo"}), h)
	if r.Answer != Deny || !strings.Contains(r.Reason, "after Claude Code read it") {
		t.Fatalf("%s %q, want deny", r.Answer, r.Reason)
	}
	tr.skill("user", "top")
	tr.record(tr.deliver()["global/top"], verdict.Safe)
	r = Handle(context.Background(), hookio.EventPreToolUse, input(hookio.EventPreToolUse, "Skill", map[string]string{"skill": "top"}), h)
	if r.Answer != None {
		t.Errorf("a reviewed top-level skill: %s %q", r.Answer, r.Reason)
	}
}
