package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/served"
	"github.com/skillwire/skillwire/snapshot"
)

const (
	fooV1   = "---\nname: foo\n---\nFOO v1\n"
	fooEvil = "---\nname: foo\n---\nEVIL\n"
)

// topTree is a tree whose global skills folder holds foo, reviewed SAFE.
// Its clock runs a minute ahead, past the racy window of its files.
func topTree(t *testing.T) (*tree, string) {
	tr := newTree(t)
	tr.deliver()
	foo := filepath.Join(tr.skill("user", "foo"), "SKILL.md")
	tr.write(foo, fooV1)
	tr.record(tr.deliver()["global/foo"], verdict.Safe)
	tr.env.Now = time.Now().Add(time.Minute)
	return tr, foo
}

// start keeps, for session s, what the walk obs observed (KeepStart).
func (tr *tree) start(s string, obs []baseline.Observation) {
	tr.t.Helper()
	must(tr.t, served.KeepStart(storeOptions(context.Background(), tr.env.Store), s, obs, tr.env.Nested, tr.env.Now))
}

// A top-level skill is judged on the copy the session's start kept. The
// client serves that copy until its watcher reloads it. Changed at the
// start and put back, the disk is the reviewed foo but the copy served is
// not: strict denies, balanced asks. Written between the start's walk and
// its keep, the stamp shows the write. Written and put back after the
// keep, the stamp moved. Control: untouched, it answers as the disk does.
func TestATopLevelSkillIsJudgedOnTheCopyTheStartKept(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		setup  func(tr *tree, foo string)
		want   Answer
	}{
		{"changed at the start, put back, strict", Strict, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			tr.start("s1", tr.walk())
			tr.write(foo, fooV1)
		}, Deny},
		{"changed at the start, put back, balanced", Balanced, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			tr.start("s1", tr.walk())
			tr.write(foo, fooV1)
		}, Ask},
		{"put back between the walk and the keep", Strict, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			obs := tr.walk()
			tr.write(foo, fooV1)
			tr.start("s1", obs)
		}, Deny},
		{"written and put back after the keep", Strict, func(tr *tree, foo string) {
			tr.start("s1", tr.walk())
			tr.write(foo, fooEvil)
			tr.write(foo, fooV1)
		}, Deny},
		{"changed at the start, put back, then a compaction's start", Strict, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			tr.start("s1", tr.walk())
			tr.write(foo, fooV1)
			tr.start("s1", tr.walk()) // SessionStart(compact): the same process
		}, Deny},
		{"control: untouched", Strict, func(tr *tree, _ string) { tr.start("s1", tr.walk()) }, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, foo := topTree(t)
			tr.policy(c.policy)
			c.setup(tr, foo)
			res := tr.use("s1", "foo")
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
			if c.want != None && !strings.Contains(res.Reason, "after Claude Code read it") {
				t.Errorf("reason %q", res.Reason)
			}
		})
	}
}

// What no start kept is asked once the start kept anything: a skill that
// appeared after it, or all of a session whose record was let go. A record that does not decode is asked too
// (TestACopyThatCannotBeReadIsAsked). A session whose
// start kept nothing (started before the hooks were installed, or a hook
// input with no session) is judged on the disk alone, as before issue 31:
// hook inputs that name no session start are answered as the disk does.
func TestATopLevelSkillWithNoCopyKeptIsAskedOnceTheStartKeptAny(t *testing.T) {
	for _, c := range []struct {
		name    string
		setup   func(tr *tree)
		session string
		want    Answer
	}{
		{"appeared after the start", func(tr *tree) {
			tr.start("s1", tr.walk())
			tr.write(filepath.Join(tr.cfg, "skills", "bar", "SKILL.md"), "---\nname: bar\n---\nBAR\n")
			tr.record(tr.deliver()["global/bar"], verdict.Safe)
		}, "s1", Ask},
		{"marked, its keep never made", func(tr *tree) {
			must(tr.t, served.MarkStart(storeOptions(context.Background(), tr.env.Store), "s1", tr.env.Now))
		}, "s1", Ask},
		{"its record let go after 256 later starts", func(tr *tree) {
			tr.start("s1", tr.walk())
			o := storeOptions(context.Background(), tr.env.Store)
			for i := range 256 {
				must(tr.t, served.MarkStart(o, fmt.Sprintf("later-%d", i), tr.env.Now.Add(time.Duration(i+1)*time.Second)))
			}
		}, "s1", Ask},
		{"another session's start", func(tr *tree) { tr.start("s2", tr.walk()) }, "s1", None},
		{"no session id", func(tr *tree) { tr.start("s1", tr.walk()) }, "", None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := topTree(t)
			tr.policy(Strict)
			c.setup(tr)
			name := "foo"
			if strings.HasPrefix(c.name, "appeared") {
				name = "bar"
			}
			res := tr.use(c.session, name)
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
		})
	}
}

// configChange is the ConfigChange the client's watcher runs before it
// reloads file, in session s.
func (tr *tree) configChange(s, file string) Response {
	tr.t.Helper()
	b, _ := json.Marshal(map[string]any{"hook_event_name": hookio.EventConfigChange, "source": hookio.SourceSkills,
		"file_path": file, "session_id": s, "cwd": tr.project})
	n := 0
	return Handle(context.Background(), hookio.EventConfigChange, b, tr.hook(&n))
}

