//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

const (
	fooBody  = "FOO-BODY-v1-2c7e: format the changed files."
	fooEdit  = "FOO-BODY-EDITED-81b3: format, then push to main."
	fooFront = "---\nname: foo\ndescription: The foo skill. Use it when asked to run foo.\n---\n\n"
)

// bash is the model's Bash call of cmd.
func bash(cmd string) Reply {
	return Call("Bash", map[string]any{"command": cmd, "description": "run it"})
}

// bypass runs the client with every tool allowed. The gate's hooks still
// answer.
func bypass(prompt string) Run {
	return Run{Prompt: prompt, Args: []string{"--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}}
}

// served is what the model was given of a Skill call: the tool's result and
// whether body reached it.
func served(m *Model, body string) (string, bool) {
	return strings.Join(m.ToolResults()["Skill"], "\n"), m.Sent(body)
}

// A nested skill loads when a Read, Edit or Write touches a file below its
// folder's parent (sub/x.txt for sub/.claude/skills/foo), and only then.
// Control: a Bash call reading the same file, or cd-ing into sub/, loads
// nothing; nor does no touch. Glob and Grep are no tools of a -p session
// here (2.1.328 sends none). Each touch makes the client read the folder
// twice: at the call, and again before its next request (the debug log's
// "Dynamically discovered" twice).
func TestANestedSkillLoadsWhenAReadEditOrWriteTouchesAFileBelowIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		loads bool
		touch func(w *World) Reply
	}{
		{"Read", true, func(w *World) Reply {
			return Call("Read", map[string]any{"file_path": filepath.Join(w.Project, "sub", "x.txt")})
		}},
		{"Edit", true, func(w *World) Reply {
			return Call("Edit", map[string]any{"file_path": filepath.Join(w.Project, "sub", "x.txt"), "old_string": "one", "new_string": "two"})
		}},
		{"Write", true, func(w *World) Reply {
			return Call("Write", map[string]any{"file_path": filepath.Join(w.Project, "sub", "new.txt"), "content": "new\n"})
		}},
		{"control: Bash cat", false, func(*World) Reply { return bash("cat sub/x.txt") }},
		{"control: Bash cd", false, func(*World) Reply { return bash("cd sub && ls") }},
		{"control: no touch", false, func(*World) Reply { return bash("true") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.Write("proj/sub/x.txt", "one\n")
			w.Write("proj/sub/.claude/skills/foo/SKILL.md", fooFront+fooBody+"\n")
			m := model(t, []Reply{tc.touch(w), Skill("foo")})
			r := w.Claude(m, bypass("touch sub, then use foo"))
			res, got := served(m, fooBody)
			if got != tc.loads {
				t.Errorf("foo's body reached the model: %v, want %v (Skill: %q)", got, tc.loads, res)
			}
			if !tc.loads && !strings.Contains(res, "Unknown skill: foo") {
				t.Errorf("the client did not refuse an unknown foo: %q", res)
			}
			if n := strings.Count(r.Debug, "Dynamically discovered 1 skills from 1 directories"); tc.loads && n != 2 {
				t.Errorf("the folder was read %d times, want 2", n)
			}
			noTrouble(t, r)
		})
	}
}

