package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/settings"
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
// the advisory and the person's line say so and name --managed. In managed
// settings a mod can still rewrite a deny: both say so and name
// --managed-mods-only. Control: the client's allowManagedModsOnly keeps the
// mod from loading, and neither says a word of it.
func TestAModSaysSkillwireCannotHoldUnlessModsAreManagedOnly(t *testing.T) {
	obs := []baseline.Observation{{Root: skills, Walk: &walker.Root{Candidates: []walker.Candidate{{Name: []byte("mod"), Canonical: []byte(modForm)}}}}}
	modsOnly := settings.ModPolicy{ManagedHooks: true, ModsOnly: "/m/managed-settings.d/skillwire.json", Seated: true}
	for _, tc := range []struct {
		name           string
		policy         settings.ModPolicy
		advice, notice string
	}{
		{"user settings", settings.ModPolicy{}, "above skillwire's hooks in user settings, so skillwire cannot hold against it", "skillwire's hooks in user settings cannot hold against it"},
		{"managed hooks", settings.ModPolicy{ManagedHooks: true, Seated: true}, "it can still rewrite what a deny returns (session.append), so skillwire cannot hold against it", "can rewrite what skillwire's managed hooks deny"},
		{"control: managed mods only", modsOnly, "", ""},
	} {
		adv := build(Input{Obs: obs, ModPolicy: tc.policy, Standings: []baseline.Standing{standing("mod", baseline.Unchanged, withMod)}})
		const run = "run `sudo skillwire hook install --managed --managed-mods-only`"
		if tc.advice == "" {
			if strings.Contains(adv.Text, "cannot hold") || strings.Contains(adv.Notice, "mod") {
				t.Errorf("%s: told\n%s\n%s", tc.name, adv.Text, adv.Notice)
			}
			continue
		}
		if !strings.Contains(adv.Text, tc.advice) || !strings.Contains(adv.Text, run) {
			t.Errorf("%s: the advisory\n%s\nwant %q and %q", tc.name, adv.Text, tc.advice, run)
		}
		if !strings.Contains(adv.Notice, tc.notice+": "+run) {
			t.Errorf("%s: the notice %q, want %q", tc.name, adv.Notice, tc.notice)
		}
	}
}
