package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/walker"
)

// modForm is a plugin form listing one hooks module, with a new hook too.
const modForm = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]},"hooksModules":[{"file":"hooks/hooks.json","modules":["./register.js"]}]}`

// withMod makes a skills-folder plugin candidate a mod.
func withMod(st *baseline.Standing) { st.Observed.Canonical = []byte(modForm) }

// A mod can answer or drop every hook, skillwire's too, so its line comes
// first: before a BLOCK, pending reviews and every other dangerous fact.
func TestAModIsToldBeforeEveryOtherItemAndFact(t *testing.T) {
	sts := []baseline.Standing{
		standing("blocked", baseline.Unchanged, adverse),
		configStanding("hook.json", baseline.Changed, `{}`, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`),
	}
	for i := range maxListed {
		sts = append(sts, standing(fmt.Sprintf("p%d", i), baseline.Unchanged, pendingReview))
	}
	sts = append(sts, standing("mod", baseline.New, withMod))
	got := lines(build(Input{Standings: sts}))
	want := `- new since the last session: global skill "mod" id swaaaamod: hooks module "./register.js" (listed in "hooks/hooks.json") runs in-process code that can answer, rewrite or drop every hook of your settings, skillwire's included; new Stop hook runs "x"`
	if got[0] != want {
		t.Errorf("first line\n%s\nwant\n%s", got[0], want)
	}
}

// The person's line counts mods before anything else it counts.
func TestThePersonsLineCountsModsFirst(t *testing.T) {
	adv := build(Input{Standings: []baseline.Standing{
		standing("blocked", baseline.Unchanged, adverse),
		standing("mod", baseline.New, withMod),
		standing("other", baseline.New, withMod),
	}})
	want := "skillwire: 2 mods (in-process code that can answer or drop every hook, skillwire's included), 1 BLOCKed, 2 new hooks in settings, 2 new"
	if !strings.HasPrefix(adv.Notice, want) {
		t.Errorf("notice %q\nwant it to start %q", adv.Notice, want)
	}
	control := build(Input{Standings: []baseline.Standing{standing("blocked", baseline.Unchanged, adverse)}})
	if strings.Contains(control.Notice, "mod") {
		t.Errorf("control: no mod, notice %q", control.Notice)
	}
}

// Installed in user settings, skillwire cannot hold against a loaded mod:
// the advisory and the person's line say so and name --managed. Control:
// hooks in managed settings run above every mod, and neither says it.
func TestAModSaysSkillwireCannotHoldUnlessItsHooksAreManaged(t *testing.T) {
	obs := []baseline.Observation{{Root: skills, Walk: &walker.Root{Candidates: []walker.Candidate{{Name: []byte("mod"), Canonical: []byte(modForm)}}}}}
	for _, managed := range []bool{false, true} {
		adv := build(Input{Obs: obs, ManagedHooks: managed, Standings: []baseline.Standing{standing("mod", baseline.Unchanged, withMod)}})
		said := strings.Contains(adv.Text, "skillwire cannot hold against it") && strings.Contains(adv.Text, "sudo skillwire hook install --managed")
		if said == managed {
			t.Errorf("managed %v: the advisory says it cannot hold: %v\n%s", managed, said, adv.Text)
		}
		if got := strings.Contains(adv.Notice, "cannot hold against it: run `sudo skillwire hook install --managed`"); got == managed {
			t.Errorf("managed %v: the notice says it: %v (%q)", managed, got, adv.Notice)
		}
	}
}
