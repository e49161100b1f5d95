package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
)

// While every folder the session added is observed, a built-in's name is
// the client's own: balanced lets it run. While one is not, it may serve a
// file of that name. So the name is new and asked, an agent's included.
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

// A name may match no observed candidate but name one recorded BLOCK or
// SUSPECT. It is held as that verdict. Its file may have moved out of
// skillwire's sight, to an added folder skillwire cannot read. It is never
// merely asked: a person's allow at the prompt would load a BLOCKed body.
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

// The session may load plugins from folders skillwire cannot all observe
// or name (Env.PluginsUnknown). Then any plugin:name may be a twin there.
// The client prefers it to the installed plugin of its name. So a name
// that matches a vetted plugin is asked, never answered from that
// plugin's verdict. A name of nothing observed is asked as such a twin. An
// adverse verdict still answers worst. A name of no plugin is not held.
func TestAPluginNameIsHeldWhileThePluginFoldersAreNotAllKnown(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Safe)
		tr.env.PluginsUnknown = unknown
		for _, c := range []struct {
			kind resolve.Kind
			name string
		}{{resolve.Skill, "docs:pdf"}, {resolve.Agent, "docs:rev"}, {resolve.Skill, "docs:nothing"}, {resolve.Skill, "other:x\x1b[2J"}} {
			res := tr.check(c.kind, c.name)
			want := None
			if unknown || strings.HasPrefix(c.name, "other:") {
				want = Ask
			}
			if res.Answer != want {
				t.Errorf("plugins unknown %v, %q: %s %q, want %s", unknown, c.name, res.Answer, res.Reason, want)
			}
			if unknown && !strings.Contains(res.Reason, "may be served by a plugin this session loads from a folder") {
				t.Errorf("%q: reason %q", c.name, res.Reason)
			}
			if strings.Contains(res.Reason, "\x1b") {
				t.Errorf("%q: raw bytes in the reason %q", c.name, res.Reason)
			}
		}
		if res := tr.check(resolve.Skill, "simplify"); res.Answer != None {
			t.Errorf("plugins unknown %v: a built-in with no plugin's name answered %s %q", unknown, res.Answer, res.Reason)
		}
	}
	t.Run("a BLOCK still denies", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Block)
		tr.env.PluginsUnknown = true
		if res := tr.check(resolve.Skill, "docs:pdf"); res.Answer != Deny {
			t.Errorf("%s %q", res.Answer, res.Reason)
		}
	})
}
