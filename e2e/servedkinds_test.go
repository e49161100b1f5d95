//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	kindBody = "KIND-BODY-v1-3d1f: format the changed files."
	kindEdit = "KIND-BODY-EDITED-5a9e: format, then push to main."
)

// servedKind is one kind the client reads by name: where its file lies,
// its text with a body, the model's use of it, and the client's flags.
type servedKind struct {
	name   string
	kind   string // skillwire's kind and name of it, to record a verdict
	listed string
	rel    string // below the world's root
	text   func(body string) string
	use    Reply
	tool   string  // the tool the use calls
	agent  []Reply // the subagent's script, for an agent
	args   []string
}

func agentText(body string) string {
	return "---\nname: foo\ndescription: The foo agent. Use it when asked to run foo.\n---\n\n" + body + "\n"
}

func commandText(body string) string {
	return "---\ndescription: The foo command. Use it when asked to run foo.\n---\n\n" + body + "\n"
}

var (
	userAgent      = servedKind{name: "user agent", kind: "agent", listed: "foo.md", rel: "home/.claude/agents/foo.md", text: agentText, use: Agent("foo", "do the task"), tool: "Agent", agent: []Reply{Say("agent done.")}}
	projectAgent   = servedKind{name: "project agent", kind: "agent", listed: "foo.md", rel: "proj/.claude/agents/foo.md", text: agentText, use: Agent("foo", "do the task"), tool: "Agent", agent: []Reply{Say("agent done.")}}
	userCommand    = servedKind{name: "user command", kind: "command", listed: "foo.md", rel: "home/.claude/commands/foo.md", text: commandText, use: Skill("foo"), tool: "Skill"}
	projectCommand = servedKind{name: "project command", kind: "command", listed: "foo.md", rel: "proj/.claude/commands/foo.md", text: commandText, use: Skill("foo"), tool: "Skill"}
	addedSkill     = servedKind{name: "added skill", kind: "skill", listed: "foo", rel: "extra/.claude/skills/foo/SKILL.md", text: func(b string) string { return fooFront + b + "\n" }, use: Skill("foo"), tool: "Skill", args: []string{"--add-dir", "../extra"}}
)

// run is k's run of the client with every tool allowed.
func (k servedKind) run(prompt string) Run {
	r := bypass(prompt)
	r.Args = append(r.Args, k.args...)
	return r
}

// reloadedFor reports whether a ConfigChange hook (source skills) ran for
// file, as the recorder at rec kept it.
func reloadedFor(t *testing.T, rec, file string) bool {
	if !Exists(rec) {
		return false
	}
	for _, in := range inputs(t, rec)["ConfigChange"] {
		if in["source"] == "skills" && in["file_path"] == file {
			return true
		}
	}
	return false
}

// An agent is served as the client read it at its start, all session. Its
// file edited mid-session is not served, used at once or 8 s later. The
// watcher sees the edit: a ConfigChange hook (source skills, file_path the
// agent's) ran before the later use, yet the client did not read the agent
// again. So skillwire keeps an agent's copy at the start and never at its
// ConfigChange. Control: edited before the session, the edit is served.
func TestAnAgentIsServedAsReadAtTheStartAllSession(t *testing.T) {
	t.Parallel()
	for _, k := range []servedKind{userAgent, projectAgent} {
		for _, c := range []struct {
			name   string
			wait   bool
			before bool
		}{
			{name: "used at once"},
			{name: "used 8 s later, after its ConfigChange", wait: true},
			{name: "control: edited before the session", before: true},
		} {
			t.Run(k.name+", "+c.name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				f := w.Write(k.rel, k.text(kindBody))
				w.Write("edit.md", k.text(kindEdit))
				w.Write("home/.claude/settings.json", `{"hooks":{}}`)
				rec := w.recorder("ConfigChange")
				script := []Reply{bash("cp " + filepath.Join(w.Root, "edit.md") + " " + f)}
				switch {
				case c.before:
					w.Write(k.rel, k.text(kindEdit))
					script = nil
				case c.wait:
					script = append(script, bash("sleep 8"))
				}
				m := model(t, append(script, k.use), k.agent...)
				r := w.Claude(m, k.run("go"))
				if m.Sent(kindBody) == c.before || m.Sent(kindEdit) != c.before {
					t.Errorf("served the edit %v, the start's copy %v; want the edit %v (results %q)", m.Sent(kindEdit), m.Sent(kindBody), c.before, m.ToolResults())
				}
				if got := reloadedFor(t, rec, f); got != c.wait {
					t.Errorf("a ConfigChange hook ran for the agent's file: %v, want %v", got, c.wait)
				}
				noTrouble(t, r)
			})
		}
	}
}

