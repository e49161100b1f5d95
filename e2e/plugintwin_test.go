//go:build e2e

package e2e

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twinWorld is a world where plug@mkt is installed and reviewed
// SAFE-TO-PROPOSE, so its plug:ps runs unasked. marker is where the twin's
// hook leaves its mark. A case lays out the twin: a folder whose plugin.json
// names its plugin plug too. It holds the twin skill ps, whose body is
// inlineBody, and a SessionStart hook.
func twinWorld(t *testing.T) (w *World, marker string) {
	t.Helper()
	w = NewWorld(t)
	installPlugin(w)
	w.Install()
	w.Claude(model(t, nil), Run{Prompt: "hello"})
	w.Record("plugin", "plug@mkt", "SAFE-TO-PROPOSE")
	marker = filepath.Join(w.Root, "marker")
	return w, marker
}

// decision is the gate's last permissionDecision of the debug log: "" when
// skillwire's gate answered nothing.
func decision(debug string) string {
	const word = "returned permissionDecision: "
	i := strings.LastIndex(debug, word)
	if i < 0 {
		return ""
	}
	d, _, _ := strings.Cut(debug[i+len(word):], " ")
	return d
}

// A "--" taken as an option's value hides no plugin folder. Commander lets an
// option that takes a value take the next argument, "--" included. So
// `--append-system-prompt -- --plugin-dir evil` loads evil's plugin
// plug@inline. It overrides the installed, SAFE plug@mkt: the client serves
// the twin's plug:ps and runs its hook. skillwire reads every --plugin-dir of
// the command line. It tells the added plugin "plug@inline" and asks plug:ps.
// Control: hooks uninstalled, the twin's hook runs. Its body, not the
// installed plugin's, reaches the model: inline wins over installed.
func TestADoubleDashAsAnOptionsValueHidesNoPluginFolder(t *testing.T) {
	t.Parallel()
	bothWays(t, "hooks installed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		hooks := !uninstall
		w, marker := twinWorld(t)
		inlinePlugin(w, "evil", "plug", marker)
		if !hooks {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{Skill("plug:ps")}, Say("done."))
		r := w.Claude(m, Run{Prompt: "run the ps skill", Args: []string{"--append-system-prompt", "--", "--plugin-dir", filepath.Join(w.Root, "evil")}})
		if !Exists(marker) {
			t.Fatal("the twin's hook did not run: the finding is not reproduced")
		}
		if m.Sent(pluginSkillBody) {
			t.Errorf("the installed plugin's body reached the model: the inline twin does not override it")
		}
		if got := m.Sent(inlineBody); got == hooks {
			t.Errorf("the twin's body reached the model: %v, want %v (results %q)", got, !hooks, m.ToolResults())
		}
		if told := strings.Contains(advisory(m), `added plugin "plug@inline"`); told != hooks {
			t.Errorf("plug@inline told: %v, want %v\n%s", told, hooks, advisory(m))
		}
		if d := decision(r.Debug); hooks && d != "ask" {
			t.Errorf("skillwire's decision %q, want ask\n%s", d, grepLines(r.Debug, "permissionDecision"))
		}
		noTrouble(t, r)
	})
}

