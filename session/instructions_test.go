package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
)

const instrWords = "loaded mid-session with content that differs from what skillwire last observed"

func instrChange(i int, name string) baseline.InstructionChange {
	return baseline.InstructionChange{ID: fmt.Sprintf("swinstrqqqqqqqq%c", 'a'+i), Name: []byte(name), Memory: "Project",
		At: time.Date(2026, 11, 30, 8, i, 0, 0, time.UTC), Digest: &snapshot.Hash{byte(i)}}
}

func TestAChangedInstructionFileIsToldAtTheNextSessionStartUntilDelivered(t *testing.T) {
	l := newLife(t)
	l.session() // first run
	c := instrChange(1, "CLAUDE.md")
	must(t, l.update(func(tx *baseline.Tx) error { return tx.Instructions().Put(c) }))
	want := `- instruction file "CLAUDE.md" (Project) id ` + c.ID + ": " + instrWords + ", at 2026-11-30T08:01:00Z"

	l.undelivered = true
	if adv := l.session(); !strings.Contains(adv.Text, want) {
		t.Fatalf("not told:\n%s", adv.Text)
	}
	l.undelivered = false
	if adv := l.session(); !strings.Contains(adv.Text, want) {
		t.Fatalf("an undelivered tell was consumed:\n%s", adv.Text)
	}
	if adv := l.session(); strings.Contains(adv.Text, "instruction file") {
		t.Fatalf("told again after delivery:\n%s", adv.Text)
	}
}

func TestChangedInstructionFilesBeyondAFewAreCountedAndHeldOver(t *testing.T) {
	var cs []baseline.InstructionChange
	for i := range 5 {
		cs = append(cs, instrChange(5-i, "CLAUDE.md")) // newest first: told oldest first
	}
	adv := build(Input{Instructions: sortedOldestFirst(cs)})
	if n := strings.Count(adv.Text, instrWords); n != maxInstructions {
		t.Fatalf("%d named, want %d:\n%s", n, maxInstructions, adv.Text)
	}
	if !strings.Contains(adv.Text, "Not listed here: 2 more instruction file(s) loaded with changed content.") {
		t.Fatalf("the rest not counted:\n%s", adv.Text)
	}
	if len(adv.Instructions) != maxInstructions || adv.Instructions[0].ID != instrChange(1, "").ID || !adv.Applies() {
		t.Fatalf("consumes %+v, want the %d oldest", adv.Instructions, maxInstructions)
	}
}

func sortedOldestFirst(cs []baseline.InstructionChange) []baseline.InstructionChange {
	out := make([]baseline.InstructionChange, len(cs))
	for i := range cs {
		out[len(cs)-1-i] = cs[i]
	}
	return out
}

func TestChangedInstructionFilesWaitWhenTheCapIsReached(t *testing.T) {
	told := []item{{text: strings.Repeat("x", textBudget-100)}}
	tell, lines, held := limitInstructions([]baseline.InstructionChange{instrChange(1, "CLAUDE.md")}, told)
	if len(tell) != 0 || len(lines) != 0 || held != 1 {
		t.Fatalf("told %+v past the cap (held %d)", tell, held)
	}
}

func TestAnInstructionFilesHostileNameNeverReachesTheSession(t *testing.T) {
	adv := build(Input{Instructions: []baseline.InstructionChange{instrChange(1, "evil\x1b[2J.md")}})
	if strings.Contains(adv.Text, "evil") || !strings.Contains(adv.Text, "instruction file (name hidden) (Project) id ") {
		t.Fatalf("advisory:\n%q", adv.Text)
	}
}
