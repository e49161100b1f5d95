package gate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
)

// A candidate that arrived after the first run and was told to a session
// is still new at its first use: telling the model is not a review.
func TestToldButUndecidedIsNewAtItsFirstUse(t *testing.T) {
	tr := newTree(t)
	tr.deliver() // first run
	tr.skill("user", "pdf")
	tr.deliver() // a session is told of pdf
	tr.deliver() // and another
	tr.policy(Balanced)
	res := tr.check(resolve.Skill, "pdf")
	if res.Answer != Ask || len(res.Findings) != 1 || res.Findings[0].State != New || !res.Findings[0].Undecided {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(res.Reason, "no person has decided on it") {
		t.Fatalf("reason %q", res.Reason)
	}
}

// What the store's very first run accepted stays familiar.
func TestTheFirstRunsAcceptanceStaysFamiliar(t *testing.T) {
	tr := newTree(t)
	tr.skill("user", "pdf")
	tr.deliver()
	tr.deliver()
	tr.policy(Balanced)
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != None {
		t.Fatalf("%+v", res)
	}
}

// When the person allows an asked use and the tool runs (its PostToolUse,
// same tool_use_id), those bytes are familiar; a changed byte makes the
// candidate new again, and a PostToolUse of a call the gate never asked
// about records nothing.
func TestAPersonsAllowAtUseMakesThoseBytesFamiliar(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	p := tr.skill("user", "pdf")
	tr.deliver()
	tr.policy(Balanced)
	input := func(event, id string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": event, "tool_name": "Skill", "tool_input": map[string]any{"skill": "pdf"},
			"tool_use_id": id, "session_id": "s-1", "cwd": tr.project})
		return b
	}
	var located int
	h := tr.hook(&located)
	// A PostToolUse the gate never asked about: nothing.
	Handle(context.Background(), hookio.EventPostToolUse, input(hookio.EventPostToolUse, "toolu_other"), h)
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != Ask {
		t.Fatalf("an unasked PostToolUse allowed the use: %+v", res)
	}
	if r := Handle(context.Background(), hookio.EventPreToolUse, input(hookio.EventPreToolUse, "toolu_1"), h); r.Answer != Ask {
		t.Fatalf("pre: %+v", r)
	}
	Handle(context.Background(), hookio.EventPostToolUse, input(hookio.EventPostToolUse, "toolu_1"), h)
	res := tr.check(resolve.Skill, "pdf")
	if res.Answer != None {
		t.Fatalf("allowed at use, still %+v", res)
	}
	id := res.Findings[0].Candidate.ID
	allowed := false
	for _, n := range tr.notes(id) {
		allowed = allowed || n.Kind == "allowed-at-use" && strings.Contains(n.Text, "session s-1")
	}
	if !allowed {
		t.Fatalf("no allowed-at-use note: %+v", tr.notes(id))
	}
	// The same PostToolUse again (a replay) finds no ask left.
	tr.write(filepath.Join(p, "extra.md"), "one byte more\n")
	Handle(context.Background(), hookio.EventPostToolUse, input(hookio.EventPostToolUse, "toolu_1"), h)
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != Ask {
		t.Fatalf("a changed byte after the allow: %+v", res)
	}
}

// The person's allow is bound to the call asked about: a PostToolUse of
// the same tool_use_id from another session, for another tool or another
// name, records nothing (review finding 5: ids are the API stream's to
// mint and may repeat).
func TestAnAllowIsBoundToTheSessionToolAndNameAskedAbout(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("user", "pdf")
	tr.deliver()
	tr.policy(Balanced)
	call := func(event, session, tool, name string) []byte {
		b, _ := json.Marshal(map[string]any{"hook_event_name": event, "tool_name": tool,
			"tool_input": map[string]any{"skill": name, "subagent_type": name}, "tool_use_id": "toolu_1", "session_id": session, "cwd": tr.project})
		return b
	}
	var located int
	h := tr.hook(&located)
	if r := Handle(context.Background(), hookio.EventPreToolUse, call(hookio.EventPreToolUse, "s-1", "Skill", "pdf"), h); r.Answer != Ask {
		t.Fatalf("pre: %+v", r)
	}
	for _, c := range [][3]string{{"OTHER", "Skill", "pdf"}, {"s-1", "Agent", "pdf"}, {"s-1", "Skill", "other"}} {
		Handle(context.Background(), hookio.EventPostToolUse, call(hookio.EventPostToolUse, c[0], c[1], c[2]), h)
	}
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != Ask {
		t.Fatalf("another call's PostToolUse allowed the use: %+v", res)
	}
}

// A built-in skill's name with no file skillwire observed behind it may be
// served by a folder skillwire does not watch, which the client prefers:
// strict asks; balanced lets the client's own run (review finding 2).
func TestABuiltInSkillsNameIsFamiliarNotClean(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Balanced, None}, {Strict, Ask}, {Audit, None}} {
		tr.policy(tc.p)
		res := tr.check(resolve.Skill, "simplify")
		if res.Answer != tc.want {
			t.Errorf("%s: %s %q", tc.p, res.Answer, res.Reason)
		}
		if tc.want == Ask && !strings.Contains(res.Reason, "a folder skillwire does not watch") {
			t.Errorf("%q", res.Reason)
		}
	}
}