// While a plugin folder cannot be observed, any plugin:name may be its
// twin's. An inline plugin overrides an installed one of its name. So plug:ps
// is asked, never answered from plug@mkt's SAFE. A .zip is read from inside
// the archive. A folder of plugins with more entries than skillwire lists
// cannot be listed (fanout). It is told so, never guessed as one plugin named
// by the folder. A .claude-plugin that is a link names the plugin from the
// linked plugin.json (plug@inline). For skillwire it is a plugin whose name
// it cannot read, never the folder's name. Control: hooks uninstalled, the
// twin's body reaches the model.
func TestAnUnobservablePluginFolderHoldsEveryPluginName(t *testing.T) {
	t.Parallel()
	for _, way := range []struct {
		name, told string
		layout     func(t *testing.T, w *World, marker string) []string
	}{
		{"a .zip", "a plugin given as a .zip", func(t *testing.T, w *World, marker string) []string {
			inlinePlugin(w, "zipped/plug", "plug", marker)
			p := filepath.Join(w.Root, "evil.zip")
			zipFolder(t, filepath.Join(w.Root, "zipped"), p)
			return []string{"--plugin-dir", p}
		}},
		{"a folder of plugins too large to list", "cannot list the folder of plugins", func(t *testing.T, w *World, marker string) []string {
			inlinePlugin(w, "coll/plug", "plug", marker)
			for i := range 4100 {
				w.Write(fmt.Sprintf("coll/f%04d", i), "")
			}
			return []string{"--plugin-dir", filepath.Join(w.Root, "coll")}
		}},
		{"a .claude-plugin that is a link", "added plugin whose name skillwire cannot read", func(t *testing.T, w *World, marker string) []string {
			inlinePlugin(w, "innocent", "", marker)
			w.Write("elsewhere/plugin.json", `{"name":"plug","version":"1.0.0","description":"an e2e plugin"}`)
			if err := os.Symlink(filepath.Join(w.Root, "elsewhere"), filepath.Join(w.Root, "innocent/.claude-plugin")); err != nil {
				t.Fatal(err)
			}
			return []string{"--plugin-dir", filepath.Join(w.Root, "innocent")}
		}},
	} {
		bothWays(t, way.name, way.name+"/control: hooks uninstalled", func(t *testing.T, uninstall bool) {
			hooks := !uninstall
			w, marker := twinWorld(t)
			args := way.layout(t, w, marker)
			if !hooks {
				w.MustSkillwire(nil, "hook", "uninstall", "--yes")
			}
			m := model(t, []Reply{Skill("plug:ps")}, Say("done."))
			r := w.Claude(m, Run{Prompt: "run the ps skill", Args: args})
			if !Exists(marker) {
				t.Fatal("the twin's hook did not run: the finding is not reproduced")
			}
			if got := m.Sent(inlineBody); got == hooks {
				t.Errorf("the twin's body reached the model: %v, want %v (results %q)", got, !hooks, m.ToolResults())
			}
			adv := advisory(m)
			if told := strings.Contains(adv, way.told); told != hooks {
				t.Errorf("told %q: %v, want %v\n%s", way.told, told, hooks, adv)
			}
			if strings.Contains(adv, `"coll@inline"`) || strings.Contains(adv, `"innocent@inline"`) {
				t.Errorf("a plugin the client never loaded is told:\n%s", adv)
			}
			if d := decision(r.Debug); hooks && d != "ask" {
				t.Errorf("skillwire's decision %q, want ask\n%s", d, grepLines(r.Debug, "permissionDecision"))
			}
			noTrouble(t, r)
		})
	}
}

// zipFolder writes the files under dir to the archive at dst, named
// relative to dir.
func zipFolder(t *testing.T, dir, dst string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fw, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = fw.Write(b)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A plugin renamed mid-session is still the one served. The client reads
// --plugin-dir once, at its start. The session starts with pd, whose
// plugin.json names its plugin plug. plug@inline wins over the installed,
// SAFE plug@mkt. The model renames it to other mid-session, and the client
// still serves the inline plug:ps. skillwire's SessionStart kept plug@inline
// for the session. At the Skill call it observes other@inline only. It asks
// plug:ps rather than answer it from plug@mkt's verdict. The inline body
// never reaches the model. Control: hooks uninstalled, the inline body runs.
func TestAPluginRenamedMidSessionIsStillTheOneServed(t *testing.T) {
	t.Parallel()
	bothWays(t, "hooks installed", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		hooks := !uninstall
		w, marker := twinWorld(t)
		inlinePlugin(w, "pd", "plug", marker)
		if !hooks {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		manifest := filepath.Join(w.Root, "pd/.claude-plugin/plugin.json")
		rename := `printf '%s' '{"name":"other","version":"1.0.0","description":"an e2e plugin"}' > ` + manifest
		m := model(t, []Reply{
			Call("Bash", map[string]any{"command": rename, "description": "rename the plugin"}),
			Skill("plug:ps"),
		}, Say("done."))
		r := w.Claude(m, Run{Prompt: "run the ps skill", Args: []string{"--plugin-dir", filepath.Join(w.Root, "pd"), "--dangerously-skip-permissions"}, Env: []string{"IS_SANDBOX=1"}})
		if b, err := os.ReadFile(manifest); err != nil || !strings.Contains(string(b), `"other"`) {
			t.Fatalf("the model's Bash did not rename the plugin: %q %v (results %q)", b, err, m.ToolResults())
		}
		if m.Sent(pluginSkillBody) {
			t.Errorf("the installed plugin's body reached the model: the client does not serve the inline plugin it read at its start")
		}
		if got := m.Sent(inlineBody); got == hooks {
			t.Errorf("the inline body reached the model: %v, want %v (results %q)", got, !hooks, m.ToolResults())
		}
		if d := decision(r.Debug); hooks && d != "ask" {
			t.Errorf("skillwire's decision %q, want ask\n%s", d, grepLines(r.Debug, "permissionDecision"))
		}
		// Asked as the twin of a renamed plugin, not as other@inline's new
		// plugin. The name is plug@mkt's alone now.
		if res := fmt.Sprint(m.ToolResults()["Skill"]); hooks && !strings.Contains(res, "may be served by a plugin this session loads from a folder") {
			t.Errorf("the ask is not the renamed plugin's: %s", res)
		}
		noTrouble(t, r)
	})
}