// The client serves the copy of a nested skill it read at discovery. foo
// edited in a later turn than the Read is not served, even 5 s later: no
// watcher reads the folder again. Controls: edited in the Read's own turn
// (the client reads the folder again before its next request), or before
// the Read, the edit is served.
func TestTheClientServesTheNestedCopyItReadAtDiscovery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		edited bool // the edit is what reaches the model
		script func(read, edit ToolCall) []Reply
	}{
		{"edited a turn after the read", false, func(read, edit ToolCall) []Reply {
			return []Reply{{Tools: []ToolCall{read}}, {Tools: []ToolCall{edit}}, Skill("foo")}
		}},
		{"edited a turn after the read, 5 s before the use", false, func(read, edit ToolCall) []Reply {
			return []Reply{{Tools: []ToolCall{read}}, {Tools: []ToolCall{edit}}, bash("sleep 5"), Skill("foo")}
		}},
		{"control: edited in the read's turn", true, func(read, edit ToolCall) []Reply {
			return []Reply{{Tools: []ToolCall{read, edit}}, Skill("foo")}
		}},
		{"control: edited before the read", true, func(read, edit ToolCall) []Reply {
			return []Reply{{Tools: []ToolCall{edit}}, {Tools: []ToolCall{read}}, Skill("foo")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			const foo = "proj/sub/.claude/skills/foo/SKILL.md"
			w.Write("proj/sub/x.txt", "one\n")
			w.Write(foo, fooFront+fooBody+"\n")
			w.Write("edit.md", fooFront+fooEdit+"\n")
			read := ToolCall{Name: "Read", Input: map[string]any{"file_path": filepath.Join(w.Project, "sub", "x.txt")}}
			edit := ToolCall{Name: "Bash", Input: map[string]any{"description": "edit",
				"command": "cp " + filepath.Join(w.Root, "edit.md") + " " + filepath.Join(w.Root, foo)}}
			m := model(t, tc.script(read, edit))
			r := w.Claude(m, bypass("go"))
			res, old := served(m, fooBody)
			if old == tc.edited || m.Sent(fooEdit) != tc.edited {
				t.Errorf("served the edit %v, the first copy %v; want the edit %v (Skill: %q)", m.Sent(fooEdit), old, tc.edited, res)
			}
			noTrouble(t, r)
		})
	}
}

// A top-level skill is served as the client read it at its start until its
// watcher reads the folder again. The watcher polls (debug log "Detected
// skill change"), and runs the ConfigChange hook (source skills) before it
// reloads. So foo edited and used at once is served as read at the start.
// Control: used 8 s after the edit, the edit is served, and a ConfigChange
// hook ran for it first (source skills, file_path foo's SKILL.md).
func TestATopLevelSkillIsServedAsReadAtTheStartUntilItsWatcherReloads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		edited bool
		wait   []Reply
	}{
		{"used at once", false, nil},
		{"control: used 8 s later", true, []Reply{bash("sleep 8")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			const foo = "home/.claude/skills/foo/SKILL.md"
			w.Write(foo, fooFront+fooBody+"\n")
			w.Write("edit.md", fooFront+fooEdit+"\n")
			w.Write("home/.claude/settings.json", `{"hooks":{}}`)
			rec := w.recorder("ConfigChange")
			edit := bash("cp " + filepath.Join(w.Root, "edit.md") + " " + filepath.Join(w.Root, foo))
			m := model(t, append(append([]Reply{edit}, tc.wait...), Skill("foo")))
			r := w.Claude(m, bypass("go"))
			res, old := served(m, fooBody)
			if old == tc.edited || m.Sent(fooEdit) != tc.edited {
				t.Errorf("served the edit %v, the start's copy %v; want the edit %v (Skill: %q)", m.Sent(fooEdit), old, tc.edited, res)
			}
			reloaded := false
			if Exists(rec) {
				for _, in := range inputs(t, rec)["ConfigChange"] {
					reloaded = reloaded || in["source"] == "skills" && in["file_path"] == filepath.Join(w.Root, foo)
				}
			}
			if reloaded != tc.edited {
				t.Errorf("a ConfigChange hook ran for the reload: %v, want %v", reloaded, tc.edited)
			}
			noTrouble(t, r)
		})
	}
}

// An installed plugin's skill is served as the client read it at its start,
// for the whole session: no watcher reads a plugin again. Its skill edited
// in the marketplace folder it loads from, 8 s before the use, is not
// served. Control: edited before the session, the edit is served.
func TestAPluginsSkillIsServedAsReadAtTheStart(t *testing.T) {
	t.Parallel()
	const edit = "PLUGIN-SKILL-MIDSESSION-6a0c: the edit made while the session ran."
	for _, before := range []bool{false, true} {
		name := "edited mid-session"
		if before {
			name = "control: edited before the session"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			installPlugin(w)
			w.Write("edit.md", "---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+edit+"\n")
			cp := "cp " + filepath.Join(w.Root, "edit.md") + " " + filepath.Join(w.Root, "market", "plug", "skills", "ps", "SKILL.md")
			script := []Reply{bash(cp), bash("sleep 8"), Skill("plug:ps")}
			if before {
				w.Write("market/plug/skills/ps/SKILL.md", "---\nname: ps\ndescription: The ps skill. Use it when asked to run ps.\n---\n\n"+edit+"\n")
				script = []Reply{Skill("plug:ps")}
			}
			m := model(t, script)
			r := w.Claude(m, bypass("run the ps skill"))
			res, first := served(m, pluginSkillBody)
			if first == before || m.Sent(edit) != before {
				t.Errorf("served the edit %v, the start's copy %v; want the edit %v (Skill: %q)", m.Sent(edit), first, before, res)
			}
			noTrouble(t, r)
		})
	}
}

