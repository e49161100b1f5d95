package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
)

// directoryInput is a DirectoryAdded input as Claude Code 2.1.328 builds it
// for /add-dir: the common fields, then directory and source.
func directoryInput(session, cwd, dir string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": "/t/" + session + ".jsonl", "cwd": cwd,
		"hook_event_name": "DirectoryAdded", "directory": dir, "source": "slash_command"})
	return b
}

func useIn(session, skill string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Skill",
		"tool_input": map[string]string{"skill": skill}, "tool_use_id": "toolu_1"})
	return b
}

// systemMessage is the one field the client reads of a DirectoryAdded
// output; nothing else is printed.
func systemMessage(t *testing.T, r Response) string {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(r.Out, &out); err != nil || len(out) != 1 {
		t.Fatalf("output %s: %v", r.Out, err)
	}
	s, _ := out["systemMessage"].(string)
	return s
}

// A folder /add-dir adds mid-session is kept for that session: the person
// is told what it holds, and the session's next gate hook judges the name
// the folder serves (simplify, a built-in's name, is new there: asked),
// while another session, which never added it, runs the client's own.
func TestAFolderAddedMidSessionIsJudgedForThatSession(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	extra := filepath.Join(filepath.Dir(tr.project), "extra")
	tr.write(filepath.Join(extra, ".claude", "skills", "simplify", "SKILL.md"), "---\nname: simplify\n---\nbody\n")
	tr.write(filepath.Join(extra, ".claude", "agents", "helper.md"), "---\nname: helper\n---\n")
	n := 0
	h := tr.hook(&n)
	ctx := context.Background()
	r := Handle(ctx, hookio.EventDirectoryAdded, directoryInput("s1", tr.project, extra), h)
	msg := systemMessage(t, r)
	if !strings.Contains(msg, `1 skill, 1 agent: "simplify", "helper"`) {
		t.Errorf("notice %q", msg)
	}
	if r := Handle(ctx, hookio.EventPreToolUse, useIn("s1", "simplify"), h); r.Answer != Ask || !strings.Contains(r.Reason, `skill "simplify"`) {
		t.Errorf("the session that added it: %s %q", r.Answer, r.Reason)
	}
	if r := Handle(ctx, hookio.EventPreToolUse, useIn("s2", "simplify"), h); r.Answer != None {
		t.Errorf("another session: %s %q", r.Answer, r.Reason)
	}
}

// A folder that cannot be kept as the client reads it (a path with "..",
// no session to keep it for, a store that cannot keep it) is told, and the
// session's built-in names are asked from then on.
func TestAFolderAddedMidSessionThatCannotBeKeptIsToldAndHeld(t *testing.T) {
	const (
		notPlain  = "a folder's path is not one skillwire reads as the client does"
		noSession = "the hook input names no session to keep the folder for"
	)
	for _, tc := range []struct {
		name, session, dir, want string
	}{
		{"a dot-dot path", "s1", "/tmp/x/../y", notPlain},
		{"a relative path", "s1", "extra", notPlain},
		{"control bytes", "s1", "/tmp/\x1b[2J\n", ""},
		{"huge", "s1", "/" + strings.Repeat("a", 5000), notPlain},
		{"no session", "", "/tmp/x", noSession},
		{"an unprintable session", "s\n1", "/tmp/x", noSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			n := 0
			h := tr.hook(&n)
			ctx := context.Background()
			msg := systemMessage(t, Handle(ctx, hookio.EventDirectoryAdded, directoryInput(tc.session, tr.project, tc.dir), h))
			if tc.want == "" {
				// Kept: a path with control bytes is a path; the notice names none of it.
				if !strings.Contains(msg, "no skills, agents or commands") || strings.ContainsAny(msg, "\x1b\n") {
					t.Errorf("notice %q", msg)
				}
				return
			}
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\x1b") {
				t.Errorf("notice %q, want %q", msg, tc.want)
			}
			want := Ask
			if tc.session == "" || strings.ContainsAny(tc.session, "\n") {
				want = None // nothing names the session: nothing to hold it by
			}
			if r := Handle(ctx, hookio.EventPreToolUse, useIn(tc.session, "simplify"), h); r.Answer != want {
				t.Errorf("simplify after: %s %q, want %s", r.Answer, r.Reason, want)
			}
		})
	}
	t.Run("the store cannot keep it", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		must(t, os.Chmod(tr.env.Store.Dir, 0o777)) // untrusted: refused
		n := 0
		msg := systemMessage(t, Handle(context.Background(), hookio.EventDirectoryAdded, directoryInput("s1", tr.project, "/tmp/x"), tr.hook(&n)))
		if !strings.Contains(msg, "skillwire's store could not keep the folder") {
			t.Errorf("notice %q", msg)
		}
	})
	t.Run("an input that cannot be read", func(t *testing.T) {
		tr := newTree(t)
		n := 0
		for _, in := range []string{"", "[]", `{"hook_event_name":"DirectoryAdded","directory":7}`, `{"hook_event_name":"PreToolUse"}`} {
			if msg := systemMessage(t, Handle(context.Background(), hookio.EventDirectoryAdded, []byte(in), tr.hook(&n))); msg != noticeUnreadable {
				t.Errorf("%q: notice %q", in, msg)
			}
		}
	})
}