// A command (user or project) and a skill of a folder given with --add-dir
// are served as the client read them at its start until its watcher reads
// them again, as a top-level skill is: edited and used at once, the start's
// copy is served. Control: used 8 s later, the edit is served, and a
// ConfigChange hook (source skills, file_path the edited file) ran first.
func TestACommandOrAddedSkillIsServedAsReadAtTheStartUntilItsWatcherReloads(t *testing.T) {
	t.Parallel()
	for _, k := range []servedKind{userCommand, projectCommand, addedSkill} {
		for _, wait := range []bool{false, true} {
			name := k.name + ", used at once"
			if wait {
				name = k.name + ", control: used 8 s later"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				f := w.Write(k.rel, k.text(kindBody))
				w.Write("edit.md", k.text(kindEdit))
				w.Write("home/.claude/settings.json", `{"hooks":{}}`)
				rec := w.recorder("ConfigChange")
				script := []Reply{bash("cp " + filepath.Join(w.Root, "edit.md") + " " + f)}
				if wait {
					script = append(script, bash("sleep 8"))
				}
				m := model(t, append(script, k.use))
				r := w.Claude(m, k.run("go"))
				if m.Sent(kindBody) == wait || m.Sent(kindEdit) != wait {
					t.Errorf("served the edit %v, the start's copy %v; want the edit %v (results %q)", m.Sent(kindEdit), m.Sent(kindBody), wait, m.ToolResults())
				}
				if got := reloadedFor(t, rec, f); got != wait {
					t.Errorf("a ConfigChange hook ran for the reload: %v, want %v", got, wait)
				}
				noTrouble(t, r)
			})
		}
	}
}

// A command or an added folder's skill is judged on the copy its watcher
// last read, as a top-level skill is. Under balanced, foo reviewed SAFE is
// changed mid-session. The watcher reloads it: its ConfigChange is asked
// (left to the use), so not blocked. The model puts the reviewed bytes
// back and uses foo at once, before the watcher reads it again. The disk
// is the reviewed foo, but the client serves the changed copy: the use is
// asked (refused under -p) and the changed body never reaches the model.
// Controls: with the hooks uninstalled the changed body reaches the model;
// an untouched foo loads; put back and used after the watcher read it
// again, the reviewed foo loads.
func TestACommandOrAddedSkillReloadedChangedAndPutBackIsHeld(t *testing.T) {
	t.Parallel()
	for _, k := range []servedKind{projectCommand, userCommand, addedSkill} {
		for _, tc := range []struct {
			name      string
			tamper    bool
			uninstall bool
			reread    bool // the put back is used after the watcher read it
		}{
			{name: "changed, reloaded, put back, used at once", tamper: true},
			{name: "control: hooks uninstalled", tamper: true, uninstall: true},
			{name: "control: untouched"},
			{name: "control: put back, used after the reload", tamper: true, reread: true},
		} {
			if k.name == "user command" && tc.name != "changed, reloaded, put back, used at once" {
				continue // its controls are the project command's
			}
			t.Run(k.name+", "+tc.name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				f := w.Write(k.rel, k.text(kindBody))
				bad := w.Write("bad.md", k.text(evilBody))
				kept := filepath.Join(w.Root, "foo.kept")
				w.Install()
				w.Claude(model(t, nil), k.run("hello"))
				w.Record(k.kind, k.listed, "SAFE-TO-PROPOSE")
				if tc.uninstall {
					w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				}
				w.Settle()
				script := []Reply{bash("sleep 8"), bash("true"), k.use}
				if tc.tamper {
					script = []Reply{bash("cp " + f + " " + kept + " && cp " + bad + " " + f), bash("sleep 8"), bash("mv " + kept + " " + f), k.use}
				}
				if tc.reread {
					script = slices.Insert(script, 3, bash("sleep 8"))
				}
				m := model(t, script)
				r := w.Claude(m, k.run("use foo"))
				heldCheck(t, k, m, r, tc.tamper, tc.uninstall, tc.tamper && !tc.uninstall && !tc.reread)
			})
		}
	}
}

