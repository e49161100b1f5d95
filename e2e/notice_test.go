//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// noticeWords open the person's line (the hook's systemMessage).
const noticeWords = "skillwire: first run, "

// The person never sees the session notice (issue 23). The client takes the
// SessionStart output's systemMessage and validates it. It never sends it to
// the model, while the advisory still reaches the model. Control: a session
// with nothing to say has no systemMessage.
func TestTheSessionNoticeIsThePersonsAndNeverTheModels(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	w.Skill("home/.claude/skills", "notes", "NOTES v1")
	w.Install()

	m := model(t, nil)
	r := w.Claude(m, Run{Prompt: "hello"})
	noTrouble(t, r)
	if !strings.Contains(r.Debug, "Successfully parsed and validated hook JSON output") {
		t.Errorf("the client did not validate the SessionStart output:\n%s", r.Debug)
	}
	if !strings.Contains(r.Debug, `Hooks: Parsed initial response: {"systemMessage":"`+noticeWords) {
		t.Errorf("the client's log shows no systemMessage %q\n%s", noticeWords, r.Debug)
	}
	if a := advisory(m); !strings.Contains(a, "skillwire first run") {
		t.Errorf("the model got no advisory: %q", a)
	}
	if m.Sent(noticeWords) || m.Sent("skillwire review") {
		t.Errorf("the person's notice reached the model")
	}

	m = model(t, nil)
	r = w.Claude(m, Run{Prompt: "hello"})
	noTrouble(t, r)
	if strings.Contains(r.Debug, "systemMessage") || strings.Contains(r.Debug, "run `skillwire status`") {
		t.Errorf("control: an unchanged session showed a notice")
	}
}