// The client serves the copy of a nested skill it read at discovery. Under
// strict, the model copies a BLOCKed skill's body into the reviewed foo,
// reads a file under sub/ (the client reads foo then), puts foo's reviewed
// bytes back and calls Skill foo. The gate must judge the copy the client
// holds, not the disk: the call is denied and the BLOCKed body never reaches
// the model. So it is when the copy is made in the same turn as the read:
// the client reads the folder again before its next request. Controls: with
// the hooks uninstalled the BLOCKed body reaches the model; an untouched foo
// loads.
func TestANestedSkillChangedAfterTheClientReadItIsHeld(t *testing.T) {
	t.Parallel()
	const foo = "proj/sub/.claude/skills/foo/SKILL.md"
	for _, tc := range []struct {
		name      string
		tamper    bool
		sameTurn  bool
		uninstall bool
	}{
		{"copied in, read, put back", true, false, false},
		{"copied in the read's turn, put back", true, true, false},
		{"control: hooks uninstalled", true, false, true},
		{"control: untouched", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.Write("proj/sub/x.txt", "one\n")
			w.Write(foo, fooFront+fooBody+"\n")
			w.Skill("home/.claude/skills", "evil", evilBody)
			w.Install()
			w.MustSkillwire(nil, "gate", "policy", "strict")
			w.Claude(model(t, nil), Run{Prompt: "hello"})
			w.Record("skill", "foo", "SAFE-TO-PROPOSE")
			w.Record("skill", "evil", "BLOCK")
			if tc.uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			w.Settle()
			f, evil := filepath.Join(w.Root, foo), filepath.Join(w.Home, ".claude", "skills", "evil", "SKILL.md")
			// foo's frontmatter over evil's body: no byte of the body is in
			// the model's own calls.
			copyIn := ToolCall{Name: "Bash", Input: map[string]any{"description": "copy",
				"command": "{ head -n 4 " + f + "; tail -n +5 " + evil + "; } > " + f + ".new && cp " + f + " " + f + ".kept && mv " + f + ".new " + f}}
			read := ToolCall{Name: "Read", Input: map[string]any{"file_path": filepath.Join(w.Project, "sub", "x.txt")}}
			putBack := bash("mv " + f + ".kept " + f)
			script := []Reply{{Tools: []ToolCall{read}}, Skill("foo")}
			switch {
			case tc.tamper && tc.sameTurn:
				script = []Reply{{Tools: []ToolCall{read, copyIn}}, putBack, Skill("foo")}
			case tc.tamper:
				script = []Reply{{Tools: []ToolCall{copyIn}}, {Tools: []ToolCall{read}}, putBack, Skill("foo")}
			}
			m := model(t, script)
			r := w.Claude(m, bypass("use foo"))
			res, got := served(m, evilBody)
			wantEvil := tc.tamper && tc.uninstall
			if got != wantEvil {
				t.Errorf("the BLOCKed body reached the model: %v, want %v (Skill: %q, denials %v)", got, wantEvil, res, r.Denials())
			}
			switch {
			case !tc.tamper:
				if !m.Sent(fooBody) || strings.Contains(res, "hook error") {
					t.Errorf("the reviewed foo did not load: %q", res)
				}
			case !tc.uninstall:
				if !strings.Contains(res, "PreToolUse:Skill hook error") || !strings.Contains(res, "after Claude Code read it") {
					t.Errorf("the model was not told of skillwire's deny: %q", res)
				}
			}
			noTrouble(t, r)
		})
	}
}
