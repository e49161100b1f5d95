//go:build e2e

package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// addDir types /add-dir extra in the interactive client, confirms it, then
// types prompt. done ends the session. It returns the client's debug log.
func addDir(t *testing.T, w *World, m *Model, prompt string, done func(debug string) bool) string {
	t.Helper()
	debug := filepath.Join(w.Root, "interactive-debug.log")
	read := func() string { d, _ := os.ReadFile(debug); return string(d) }
	confirm := []Step{{After: "No,leaveitoutYes,addit", Keys: "\x1b[B", Pause: 1500 * time.Millisecond},
		{After: "❯Yes,addit", Keys: "\r", Pause: 800 * time.Millisecond},
		{After: "Adddirectorytoworkspace", Keys: "\r", Pause: 1500 * time.Millisecond}}
	screen := w.Interactive(m, Typed{
		Prompt: "/add-dir " + filepath.Join(w.Root, "extra"),
		Args:   []string{"--permission-mode", "default", "--debug-file", debug},
		Then: append(confirm, Step{After: "asaworkingdirectory", Keys: prompt + "\r", Pause: 1500 * time.Millisecond},
			// A Bash write may still be asked: the person says yes.
			Step{After: "Doyouwanttoproceed", Keys: "\r", Pause: 800 * time.Millisecond}),
		Done: func() bool { return done(read()) },
		// git's own configuration, read by what the client runs for
		// its prompt, lies in TMPDIR then (noise), not in the home.
		Env:    []string{"XDG_CONFIG_HOME=" + filepath.Join(w.Root, "tmp", "xdg")},
		Within: 45 * time.Second,
	})
	if words := DrawnWords(screen); !strings.Contains(words, "Added"+filepath.Join(w.Root, "extra")) {
		t.Fatalf("the folder was not added:\n%s", words)
	}
	return read()
}

// writeB64 is the model writing text to path in a Bash call that names no
// other file. The client reads each file a command names; text sent in
// the call itself would be sent to the model. So it goes as base64.
func writeB64(path, text string) Reply {
	return bash("echo " + base64.StdEncoding.EncodeToString([]byte(text)) + " | base64 -d > " + path)
}

// A skill of a folder added with /add-dir is read while the
// DirectoryAdded hook runs (the debug log begins "Loading skills from"
// before the hook's completion and ends "additional: 1" before or after
// it), and served as read then until its watcher reads it again. So
// foo edited and used at once is served as read at the add. Control: used
// 8 s later the edit is served, a ConfigChange hook (source skills,
// file_path foo's SKILL.md) having run first.
func TestASkillOfAFolderAddedWithSlashAddDirIsServedAsReadAtTheAdd(t *testing.T) {
	t.Parallel()
	for _, wait := range []bool{false, true} {
		name := "used at once"
		if wait {
			name = "control: used 8 s later"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.TrustProject()
			w.Write("home/.claude/settings.json", `{"permissions":{"allow":["Bash","Skill"]},"hooks":{}}`)
			rec := w.recorder("ConfigChange", "DirectoryAdded")
			f := w.Write("extra/.claude/skills/foo/SKILL.md", fooFront+kindBody+"\n")
			script := []Reply{writeB64(f, fooFront+kindEdit+"\n")}
			if wait {
				script = append(script, bash("sleep 8"))
			}
			m := model(t, append(script, Skill("foo")))
			d := addDir(t, w, m, "use foo", func(string) bool {
				return len(m.ToolResults()["Skill"]) > 0 && (m.Sent(kindBody) || m.Sent(kindEdit))
			})
			if m.Sent(kindBody) == wait || m.Sent(kindEdit) != wait {
				t.Errorf("served the edit %v, the add's copy %v; want the edit %v (results %q)", m.Sent(kindEdit), m.Sent(kindBody), wait, m.ToolResults())
			}
			// The load begins before the hook's completion is logged and
			// may end after it: the client reads the folder while its
			// DirectoryAdded hook runs, not after (seen both ways round).
			loaded, hook := strings.Index(d, "additional: 1"), strings.Index(d, "DirectoryAdded:slash_command")
			begun := -1
			if loaded >= 0 {
				begun = strings.LastIndex(d[:loaded], "Loading skills from")
			}
			if begun < 0 || hook < 0 || begun > hook {
				t.Errorf("the folder's skills were not being loaded when the DirectoryAdded hook ended: begun at %d, loaded at %d, the hook at %d", begun, loaded, hook)
			}
			if got := reloadedFor(t, rec, f); got != wait {
				t.Errorf("a ConfigChange hook ran for the reload: %v, want %v", got, wait)
			}
		})
	}
}

