//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// A settings file given with --settings is loaded as settings: the hooks
// it names run (their output reaches the model), and its
// autoMemoryDirectory moves auto memory. Wherever the file lies, skillwire
// watches it and the memory folder it names (the oracle judges a
// --settings file anywhere): a change between sessions is told at the
// next start. Control: hooks uninstalled, the change arrives untold. A
// --settings value that is JSON names no file.
func TestASettingsFileOfTheCommandLineIsWatched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, rel, text, changed, told string }{
		{"its hook", "flag.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo FLAG-HOOK-V1-3b8"}]}]}}`,
			`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo FLAG-HOOK-V2-d51"}]}]}}`, `settings "flag.json"`},
		{"its memory folder", "fm/MEMORY.md", "FLAG-MEMORY-V1-0c2\n", "FLAG-MEMORY-V2-7e6\n", `instructions "MEMORY.md"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothWays(t, "told", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
				w := NewWorld(t)
				flag := filepath.Join(w.Root, "flags", "flag.json")
				if tc.rel == "flag.json" {
					w.Write("flags/flag.json", tc.text)
				} else {
					w.Write("flags/flag.json", `{"autoMemoryDirectory":"`+filepath.Join(w.Root, "flags", "fm")+`"}`)
					w.Write("flags/"+tc.rel, tc.text)
				}
				w.Install()
				run := Run{Prompt: "hello", Args: []string{"--settings", flag}}
				first := strings.SplitN(strings.TrimPrefix(tc.text, `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo `), `"`, 2)[0]
				m := model(t, nil)
				noTrouble(t, w.Claude(m, run))
				if !m.Sent(first) {
					t.Fatalf("the client did not load the --settings file's %s (%q not sent)", tc.name, first)
				}
				// Recorded, so a command outside the session lists it too.
				if out := w.MustSkillwire([]int{0, 3}, "list"); !strings.Contains(out, "flag.json") {
					t.Errorf("the --settings file is not recorded:\n%s", out)
				}
				w.Write("flags/"+tc.rel, tc.changed)
				if uninstall {
					w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				}
				m = model(t, nil)
				noTrouble(t, w.Claude(m, run))
				adv := advisory(m)
				told := strings.Contains(adv, tc.told) && strings.Contains(adv, "changed")
				if told == uninstall {
					t.Errorf("told %v, want %v\n%s", told, !uninstall, adv)
				}
			})
		})
	}
	// Control: JSON given inline is no file; nothing of it is watched.
	t.Run("control: JSON inline", func(t *testing.T) {
		t.Parallel()
		w := NewWorld(t)
		w.Install()
		m := model(t, nil)
		noTrouble(t, w.Claude(m, Run{Prompt: "hello", Args: []string{"--settings", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo FLAG-INLINE-9a1"}]}]}}`}}))
		if !m.Sent("FLAG-INLINE-9a1") {
			t.Fatal("the client did not run the inline settings' hook")
		}
		if out := w.MustSkillwire(nil, "list"); strings.Contains(out, "flag-settings") {
			t.Errorf("an inline --settings is listed: %s", out)
		}
	})
}