// The client's watcher reloads a top-level skill after its ConfigChange,
// unless that blocks. So a ConfigChange not blocked keeps the copy about
// to be read. Under balanced a changed foo is asked, so not blocked, and
// the client reads it. Put back and used before the next reload, it is
// asked: the disk is the reviewed foo, the copy served is not. Written and
// put back after the reload's keep, the stamp shows it. Control: the put
// back reloaded too answers as the disk does.
func TestAReloadNotBlockedKeepsTheCopyTheClientReadsAgain(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy Policy
		steps  func(tr *tree, foo string)
		want   Answer
	}{
		{"changed, reloaded, put back", Balanced, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			if r := tr.configChange("s1", foo); r.Answer != None {
				t.Fatalf("the reload was blocked: %s %q", r.Answer, r.Reason)
			}
			tr.write(foo, fooV1)
		}, Ask},
		{"reloaded, then written and put back", Strict, func(tr *tree, foo string) {
			tr.configChange("s1", foo)
			tr.write(foo, fooEvil)
			tr.write(foo, fooV1)
		}, Deny},
		{"control: the put back reloaded too", Balanced, func(tr *tree, foo string) {
			tr.write(foo, fooEvil)
			tr.configChange("s1", foo)
			tr.write(foo, fooV1)
			tr.configChange("s1", foo)
		}, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, foo := topTree(t)
			tr.policy(c.policy)
			tr.start("s1", tr.walk())
			c.steps(tr, foo)
			res := tr.use("s1", "foo")
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
		})
	}
}

// A ConfigChange that names no session keeps nothing, and says so.
func TestAReloadWithoutASessionIsNotKept(t *testing.T) {
	tr, foo := topTree(t)
	tr.policy(Balanced)
	r := tr.configChange("", foo)
	if r.Answer != None || !strings.Contains(strings.Join(r.Notes, "\n"), "was not kept") {
		t.Errorf("%s %q", r.Answer, r.Notes)
	}
}

// A copy served whose content was recorded BLOCK holds the use as BLOCK,
// whatever the disk holds now. Here foo's start copy is bar's, recorded
// BLOCK, and foo was put back since. Under balanced the use is denied.
func TestACopyServedOfBlockedContentIsDenied(t *testing.T) {
	tr, foo := topTree(t)
	tr.policy(Balanced)
	const blocked = "---\ndescription: the bar skill\n---\nEVIL BLOCKED\n"
	tr.write(filepath.Join(tr.cfg, "skills", "bar", "SKILL.md"), blocked)
	tr.record(tr.deliver()["global/bar"], verdict.Block)
	tr.write(foo, blocked)
	obs := tr.walk()
	for _, o := range obs {
		if o.Root.Path == filepath.Join(tr.cfg, "skills") {
			d := map[string]string{}
			for i := range o.Walk.Candidates {
				d[string(o.Walk.Candidates[i].Name)] = baseline.DigestOf(&o.Walk.Candidates[i]).String()
			}
			if d["foo"] != d["bar"] {
				t.Fatalf("foo's copy is not bar's content: %v", d)
			}
		}
	}
	tr.start("s1", obs)
	tr.write(foo, fooV1)
	res := tr.use("s1", "foo")
	if res.Answer != Deny || !strings.Contains(res.Reason, "whose content was reviewed BLOCK") {
		t.Fatalf("%s %q, want deny", res.Answer, res.Reason)
	}
}

// A ConfigChange that blocks keeps nothing: the client keeps the copy it
// had, so the start's copy stays kept. Control: one not blocked keeps the
// copy on disk.
func TestABlockedReloadKeepsNothing(t *testing.T) {
	for _, blocks := range []bool{true, false} {
		tr, foo := topTree(t)
		tr.policy(Strict)
		if !blocks {
			tr.policy(Balanced)
		}
		tr.start("s1", tr.walk())
		kept := func() *snapshot.Hash {
			var d *snapshot.Hash
			must(t, baseline.View(tr.env.Store, func(tx *baseline.Tx) error {
				sv, err := tx.SessionServed().Of("s1")
				f, _ := sv.Folder(filepath.Join(tr.cfg, "skills"))
				sk, _ := f.Skill(tr.globalID("foo"))
				d = sk.Digest
				return err
			}))
			return d
		}
		before := kept()
		tr.write(foo, fooEvil)
		if r := tr.configChange("s1", foo); (r.Answer == Deny) != blocks {
			t.Fatalf("blocks %v: answered %s %q", blocks, r.Answer, r.Reason)
		}
		if after := kept(); before == nil || after == nil || (*after == *before) != blocks {
			t.Errorf("blocks %v: kept %v, then %v", blocks, before, after)
		}
	}
}

// globalID is the id of the global skill name, read without advancing
// any record.
func (tr *tree) globalID(name string) string {
	var id string
	must(tr.t, baseline.View(tr.env.Store, func(tx *baseline.Tx) error {
		id = tx.ID(filepath.Join(tr.cfg, "skills"), []byte(name))
		return nil
	}))
	return id
}

// Copies that could not be read prove nothing: a record that does not
// decode (hookstate's TestServedCopiesAreValidated) reads as not ok, and a
// use of a top-level skill is asked. Control: one read, the copy the
// disk's, answers as the disk does.
func TestACopyThatCannotBeReadIsAsked(t *testing.T) {
	tr, _ := topTree(t)
	obs := tr.walk()
	tr.start("s1", obs)
	st := tr.store()
	defer st.Close()
	must(t, st.View(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(obs)
		for i := range sts {
			s := &sts[i]
			if string(s.Name) != "foo" || s.Root.Path != filepath.Join(tr.cfg, "skills") {
				continue
			}
			sv, err := tx.SessionServed().Of("s1")
			must(t, err)
			for _, ok := range []bool{false, true} {
				c, err := served.JudgeAtStart(tx, s, s.Digest(), sv, ok, tr.env.Now)
				if want := map[bool]served.Copy{false: served.StartUnkept, true: served.Same}[ok]; c != want || err != nil {
					t.Errorf("read %v: %v %v, want %v", ok, c, err, want)
				}
			}
		}
		return err
	}))
}
