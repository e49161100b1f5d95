package gate

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/gate/served"
)

// kindTree is a tree holding foo of one kind, reviewed SAFE: a user agent,
// a project command, or a skill of a folder added at the start. It gives
// foo's file and the use that names it. Its clock runs a minute ahead.
func kindTree(t *testing.T, kind string) (tr *tree, file string, use func(s string) Result) {
	tr = newTree(t)
	var key string
	k := resolve.Skill
	switch kind {
	case "agent":
		file, key, k = filepath.Join(tr.cfg, "agents", "foo.md"), "global/foo.md", resolve.Agent
	case "command":
		file, key = filepath.Join(tr.project, ".claude", "commands", "foo.md"), "project/foo.md"
	case "added":
		extra := filepath.Join(filepath.Dir(tr.project), "extra")
		tr.env.Roots = append(tr.env.Roots, claude.AddedRoots([]string{extra}, false, tr.vars["HOME"])...)
		file, key = filepath.Join(extra, ".claude", "skills", "foo", "SKILL.md"), "added/foo"
	}
	tr.deliver()
	tr.write(file, fooV1)
	tr.record(tr.deliver()[key], verdict.Safe)
	tr.env.Now = time.Now().Add(time.Minute)
	return tr, file, func(s string) Result {
		tr.t.Helper()
		res, err := Check(context.Background(), Use{Kind: k, Name: "foo", Event: "PreToolUse", Session: s}, tr.env)
		must(tr.t, err)
		return res
	}
}

// An agent, a command and a skill of a folder given with --add-dir are
// served as the client read them at its start (e2e/servedkinds_test.go).
// Changed at the start and put back, the disk is the reviewed foo but the
// copy served is not: strict denies. So it is after a ConfigChange of the
// put back for an agent: the client does not read it again. Controls:
// untouched, it answers as the disk does; a command or added skill whose
// put back was reloaded too answers as the disk does.
func TestAnAgentCommandOrAddedSkillIsJudgedOnTheCopyTheStartKept(t *testing.T) {
	for _, kind := range []string{"agent", "command", "added"} {
		for _, c := range []struct {
			name   string
			tamper bool
			reload bool
		}{
			{"changed at the start, put back", true, false},
			{"changed at the start, put back, its ConfigChange", true, true},
			{"control: untouched", false, false},
		} {
			t.Run(kind+", "+c.name, func(t *testing.T) {
				tr, file, use := kindTree(t, kind)
				tr.policy(Strict)
				if c.tamper {
					tr.write(file, fooEvil)
				}
				tr.start("s1", tr.walk())
				if c.tamper {
					tr.write(file, fooV1)
				}
				if c.reload {
					// The tree's own roots: a hook locates no added folder here.
					cc := hookio.ConfigChange{Source: hookio.SourceSkills, Path: file, Cwd: tr.project, Session: "s1"}
					if r := configChanged(context.Background(), cc, tr.env, time.Minute); r.Answer != None {
						t.Fatalf("the reload was blocked: %s %q", r.Answer, r.Reason)
					}
				}
				want := None
				if c.tamper && (!c.reload || kind == "agent") {
					want = Deny
				}
				if res := use("s1"); res.Answer != want {
					t.Fatalf("%s %q, want %s", res.Answer, res.Reason, want)
				}
			})
		}
	}
}

// A folder added mid-session (/add-dir) was not read at the start. A start
// whose keep lists every folder it read, without it, leaves its skills
// judged on the disk alone. Control: a session marked whose keep was never
// made asks (one whose start read more folders than it keeps: hookstate's
// TestAStartReadEveryFolderAWholeKeepLists).
func TestAFolderAddedAfterTheStartKeptIsJudgedOnTheDisk(t *testing.T) {
	for _, c := range []struct {
		name string
		keep func(tr *tree)
		want Answer
	}{
		{"added after the start", func(tr *tree) { tr.start("s1", tr.walk()) }, None},
		{"control: marked, its keep never made", func(tr *tree) {
			tr.start("s0", tr.walk())
			must(tr.t, served.MarkStart(storeOptions(context.Background(), tr.env.Store), "s1", tr.env.Now))
		}, Ask},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, file, use := kindTree(t, "added")
			tr.policy(Strict)
			added := tr.env.Roots
			tr.env.Roots = slices.DeleteFunc(slices.Clone(added), func(r claude.Root) bool { return r.Scope == claude.Added })
			c.keep(tr)
			tr.env.Roots = added
			tr.write(file, fooV1)
			if res := use("s1"); res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
		})
	}
}

// A folder added with /add-dir is served as the client read it just
// before the DirectoryAdded hook, until its watcher reloads a skill. So
// the hook keeps that copy. Changed at the add and put back, the disk is
// the reviewed foo but the copy served is not: strict denies. Controls:
// untouched, or put back and reloaded (its ConfigChange), it answers as
// the disk does.
func TestASkillOfAFolderAddedMidSessionIsJudgedOnTheCopyReadAtTheAdd(t *testing.T) {
	for _, c := range []struct {
		name           string
		tamper, reload bool
		want           Answer
	}{
		{"changed at the add, put back", true, false, Deny},
		{"control: untouched", false, false, None},
		{"control: put back and reloaded", true, true, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, file, _ := kindTree(t, "added")
			tr.policy(Strict)
			extra := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
			tr.env.Roots = slices.DeleteFunc(tr.env.Roots, func(r claude.Root) bool { return r.Scope == claude.Added })
			tr.start("s1", tr.walk())
			if c.tamper {
				tr.write(file, fooEvil)
			}
			n := 0
			h := tr.hook(&n)
			ctx := context.Background()
			if r := Handle(ctx, hookio.EventDirectoryAdded, directoryInput("s1", tr.project, extra), h); len(r.Notes) != 1 {
				t.Fatalf("the add: notes %q", r.Notes)
			}
			if c.tamper {
				tr.write(file, fooV1)
			}
			if c.reload {
				if r := tr.configChange("s1", file); r.Answer != None {
					t.Fatalf("the reload was blocked: %s %q", r.Answer, r.Reason)
				}
			}
			if r := Handle(ctx, hookio.EventPreToolUse, useIn("s1", "foo"), h); r.Answer != c.want {
				t.Fatalf("%s %q, want %s", r.Answer, r.Reason, c.want)
			}
		})
	}
}