// A skill of a folder added with /add-dir is judged on the copy the client
// read at the add. foo reviewed SAFE (in a session given the folder with
// --add-dir) is replaced with a changed body. In a later session the
// person adds the folder with /add-dir: the client reads the changed foo.
// The model puts the reviewed bytes back and calls Skill foo at once. The
// disk is the reviewed foo, last seen so, but the client serves the
// changed copy: skillwire asks, and the changed body never reaches the
// model. Controls: with the hooks uninstalled the changed body reaches the
// model; untouched, the reviewed foo loads unasked.
func TestASkillOfAFolderAddedWithSlashAddDirChangedAtTheAddAndPutBackIsHeld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		tamper, uninstall bool
	}{
		{name: "changed at the add, put back", tamper: true},
		{name: "control: hooks uninstalled", tamper: true, uninstall: true},
		{name: "control: untouched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.TrustProject()
			w.Write("proj/.claude/settings.local.json", `{"permissions":{"allow":["Bash","Skill"]}}`)
			w.Install()
			f := w.Write("extra/.claude/skills/foo/SKILL.md", fooFront+kindBody+"\n")
			w.Claude(model(t, nil), Run{Prompt: "hello", Args: []string{"--add-dir", filepath.Join(w.Root, "extra")}})
			w.Record("skill", "foo", "SAFE-TO-PROPOSE")
			if tc.uninstall {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			var script []Reply
			if tc.tamper {
				w.Write("extra/.claude/skills/foo/SKILL.md", fooFront+evilBody+"\n")
				script = []Reply{writeB64(f, fooFront+kindBody+"\n")}
			}
			w.Settle()
			m := model(t, append(script, Skill("foo")))
			asked := func(d string) bool { return strings.Contains(d, `"permissionDecision":"ask"`) }
			d := addDir(t, w, m, "use foo", func(d string) bool {
				return m.Sent(evilBody) || m.Sent(kindBody) || asked(d)
			})
			if got := m.Sent(evilBody); got != (tc.tamper && tc.uninstall) {
				t.Errorf("the changed body reached the model: %v, want %v (results %q)", got, tc.tamper && tc.uninstall, m.ToolResults())
			}
			held := tc.tamper && !tc.uninstall
			if asked(d) != held || held && !strings.Contains(d, "after Claude Code read it") {
				t.Errorf("asked %v, want %v, with skillwire's reason (results %q)", asked(d), held, m.ToolResults())
			}
			if !tc.tamper && !m.Sent(kindBody) {
				t.Errorf("the reviewed foo did not load: %q", m.ToolResults())
			}
		})
	}
}

// So it is in an interactive session: an agent edited mid-session is not
// served 8 s later, though its ConfigChange hook ran; the client never
// reads an agent again there either. Control: edited before the session,
// the edit is served.
func TestAnAgentIsServedAsReadAtTheStartInAnInteractiveSessionToo(t *testing.T) {
	t.Parallel()
	for _, before := range []bool{false, true} {
		name := "edited mid-session"
		if before {
			name = "control: edited before the session"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.TrustProject()
			w.Write("home/.claude/settings.json", `{"permissions":{"allow":["Bash","Agent"]},"hooks":{}}`)
			rec := w.recorder("ConfigChange")
			f := w.Write("proj/.claude/agents/foo.md", agentText(kindBody))
			script := []Reply{writeB64(f, agentText(kindEdit)), bash("sleep 8"), Agent("foo", "do the task")}
			if before {
				w.Write("proj/.claude/agents/foo.md", agentText(kindEdit))
				script = script[2:]
			}
			m := model(t, script, Say("agent done."))
			w.Interactive(m, Typed{
				Prompt: "go",
				Args:   []string{"--permission-mode", "default"},
				Env:    []string{"XDG_CONFIG_HOME=" + filepath.Join(w.Root, "tmp", "xdg")},
				Then:   []Step{{After: "Doyouwanttoproceed", Keys: "\r", Pause: 800 * time.Millisecond}},
				Done:   func() bool { return m.Sent(kindBody) || m.Sent(kindEdit) },
				Within: 40 * time.Second,
			})
			if m.Sent(kindBody) == before || m.Sent(kindEdit) != before {
				t.Errorf("served the edit %v, the start's copy %v; want the edit %v (results %q)", m.Sent(kindEdit), m.Sent(kindBody), before, m.ToolResults())
			}
			if got := reloadedFor(t, rec, f); got == before {
				t.Errorf("a ConfigChange hook ran for the agent's file: %v, want %v", got, !before)
			}
		})
	}
}