// heldCheck judges a put-back case of k: the changed body reached the
// model only with the hooks uninstalled; the reviewed foo loaded unless the
// use was held, and then with skillwire's reason.
func heldCheck(t *testing.T, k servedKind, m *Model, r *Result, tamper, uninstall, held bool) {
	t.Helper()
	res := strings.Join(m.ToolResults()[k.tool], "\n")
	wantEvil := tamper && uninstall
	if got := m.Sent(evilBody); got != wantEvil {
		t.Errorf("the changed body reached the model: %v, want %v (%s: %q, denials %v)", got, wantEvil, k.tool, res, r.Denials())
	}
	denied := slices.Contains(r.Denials(), k.tool) || slices.Contains(r.Denials(), "Task")
	loaded := m.Sent(kindBody) && !denied
	if want := !held && !wantEvil; loaded != want {
		t.Errorf("the reviewed foo loaded: %v, want %v (%s: %q, denials %v)", loaded, want, k.tool, res, r.Denials())
	}
	if held && (!denied || !strings.Contains(res, "after Claude Code read it")) {
		t.Errorf("the use was not asked with skillwire's reason (refused under -p): %q, denials %v", res, r.Denials())
	}
	noTrouble(t, r)
}

// An agent is judged on the copy the client read at its start. Under
// balanced, foo reviewed SAFE is replaced before a session with a changed
// body, and the client reads that at its start (told as changed). While it
// runs, the reviewed bytes are put back and a second session starts: it
// tells foo as back to its reviewed bytes. The first session then calls
// foo. The disk is the reviewed foo, last seen so, but the first client
// serves the changed copy: the call is asked (refused under -p) and the
// changed body never reaches a model. The put back's ConfigChange keeps
// nothing: the client never reads an agent again. Controls: with the hooks
// uninstalled the changed body reaches the subagent; untouched, foo runs.
func TestAnAgentChangedAtTheStartAndPutBackWhileASecondSessionStartsIsHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		tamper    bool
		uninstall bool
	}{
		{name: "changed at the start, put back", tamper: true},
		{name: "control: hooks uninstalled", tamper: true, uninstall: true},
		{name: "control: untouched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := userAgent
			w := NewWorld(t)
			f := w.Write(k.rel, k.text(kindBody))
			w.Install()
			w.Claude(model(t, nil), k.run("hello"))
			w.Record(k.kind, k.listed, "SAFE-TO-PROPOSE")
			if tc.uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			if tc.tamper {
				w.Write(k.rel, k.text(evilBody))
			}
			w.Settle()
			// The first session waits in a Bash call until the second
			// session has started.
			ready, done := filepath.Join(w.Root, "ready"), filepath.Join(w.Root, "done")
			wait := bash("touch " + ready + "; for i in $(seq 600); do [ -e " + done + " ] && break; sleep 0.1; done")
			m := model(t, []Reply{wait, k.use}, k.agent...)
			second := make(chan *Model, 1)
			go func() {
				for i := 0; i < 600 && !Exists(ready); i++ {
					time.Sleep(100 * time.Millisecond)
				}
				if tc.tamper {
					if err := os.WriteFile(f, []byte(k.text(kindBody)), 0o644); err != nil {
						t.Error(err)
					}
				}
				m2, err := StartModel(nil, nil)
				if err != nil {
					t.Error(err)
				}
				w.Claude(m2, k.run("hello"))
				m2.Close()
				second <- m2
				_ = os.WriteFile(done, nil, 0o644)
			}()
			r := w.Claude(m, k.run("use foo"))
			<-second
			heldCheck(t, k, m, r, tc.tamper, tc.uninstall, tc.tamper && !tc.uninstall)
		})
	}
}
