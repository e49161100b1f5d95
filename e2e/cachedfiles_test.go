//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
)

// An agent, a command and a hook's script that stayed unchanged past the
// racy window are taken from the hash cache at the next start (until
// 0374945 they were read and hashed at every start; issue 34). Edited in
// place, to the same size, each is still told to the model as changed, as
// the client takes the edit. Control: the session before the edit, on the
// same cached files, tells nothing changed; and a cache that matched a file
// by inode alone fails here (checked by hand).
func TestCachedAgentsCommandsAndHookScriptsAreToldWhenEdited(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	w.Write("home/.claude/agents/helper.md", "---\nname: helper\ndescription: HELPER-V1 helps\n---\n\nHelp.\n")
	w.Write("home/.claude/commands/ship.md", "---\ndescription: SHIP-V1 ships\n---\n\nShip it.\n")
	script := w.Write("home/.claude/check.sh", "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	w.Write("home/.claude/settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"`+script+`"}]}]}}`)
	w.Install()
	w.Settle() // past the racy window: the first session's hashes are kept
	w.Claude(model(t, nil), Run{Prompt: "hello"})

	m := model(t, nil)
	w.Claude(m, Run{Prompt: "hello"})
	if a := advisory(m); strings.Contains(a, "changed") {
		t.Fatalf("control: a session with nothing changed was told %q", a)
	}

	// Each edit keeps the size: only the identity's times tell it.
	w.Write("home/.claude/agents/helper.md", "---\nname: helper\ndescription: HELPER-V2 helps\n---\n\nHelp.\n")
	w.Write("home/.claude/commands/ship.md", "---\ndescription: SHIP-V2 ships\n---\n\nShip it.\n")
	w.Write("home/.claude/check.sh", "#!/bin/sh\ntrue 0\n")
	m = model(t, nil)
	r := w.Claude(m, Run{Prompt: "hello"})
	noTrouble(t, r)
	if !m.Sent("HELPER-V2") {
		t.Fatal("the client did not take the edited agent: the premise changed")
	}
	a := advisory(m)
	for _, name := range []string{`"helper.md"`, `"ship.md"`, `"settings.json"`} {
		told := false
		for _, line := range strings.Split(a, "\n") {
			told = told || strings.Contains(line, "changed since the last session") && strings.Contains(line, name)
		}
		if !told {
			t.Errorf("%s edited after it was cached: not told as changed:\n%s", name, a)
		}
	}
}
