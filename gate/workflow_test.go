package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
)

func workflowJS(name, marker string) string {
	return "export const meta = { name: " + name + ", description: 'd', phases: [{ title: 'one' }] }\n// " + marker + "\nreturn 1\n"
}

// workflowFile writes .claude/workflows/<file> of the project.
func (tr *tree) workflowFile(file, content string) string {
	p := filepath.Join(tr.project, ".claude", "workflows", file)
	tr.write(p, content)
	return p
}

// pre is the gate's answer to a PreToolUse input of the Workflow tool with
// input as its tool_input.
func (tr *tree) pre(input string) Response {
	tr.t.Helper()
	n := 0
	return Handle(context.Background(), hookio.EventPreToolUse, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Workflow","tool_input":`+input+`}`), tr.hook(&n))
}

// A workflow is run by its meta.name, not its file's: the gate judges the
// file whose meta names the call's name, BLOCK denying and an edit since
// a SAFE review asking; the file's own name answers to nothing observed.
func TestAWorkflowIsJudgedByItsMetaNameNotItsFile(t *testing.T) {
	tr := newTree(t)
	tr.workflowFile("a.js", workflowJS("'wf'", "v1"))
	tr.workflowFile("notes.txt", workflowJS("'wf'", "not a script the client lists"))
	s := tr.deliver()["project/a.js"]
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != None {
		t.Fatalf("a first-use workflow: %s %q", res.Answer, res.Reason)
	}
	tr.record(s, verdict.Block)
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != Deny || !strings.Contains(res.Reason, "was reviewed BLOCK") || len(res.Findings) != 1 {
		t.Errorf("BLOCKed: %s %q (%d findings)", res.Answer, res.Reason, len(res.Findings))
	}
	for _, name := range []string{"a", "notes.txt"} {
		if res := tr.check(resolve.Workflow, name); res.Answer != Ask || !strings.Contains(res.Reason, "is none that skillwire has observed") {
			t.Errorf("%q: %s %q", name, res.Answer, res.Reason)
		}
	}
	// The BLOCKed file's own name is held as it (gate/like.go).
	if res := tr.check(resolve.Workflow, "a.js"); res.Answer != Deny || !strings.Contains(res.Reason, "held as BLOCKed") {
		t.Errorf("a.js: %s %q", res.Answer, res.Reason)
	}
	tr.record(s, verdict.Safe)
	tr.workflowFile("a.js", workflowJS("'wf'", "v2: agent('push to main')"))
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != Ask || !strings.Contains(res.Reason, "changed since it was reviewed SAFE") {
		t.Errorf("edited since SAFE: %s %q", res.Answer, res.Reason)
	}
}

// A file whose meta the client may read otherwise than skillwire (not the
// client's fast shape, unreadable, a link) may bear any name: a BLOCK on
// it denies every name but the built-ins it cannot replace unseen.
func TestAWorkflowWhoseNameCannotBeReadAnswersToEveryName(t *testing.T) {
	tr := newTree(t)
	tr.workflowFile("odd.js", "'use strict'\nexport const meta = { name: 'wf', description: 'd' }\n")
	tr.workflowFile("fine.js", workflowJS("'other'", "x"))
	sts := tr.deliver()
	tr.record(sts["project/odd.js"], verdict.Block)
	for _, name := range []string{"wf", "anything", "other", "deep-research"} {
		res := tr.check(resolve.Workflow, name)
		if res.Answer != Deny {
			t.Errorf("%q: %s %q", name, res.Answer, res.Reason)
		}
	}
}

// The client's own workflows are nothing to judge while no watched file
// takes their name; a file that does is judged as itself.
func TestABuiltinWorkflowIsTheClientsOwnUnlessAFileTakesItsName(t *testing.T) {
	tr := newTree(t)
	tr.policy(Strict)
	if res := tr.check(resolve.Workflow, "deep-research"); res.Answer != None {
		t.Errorf("the built-in: %s %q", res.Answer, res.Reason)
	}
	tr.workflowFile("dr.js", workflowJS(`"deep-research"`, "replaces it"))
	tr.record(tr.deliver()["project/dr.js"], verdict.Block)
	if res := tr.check(resolve.Workflow, "deep-research"); res.Answer != Deny {
		t.Errorf("a file taking the built-in's name: %s %q", res.Answer, res.Reason)
	}
}

// Whatever a Workflow call's input holds (garbage, huge or control-laden
// names, paths with / and .., a namespaced name, a script of its own), the
// gate asks or denies, never allows and never stays silent on what it did
// not observe, and its reason carries no control or bidi byte.
func TestAWorkflowCallsInputIsJudgedWhateverItHolds(t *testing.T) {
	tr := newTree(t)
	wf := tr.workflowFile("a.js", workflowJS("'wf'", "v1"))
	tr.record(tr.deliver()["project/a.js"], verdict.Block)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	huge := strings.Repeat("n", 1<<20)
	for _, tc := range []struct {
		name, input string
		want        Answer
		says        string
	}{
		{"the BLOCKed workflow by name", `{"name":"wf"}`, Deny, "was reviewed BLOCK"},
		{"the BLOCKed workflow by its path", `{"scriptPath":` + q(wf) + `}`, Deny, "was reviewed BLOCK"},
		{"its path spelled with ..", `{"scriptPath":` + q(tr.project+"/.claude/workflows/../workflows/a.js") + `}`, Ask, "the script file"},
		{"a relative path", `{"scriptPath":".claude/workflows/a.js"}`, Ask, "the script file"},
		{"a path over the name", `{"name":"wf","scriptPath":"/tmp/x.js"}`, Ask, `the script file "/tmp/x.js"`},
		{"a file inside a skill", `{"scriptPath":` + q(tr.skill("project", "s")+"/SKILL.md") + `}`, Ask, "the script file"},
		{"an inline script", `{"script":"export const meta = { name: 'x', description: 'd' }\nagent('\u001b[2Jrm -rf ~ \u202e')"}`, Ask, "a script the call itself carries"},
		// The client runs the named file over the call's own script.
		{"an inline script under the BLOCKed name", `{"name":"wf","script":"return 1"}`, Deny, "was reviewed BLOCK"},
		{"an inline script under the BLOCKed file's path", `{"scriptPath":` + q(wf) + `,"script":"return 1"}`, Deny, "was reviewed BLOCK"},
		{"an inline script under another path", `{"scriptPath":"/tmp/x.js","script":"return 1"}`, Ask, "a script the call itself carries"},
		{"a name with a slash", `{"name":"../workflows/a"}`, Ask, "a name that cannot be shown"},
		{"a name with control bytes", `{"name":"wf\u001b[0m\n"}`, Ask, "a name that cannot be shown"},
		{"a huge name", `{"name":"` + huge + `"}`, Ask, "a name that cannot be shown"},
		{"a namespaced name of no plugin", `{"name":"plug:wf"}`, Ask, `the workflow "plug:wf" is none`},
		{"no name at all", `{"args":{"q":1}}`, Ask, "is none that skillwire has observed"},
		{"a name that is not a string", `{"name":["wf"]}`, Ask, "could not be read"},
		{"garbage", `{"name":`, Ask, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tr.pre(tc.input)
			if r.Answer != tc.want || !strings.Contains(r.Reason+strings.Join(r.Notes, "\n"), tc.says) {
				t.Fatalf("%s %q (notes %q), want %s saying %q", r.Answer, r.Reason, r.Notes, tc.want, tc.says)
			}
			if len(r.Reason) > 2000 || strings.ContainsFunc(r.Reason, func(c rune) bool {
				return unicode.IsControl(c) || c == '\u202e' || c == 0xfffd
			}) {
				t.Errorf("the reason carries the input's bytes: %q", r.Reason)
			}
			var out struct {
				Hook struct{ PermissionDecision string } `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(r.Out, &out); err != nil || out.Hook.PermissionDecision != tc.want.String() {
				t.Errorf("printed %s (%v), want %s", r.Out, err, tc.want)
			}
		})
	}
}

// A workflows folder that cannot be listed may hold a file of any meta
// name: a name no file answers is judged anomalous there, not unknown.
func TestAWorkflowsFolderThatCannotBeListedIsJudged(t *testing.T) {
	tr := newTree(t)
	dir := filepath.Join(tr.project, ".claude", "workflows")
	must(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	must(t, os.WriteFile(dir, []byte("not a folder"), 0o644))
	if res := tr.check(resolve.Workflow, "plug:wf"); res.Answer != Ask || !strings.Contains(res.Reason, "workflows folder could not be listed") {
		t.Errorf("%s %q", res.Answer, res.Reason)
	}
}

// wfAgents is a project with agents evil and helper, the courier that
// preloads the skill pdf, and the workflow wf whose script is body; every
// candidate is first-use familiar, the workflow reviewed SAFE.
func wfAgents(t *testing.T, body string) (*tree, map[string]baseline.Standing) {
	tr := newTree(t)
	agents := filepath.Join(tr.project, ".claude", "agents")
	tr.write(filepath.Join(agents, "evil.md"), "---\nname: evil\ndescription: d\n---\nbad\n")
	tr.write(filepath.Join(agents, "helper.md"), "---\nname: Helper Bee\ndescription: d\n---\nhelps\n")
	tr.write(filepath.Join(agents, "courier.md"), "---\nname: courier\ndescription: d\nskills:\n  - pdf\n---\ncarries\n")
	tr.skill("project", "pdf")
	tr.workflowFile("wf.js", "export const meta = { name: 'wf', description: 'd', phases: [{ title: 'one' }] }\n"+body+"\n")
	sts := tr.deliver()
	tr.record(sts["project/wf.js"], verdict.Safe)
	return tr, sts
}

// A reviewed workflow's script starts agents with no PreToolUse call of
// their own (TestAWorkflowsAgentStartsWithoutAPreToolUseCall), so the
// gate judges them at the Workflow call: a BLOCKed agent named by any
// literal denies it, naming the agent; an agent edited since its review is
// asked; what its agents preload is judged too; an agentType skillwire
// cannot name is asked; a script naming none of them is answered nothing.
func TestTheAgentsAWorkflowMayStartAreJudgedAtItsCall(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		setup      func(tr *tree, sts map[string]baseline.Standing)
		want       Answer
		says       string
	}{
		{"no agent of them", "await agent('say hi')\nawait agent('p', { agentType: 'general-purpose' })", nil, None, ""},
		{"a BLOCKed agent by its agentType", "await agent('p', { agentType: 'evil' })", func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/evil.md"], verdict.Block)
		}, Deny, `agent "evil" (`},
		{"a BLOCKed agent by any literal", "const kinds = ['evil']\nawait agent('p')", func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/evil.md"], verdict.Block)
		}, Deny, `was reviewed BLOCK`},
		{"an agent named as the client folds it", "await agent('p', { agentType: 'helper-bee' })", func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/helper.md"], verdict.Block)
		}, Deny, `the workflow "wf" may start it (agent())`},
		{"an agent edited since its review", "await agent('p', { agentType: 'evil' })", func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/evil.md"], verdict.Safe)
			tr.write(filepath.Join(tr.project, ".claude", "agents", "evil.md"), "---\nname: evil\ndescription: d\n---\nworse\n")
		}, Ask, `agent "evil" (`},
		{"what a started agent preloads", "await agent('p', { agentType: 'courier' })", func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/pdf"], verdict.Block)
		}, Deny, `agent "courier" preloads it (skills:)`},
		{"a computed agentType", "await agent('p', { agentType: 'ev' + 'il' })", nil, Ask, "may start an agent skillwire cannot name"},
		{"an unreadable script", "await agent('p', { agentType: 'evil })", nil, Ask, "may start an agent skillwire cannot name: its script could not be read as a whole"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, sts := wfAgents(t, tc.body)
			if tc.setup != nil {
				tc.setup(tr, sts)
			}
			res := tr.check(resolve.Workflow, "wf")
			if res.Answer != tc.want || !strings.Contains(res.Reason, tc.says) {
				t.Fatalf("%s %q, want %s saying %q", res.Answer, res.Reason, tc.want, tc.says)
			}
		})
	}
}

// A literal agentType that names no observed agent is judged at the
// Workflow call as an Agent call of that name is (unknown): asked while
// the session's added folders, or for plugin:name its plugin folders, are
// not all observed; held as the BLOCK or SUSPECT recorded by that name
// (its file moved where skillwire does not look); a built-in's name is
// the client's own while nothing may serve a file of it. A name nothing
// serves is not started (the client's agent() fails on it), and a literal
// that is no agentType (a prompt) is no agent it is certain to start.
func TestALiteralAgentTypeOfNoObservedAgentIsJudgedAsTheAgentToolJudgesIt(t *testing.T) {
	gone := func(v string) func(tr *tree, sts map[string]baseline.Standing) {
		return func(tr *tree, sts map[string]baseline.Standing) {
			tr.record(sts["project/evil.md"], v)
			must(t, os.Remove(filepath.Join(tr.project, ".claude", "agents", "evil.md")))
		}
	}
	for _, tc := range []struct {
		name, body     string
		added, plugins bool
		setup          func(tr *tree, sts map[string]baseline.Standing)
		want           Answer
		says           string
	}{
		{"an unknown name, every folder observed", "await agent('p', { agentType: 'ghost' })", false, false, nil, None, ""},
		{"an unknown name, added folders unobserved", "await agent('p', { agentType: 'ghost' })", true, false, nil, Ask, `the agent "ghost" is none that skillwire has observed nor one of Claude Code's own, and this session added folders skillwire cannot observe`},
		{"an unknown name of a child workflow's", "await workflow('child')", true, false, func(tr *tree, _ map[string]baseline.Standing) {
			tr.workflowFile("child.js", "export const meta = { name: 'child', description: 'd' }\nawait agent('p', { agentType: 'ghost' })\n")
			tr.record(tr.deliver()["project/child.js"], verdict.Safe)
		}, Ask, `the agent "ghost" is none`},
		{"a prompt is no agentType", "await agent('ghost')\nconst k = 'spook'", true, true, nil, None, ""},
		{"a BLOCKed agent's name, its file moved away", "await agent('p', { agentType: 'evil' })", false, false, gone(verdict.Block), Deny, `the agent "evil" is none that skillwire has observed, and is held as BLOCKed`},
		{"a SUSPECT agent's name, its file moved away", "await agent('p', { agentType: 'evil' })", false, false, gone(verdict.Suspect), Ask, `is held as SUSPECT`},
		{"a built-in, every folder observed", "await agent('p', { agentType: 'Explore' })", false, true, nil, None, ""},
		{"a built-in, added folders unobserved", "await agent('p', { agentType: 'Explore' })", true, false, nil, Ask, `the agent "Explore" is one of Claude Code's own, but this session added folders`},
		{"a plugin's name, plugin folders observed", "await agent('p', { agentType: 'other:rev' })", false, false, nil, None, ""},
		{"a plugin's name, plugin folders unobserved", "await agent('p', { agentType: 'other:rev' })", false, true, nil, Ask, `the agent "other:rev" may be served by a plugin this session loads from a folder`},
		{"an observed agent, plugin folders unobserved", "await agent('p', { agentType: 'evil' })", false, true, nil, None, ""},
		{"control bytes are never shown", "await agent('p', { agentType: 'gh\\x1b[2Jost' })", true, false, nil, Ask, "a name that cannot be shown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, sts := wfAgents(t, tc.body)
			tr.record(sts["project/evil.md"], verdict.Safe)
			if tc.setup != nil {
				tc.setup(tr, sts)
			}
			tr.env.AddedUnknown, tr.env.PluginsUnknown = tc.added, tc.plugins
			res := tr.check(resolve.Workflow, "wf")
			if res.Answer != tc.want || !strings.Contains(res.Reason, tc.says) {
				t.Fatalf("%s %q, want %s saying %q", res.Answer, res.Reason, tc.want, tc.says)
			}
			if strings.Contains(res.Reason, "\x1b") {
				t.Errorf("raw bytes in the reason %q", res.Reason)
			}
		})
	}
	t.Run("a plugin's observed agent, plugin folders unobserved", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		tr.workflowFile("wf.js", "export const meta = { name: 'wf', description: 'd' }\nawait agent('p', { agentType: 'docs:rev' })\n")
		sts := tr.deliver()
		tr.record(sts["global/mkt/docs/1.0.0"], verdict.Safe)
		tr.record(sts["project/wf.js"], verdict.Safe)
		for _, unknown := range []bool{false, true} {
			tr.env.PluginsUnknown = unknown
			want := None
			if unknown {
				want = Ask
			}
			if res := tr.check(resolve.Workflow, "wf"); res.Answer != want {
				t.Errorf("plugins unknown %v: %s %q, want %s", unknown, res.Answer, res.Reason, want)
			}
		}
	})
	t.Run("more literal agentTypes than the gate follows", func(t *testing.T) {
		var body strings.Builder
		for i := range maxStarts + 1 {
			fmt.Fprintf(&body, "await agent('p', { agentType: 'ghost%02d' })\n", i)
		}
		tr, _ := wfAgents(t, body.String())
		if res := tr.check(resolve.Workflow, "wf"); res.Answer != Ask || !strings.Contains(res.Reason, "than skillwire follows") {
			t.Errorf("%s %q", res.Answer, res.Reason)
		}
	})
}

// A script the call carries, once a person allows it, starts its agents
// ungated: a BLOCKed one denies it outright. A reviewed workflow's
// workflow('child') is judged, and the child's agents with it.
func TestTheAgentsAnInlineScriptOrAChildWorkflowMayStartAreJudged(t *testing.T) {
	tr, _ := wfAgents(t, "await workflow('child')")
	tr.workflowFile("child.js", "export const meta = { name: 'child', description: 'd' }\nawait agent('p', { agentType: 'evil' })\n")
	sts := tr.deliver()
	tr.record(sts["project/wf.js"], verdict.Safe)
	tr.record(sts["project/evil.md"], verdict.Block)
	if r := tr.pre(`{"script":"await agent('p', { agentType: 'evil' })"}`); r.Answer != Deny || !strings.Contains(r.Reason, "the call's own script may start it") {
		t.Errorf("an inline script starting a BLOCKed agent: %s %q", r.Answer, r.Reason)
	}
	if r := tr.pre(`{"script":"await agent('p')"}`); r.Answer != Ask || !strings.Contains(r.Reason, "a script the call itself carries") {
		t.Errorf("an inline script starting none: %s %q", r.Answer, r.Reason)
	}
	tr.record(sts["project/child.js"], verdict.Block)
	if r := tr.pre(`{"script":"await workflow('child')"}`); r.Answer != Deny || !strings.Contains(r.Reason, "the call's own script runs it (workflow())") {
		t.Errorf("an inline script running a BLOCKed child: %s %q", r.Answer, r.Reason)
	}
	tr.record(sts["project/child.js"], verdict.Safe)
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != Deny || !strings.Contains(res.Reason, `agent "evil"`) {
		t.Errorf("a child's BLOCKed agent: %s %q", res.Answer, res.Reason)
	}
	tr.record(sts["project/evil.md"], verdict.Safe)
	tr.record(sts["project/child.js"], verdict.Block)
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != Deny || !strings.Contains(res.Reason, `runs it (workflow())`) {
		t.Errorf("a BLOCKed child: %s %q", res.Answer, res.Reason)
	}
}

// A script whose literals name more agents than the gate follows is
// judged for those it follows, and the rest is unknown: asked, never
// silence; a script of every literal shape the reader refuses is asked.
func TestAWorkflowStartingMoreAgentsThanTheGateFollowsIsAsked(t *testing.T) {
	var body strings.Builder
	tr := newTree(t)
	for i := range maxStarts + 1 {
		n := fmt.Sprintf("a%02d", i)
		tr.write(filepath.Join(tr.project, ".claude", "agents", n+".md"), "---\nname: "+n+"\ndescription: d\n---\nx\n")
		body.WriteString("await agent('p', { agentType: '" + n + "' })\n")
	}
	tr.workflowFile("wf.js", "export const meta = { name: 'wf', description: 'd' }\n"+body.String())
	sts := tr.deliver()
	for k, s := range sts {
		if strings.HasPrefix(k, "project/a") {
			tr.record(s, verdict.Safe)
		}
	}
	tr.record(sts["project/wf.js"], verdict.Safe)
	if res := tr.check(resolve.Workflow, "wf"); res.Answer != Ask || !strings.Contains(res.Reason, "than skillwire follows") {
		t.Errorf("%s %q", res.Answer, res.Reason)
	}
}

// A plugin's agent is started as plugin:name, the plugin named by its
// plugin.json as the client names it: a BLOCKed version denies a workflow
// naming it so, by either name, and one whose name is unknown answers to
// any plugin's name.
func TestAWorkflowStartingAPluginsAgentJudgesThePlugin(t *testing.T) {
	for _, tc := range []struct {
		name, pluginJSON, agentType string
		want                        Answer
	}{
		{"by its plugin.json name", `{"name":"bar"}`, "bar:rev", Deny},
		{"by its folder's", `{"name":"bar"}`, "foo:rev", Deny},
		{"another plugin's", `{"name":"bar"}`, "baz:rev", None},
		{"a name unknown", `{"name":7}`, "baz:rev", Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			p := tr.plugin("mkt", "foo", "1.0.0")
			tr.write(filepath.Join(p, ".claude-plugin", "plugin.json"), tc.pluginJSON)
			tr.workflowFile("wf.js", "export const meta = { name: 'wf', description: 'd' }\nawait agent('p', { agentType: '"+tc.agentType+"' })\n")
			sts := tr.deliver()
			tr.record(sts["global/mkt/foo/1.0.0"], verdict.Block)
			tr.record(sts["project/wf.js"], verdict.Safe)
			if res := tr.check(resolve.Workflow, "wf"); res.Answer != tc.want {
				t.Errorf("%s %q, want %s", res.Answer, res.Reason, tc.want)
			}
		})
	}
}

// A scriptPath is the file the client resolves (path.resolve): one under
// a watched workflow's name (a.js/../evil.js), or spelled with ".", ".."
// or an empty component, is no watched file skillwire proved, and is
// asked as a script it does not watch, never judged as the reviewed one
// (issue 22).
func TestAScriptPathIsTheReviewedWorkflowOnlyWhenItNamesItExactly(t *testing.T) {
	tr := newTree(t)
	wf := tr.workflowFile("a.js", workflowJS("'wf'", "reviewed"))
	tr.workflowFile("evil.js", workflowJS("'evil'", "never reviewed"))
	tr.record(tr.deliver()["project/a.js"], verdict.Safe)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	if r := tr.pre(`{"scriptPath":` + q(wf) + `}`); r.Answer != None {
		t.Fatalf("the reviewed file by its path: %s %q", r.Answer, r.Reason)
	}
	dir := filepath.Dir(wf)
	for _, p := range []string{wf + "/../evil.js", wf + "/", wf + "/.", wf + "/x", dir + "/./a.js", dir + "//a.js", dir + "/../workflows/a.js", "a.js", "./.claude/workflows/a.js", "/"} {
		t.Run(p, func(t *testing.T) {
			if r := tr.pre(`{"scriptPath":` + q(p) + `}`); r.Answer != Ask || !strings.Contains(r.Reason, "the script file") {
				t.Errorf("%s %q, want the script file asked", r.Answer, r.Reason)
			}
		})
	}
}

// A plugin's workflow reached by its scriptPath is the plugin's workflow,
// as by its name plugin:name: skillwire does not read its scripts, so the
// agents it may start are asked, whatever the plugin's review (issue 22).
func TestAPluginsWorkflowByPathIsJudgedAsByName(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	p := tr.plugin("mkt", "foo", "1.0.0")
	pw := filepath.Join(p, "workflows", "pw.js")
	tr.write(pw, "export const meta = { name: 'pw', description: 'd' }\nawait agent('p', { agentType: 'rev' })\n")
	tr.record(tr.deliver()["global/mkt/foo/1.0.0"], verdict.Safe)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, in := range []string{`{"name":"foo:pw"}`, `{"scriptPath":` + q(pw) + `}`} {
		t.Run(in, func(t *testing.T) {
			if r := tr.pre(in); r.Answer != Ask || !strings.Contains(r.Reason, "may start an agent skillwire cannot name: it is a plugin's") {
				t.Errorf("%s %q", r.Answer, r.Reason)
			}
		})
	}
}
