//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// A system prompt file given on the command line reaches the model as
// system prompt, read at the start (Claude Code 2.1.332). Wherever it lies,
// skillwire watches it as an instruction file of scope added (the
// coverage oracle judges the file): a change between sessions is told at
// the next start. Control: hooks uninstalled, the changed text reaches the
// model untold.
func TestASystemPromptFileOfTheCommandLineIsWatched(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--append-system-prompt-file", "--system-prompt-file"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			bothWays(t, "told", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
				w := NewWorld(t)
				w.Write("flags/prompt.md", "PROMPT-FILE-V1-4c1\n")
				w.Install()
				run := Run{Prompt: "hello", Args: []string{flag, filepath.Join(w.Root, "flags", "prompt.md")}}
				m := model(t, nil)
				noTrouble(t, w.Claude(m, run))
				if !systemHas(m, "PROMPT-FILE-V1-4c1") {
					t.Fatalf("the client did not send the %s file as system prompt: the premise changed", flag)
				}
				w.Write("flags/prompt.md", "PROMPT-FILE-V2-9e3\n")
				if uninstall {
					w.MustSkillwire(nil, "hook", "uninstall", "--yes")
				}
				m = model(t, nil)
				noTrouble(t, w.Claude(m, run))
				if !systemHas(m, "PROMPT-FILE-V2-9e3") {
					t.Fatalf("the changed file was not sent")
				}
				adv := advisory(m)
				told := strings.Contains(adv, `instructions "prompt.md"`) && strings.Contains(adv, "changed")
				if told == uninstall {
					t.Errorf("told %v, want %v\n%s", told, !uninstall, adv)
				}
			})
		})
	}
}