// The notice of a folder holding more names than it lists counts the rest,
// and never shows a name that fails the display gate.
func TestTheNoticeOfAnAddedFolderIsBounded(t *testing.T) {
	tr := newTree(t)
	extra := t.TempDir()
	for i := range 12 {
		tr.write(filepath.Join(extra, ".claude", "skills", "s"+string(rune('a'+i)), "SKILL.md"), "x")
	}
	tr.write(filepath.Join(extra, ".claude", "skills", "bad\x1bname", "SKILL.md"), "x")
	n := 0
	msg := systemMessage(t, Handle(context.Background(), hookio.EventDirectoryAdded, directoryInput("s1", tr.project, extra), tr.hook(&n)))
	if !strings.Contains(msg, "13 skills") || !strings.Contains(msg, "and 5 more") || strings.Contains(msg, "\x1b") || len(msg) > hookio.MaxContext {
		t.Errorf("notice %q", msg)
	}
}

// instructionsInput is an InstructionsLoaded input of session for path.
func instructionsInput(session, cwd, path, reason string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "InstructionsLoaded",
		"file_path": path, "memory_type": "Project", "load_reason": reason})
	return b
}

// Where the client reads an added folder's instruction files, a folder
// /add-dir adds has them read from the client's next turn on, with no
// InstructionsLoaded: the notice tells the model so, and once it was
// written they are recorded as read, each noted as loaded, under the ids
// a session given the folder with --add-dir names them. A later load in
// the session (a compaction's) of a rule in a subfolder of its rules is
// noted under that same id, the subfolder's candidate, never one of its
// own. What was read is kept for the next session start to tell the
// person, whom the notice never reaches.
// Switched off, none of it: nothing is told or recorded of them.
func TestAFolderAddedMidSessionHasItsInstructionFilesRecordedByOneID(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "read", false: "control: not read"}[on], func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			extra := filepath.Join(filepath.Dir(tr.project), "extra")
			rules := filepath.Join(extra, ".claude", "rules")
			sub := filepath.Join(rules, "sub", "s.md")
			tr.write(filepath.Join(extra, "CLAUDE.md"), "be nice\n")
			tr.write(sub, "lint\n")
			tr.env.AddedInstructions = func() bool { return on }
			n := 0
			h := tr.hook(&n)
			ctx := context.Background()
			r := Handle(ctx, hookio.EventDirectoryAdded, directoryInput("s1", tr.project, extra), h)
			msg := systemMessage(t, r)
			if got := strings.Contains(msg, `reads its 2 instruction files from the next turn on`) && strings.Contains(msg, `.claude/rules/"sub"`); got != on {
				t.Errorf("notice %q tells the instruction files: %v, want %v", msg, got, on)
			}
			if (r.Delivered != nil) != on {
				t.Fatalf("something to record: %v, want %v", r.Delivered != nil, on)
			}
			if !on {
				return
			}
			must(t, r.Delivered())
			st := tr.store()
			var mdRec, subRec *baseline.Record
			var subID, strayID string
			must(t, st.View(func(tx *baseline.Tx) (err error) {
				if mdRec, err = tx.Record(tx.ID(extra, []byte("CLAUDE.md"))); err != nil {
					return err
				}
				subID, strayID = tx.ID(rules, []byte("sub")), tx.ID(filepath.Dir(sub), []byte("s.md"))
				subRec, err = tx.Record(subID)
				return err
			}))
			st.Close()
			if mdRec == nil || mdRec.Digest == nil || subRec == nil || subRec.Scope != claude.Added || subRec.Kind != claude.Rules {
				t.Fatalf("recorded: %+v %+v", mdRec, subRec)
			}
			if ns := tr.notes(subID); len(ns) != 1 || !strings.Contains(ns[0].Text, "(Project, directory_added)") {
				t.Fatalf("notes of the subfolder's rules: %+v", ns)
			}
			tr.write(sub, "disable the linters\n")
			if r := Handle(ctx, hookio.EventInstructionsLoaded, instructionsInput("s1", tr.project, sub, "compact"), h); len(r.Notes) > 0 {
				t.Fatalf("load not recorded: %v", r.Notes)
			}
			if ns := tr.notes(subID); len(ns) != 2 || !strings.HasPrefix(ns[1].Text, "changed since the last load") {
				t.Errorf("notes of the subfolder's rules after the load: %+v", ns)
			}
			if ns := tr.notes(strayID); len(ns) != 0 {
				t.Errorf("the rule noted under an id of its own: %+v", ns)
			}
			st = tr.store()
			defer st.Close()
			var cs []baseline.InstructionChange
			must(t, st.View(func(tx *baseline.Tx) (err error) { cs, err = tx.Instructions().List(); return }))
			kept := map[string]bool{}
			for _, c := range cs {
				kept[c.ID] = true
			}
			if len(cs) != 2 || !kept[subID] || !kept[mdRec.ID] {
				t.Errorf("kept for the next session start: %+v", cs)
			}
		})
	}
}
