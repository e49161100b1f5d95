package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/resolve"
	"github.com/skillwire/skillwire/verdict"
)

// While every folder the session added is observed, a built-in's name is
// the client's own (balanced lets it run); while one is not, a file of
// that name may be served from it, so the name is new and asked, an
// agent's included.
func TestABuiltinNameIsAskedWhileTheAddedFoldersAreNotAllKnown(t *testing.T) {
	for _, tc := range []struct {
		kind resolve.Kind
		name string
	}{{resolve.Skill, "simplify"}, {resolve.Agent, "Explore"}, {resolve.Agent, "general-purpose"}} {
		for _, addedUnknown := range []bool{false, true} {
			tr := newTree(t)
			tr.locate()
			tr.env.AddedUnknown = addedUnknown
			res := tr.check(tc.kind, tc.name)
			want := None
			if addedUnknown {
				want = Ask
			}
			if res.Answer != want {
				t.Errorf("%s, added unknown %v: %s %q, want %s", tc.name, addedUnknown, res.Answer, res.Reason, want)
			}
			if addedUnknown && !strings.Contains(res.Reason, "added folders skillwire cannot observe") {
				t.Errorf("%s: reason %q", tc.name, res.Reason)
			}
		}
	}
	t.Run("strict still asks for a built-in skill", func(t *testing.T) {
		tr := newTree(t)
		tr.locate()
		tr.policy(Strict)
		if res := tr.check(resolve.Skill, "simplify"); res.Answer != Ask {
			t.Errorf("%s %q", res.Answer, res.Reason)
		}
	})
	t.Run("an unknown name says the folders are unknown", func(t *testing.T) {
		tr := newTree(t)
		tr.locate()
		tr.env.AddedUnknown = true
		if res := tr.check(resolve.Skill, "nothing-here"); res.Answer != Ask || !strings.Contains(res.Reason, "cannot observe") {
			t.Errorf("%s %q", res.Answer, res.Reason)
		}
	})
}

// A name that matches no observed candidate but is the name of one
// recorded BLOCK or SUSPECT is held as that verdict (its file may have
// moved where skillwire cannot see it, an added folder skillwire cannot
// read), never merely asked: a person's allow at the prompt would load a
// BLOCKed body.
func TestANameOfNoObservedCandidateIsHeldAsTheAdverseOneItNames(t *testing.T) {
	for _, tc := range []struct {
		name, verdict string
		kind          resolve.Kind
		use           string
		policy        Policy
		want          Answer
	}{
		{"a BLOCKed skill's name", verdict.Block, resolve.Skill, "evil", Balanced, Deny},
		{"a SUSPECT skill's name under balanced", verdict.Suspect, resolve.Skill, "evil", Balanced, Ask},
		{"a SUSPECT skill's name under strict", verdict.Suspect, resolve.Skill, "evil", Strict, Deny},
		{"a BLOCKed agent's name, folded as the client folds it", verdict.Block, resolve.Agent, "Evil_Agent", Balanced, Deny},
		{"a BLOCKed skill's name through the Agent tool is not it", verdict.Block, resolve.Agent, "evil", Balanced, Ask},
		{"a BLOCKed skill named like a built-in", verdict.Block, resolve.Skill, "simplify", Balanced, Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.locate()
			var dir, key string
			switch {
			case tc.kind == resolve.Agent && tc.use != "evil":
				dir = filepath.Join(tr.cfg, "agents")
				tr.write(filepath.Join(dir, "evilagent.md"), "---\nname: evilagent\n---\nbody\n")
				key = "global/evilagent.md"
			default:
				name := "evil"
				if tc.use == "simplify" {
					name = "simplify"
				}
				tr.skill("user", name)
				dir = filepath.Join(tr.cfg, "skills")
				key = "global/" + name
			}
			tr.deliver()
			s := tr.deliver()[key]
			tr.record(s, tc.verdict)
			tr.policy(tc.policy)
			must(t, os.RemoveAll(dir)) // moved where skillwire does not look
			res := tr.check(tc.kind, tc.use)
			if res.Answer != tc.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, tc.want)
			}
			if held := strings.Contains(res.Reason, "held as"); held != (tc.kind != resolve.Agent || tc.use != "evil") {
				t.Errorf("held %v: reason %q", held, res.Reason)
			}
		})
	}
}
