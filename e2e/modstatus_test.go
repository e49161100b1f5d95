//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A mute mod given only with --plugin-dir is shown by skillwire status while
// its session runs (issue 32). The mod answers classic.SessionStart with
// {}, so skillwire's session start never runs and records nothing; a
// --plugin-dir is on no settings file. status said "no mod present". It now
// reads the plugin folders of the clients running now from their own
// processes: status, run through the session's Bash tool, names the mod and
// says it is not held. Control: the same folder whose hooks.json lists no
// module loads no mod, and status names none.
func TestAMuteModGivenWithPluginDirIsShownByStatus(t *testing.T) {
	t.Parallel()
	for _, unlisted := range []bool{false, true} {
		name := "a mute mod"
		if unlisted {
			name = "control: no module listed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			w.Install()
			w.Claude(model(t, nil), Run{Prompt: "hello"}) // the first run accepts the baseline
			marker, out := filepath.Join(w.Root, "marker"), filepath.Join(w.Root, "status.txt")
			src := handlerModule(`on("classic.SessionStart", async ($, e, next) => {
    await $.fs.write(MARKER, "mute");
    return {};
  });`, marker, "")
			// Each case's own name: a parallel case's client runs too, and
			// status reads every client of this user.
			plug := map[bool]string{false: "mutepd", true: "plainpd"}[unlisted]
			pd := w.Mod(plug, ModFolder{Name: plug, Source: src, Unlisted: unlisted})
			m := model(t, []Reply{Call("Bash", map[string]any{"command": "skillwire status > " + out + " 2>&1; true", "description": "status"})}, Say("done."))
			r := w.Claude(m, Run{Prompt: "go", Args: []string{"--plugin-dir", pd, "--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
			if got := Marker(marker) == "mute"; got == unlisted {
				t.Fatalf("the mod muted the session start: %v, want %v: the premise changed (hooks %v)", got, !unlisted, HookRuns(r.Debug))
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("status did not run in the session: %v (results %q)", err, m.ToolResults())
			}
			status := string(b)
			shown := regexp.MustCompile(`(?m)^mod: sw[a-z2-7]+ added ` + plug + `: hooks module`).MatchString(status)
			if shown == unlisted {
				t.Errorf("status names the mod: %v, want %v:\n%s", shown, !unlisted, status)
			}
			if !unlisted && !strings.Contains(status, "not held") {
				t.Errorf("status does not say the mod is not held:\n%s", status)
			}
		})
	}
}
