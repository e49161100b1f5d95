//go:build e2e

package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// devSession is the session id a dev-mods case starts with: the client
// loads <config>/dev-mods/<session id>/ of the session it runs.
const devSession = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"

// modPlaces are the places Claude Code 2.1.328 loads a mod from, and the
// folders it does not, each pinned (issue 30). layout writes the folder f
// where the row says and returns the run that loads it. id is the plugin's
// id in the client's debug log.
var modPlaces = []struct {
	name, id string
	loads    bool
	layout   func(w *World, f ModFolder) Run
}{
	{"--plugin-dir DIR", "pd@inline", true, func(w *World, f ModFolder) Run {
		f.Name = "pd"
		return Run{Args: []string{"--plugin-dir", w.Mod("pd", f)}}
	}},
	{"--plugin-dir DIR, no plugin.json: named by its folder", "nj@inline", true, func(w *World, f ModFolder) Run {
		return Run{Args: []string{"--plugin-dir", w.Mod("nj", f)}}
	}},
	{"an installed, enabled marketplace plugin", "plug@mkt", true, func(w *World, f ModFolder) Run {
		w.Write("market/.claude-plugin/marketplace.json",
			`{"name":"mkt","owner":{"name":"e2e"},"plugins":[{"name":"plug","source":"./plug","description":"an e2e mod"}]}`)
		f.Name = "plug"
		w.Mod("market/plug", f)
		w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "market"))
		w.ClaudeCmd("plugin", "install", "plug@mkt")
		return Run{}
	}},
	{"<config>/skills/<name>/ holding a plugin, no SKILL.md: named by plugin.json", "other@skills-dir", true, func(w *World, f ModFolder) Run {
		f.Name = "other"
		w.Mod("home/.claude/skills/us", f)
		return Run{}
	}},
	{"a trusted project's .claude/skills/<name>/", "ps@skills-dir", true, func(w *World, f ModFolder) Run {
		w.TrustProject()
		f.Name = "ps"
		w.Mod("proj/.claude/skills/ps", f)
		return Run{}
	}},
	{"<config>/dev-mods/<session id>/<name>/", "dm@inline", true, func(w *World, f ModFolder) Run {
		f.Name = "dm"
		w.Mod("home/.claude/dev-mods/"+devSession+"/dm", f)
		return Run{Args: []string{"--session-id", devSession}}
	}},
	{"plugin.json's hooks naming another file with modules", "pm@inline", true, func(w *World, f ModFolder) Run {
		hooks := `{"modules":["./register.js"]}`
		if f.Unlisted {
			hooks = `{"hooks":{}}`
		}
		w.Write("pm/.claude-plugin/plugin.json", `{"name":"pm","hooks":"./extra/more.json"}`)
		w.Write("pm/extra/more.json", hooks)
		w.Write("pm/extra/register.js", f.Source)
		return Run{Args: []string{"--plugin-dir", filepath.Join(w.Root, "pm")}}
	}},
	{"<config>/skills/<name>/ without plugin.json", "us@skills-dir", false, func(w *World, f ModFolder) Run {
		w.Mod("home/.claude/skills/us", f)
		return Run{}
	}},
	{"<config>/skills/<name>/ with a plugin.json of no name", "us@skills-dir", false, func(w *World, f ModFolder) Run {
		w.Mod("home/.claude/skills/us", f)
		w.Write("home/.claude/skills/us/.claude-plugin/plugin.json", `{}`)
		return Run{}
	}},
	{"an untrusted project's .claude/skills/<name>/", "ps@skills-dir", false, func(w *World, f ModFolder) Run {
		f.Name = "ps"
		w.Mod("proj/.claude/skills/ps", f)
		return Run{}
	}},
	{"<config>/dev-mods/ of another session", "dm@inline", false, func(w *World, f ModFolder) Run {
		f.Name = "dm"
		w.Mod("home/.claude/dev-mods/00000000-0000-4000-8000-000000000000/dm", f)
		return Run{Args: []string{"--session-id", devSession}}
	}},
	{"--plugin-dir DIR, hooks.json at the top", "pt@inline", false, func(w *World, f ModFolder) Run {
		w.Write("pt/.claude-plugin/plugin.json", `{"name":"pt"}`)
		w.Write("pt/hooks.json", `{"modules":["./register.js"]}`)
		w.Write("pt/register.js", f.Source)
		return Run{Args: []string{"--plugin-dir", filepath.Join(w.Root, "pt")}}
	}},
}

// Every place Claude Code loads a mod from runs its code (issue 30). A mod
// is a plugin whose hooks/hooks.json lists "modules". The client runs the
// module in its own process, tier user, and the module writes its marker.
// Control: the same folder with hooks.json of no "modules" never runs it.
// The folders the client refuses run nothing either. A dev mod loads late in
// -p, after the first tool call, so the model makes two.
func TestEveryPlaceAModLoadsFromRunsItsCode(t *testing.T) {
	t.Parallel()
	for _, p := range modPlaces {
		for _, unlisted := range []bool{false, true} {
			if unlisted && !p.loads {
				continue
			}
			name := p.name
			if unlisted {
				name = "control: no modules/" + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := NewWorld(t)
				marker := filepath.Join(w.Root, "marker")
				run := p.layout(w, ModFolder{Source: markerModule(marker, "session.start", "turn.complete"), Unlisted: unlisted})
				run.Prompt = "go"
				m := model(t, []Reply{Call("Bash", map[string]any{"command": "true"}), Call("Bash", map[string]any{"command": "true"})})
				r := w.Claude(m, run)
				want := p.loads && !unlisted
				if got := Marker(marker) != ""; got != want {
					t.Errorf("the mod ran: %v, want %v (marker %q)", got, want, Marker(marker))
				}
				tier, judged := ModJudged(r.Debug, p.id)
				if got := ModLoaded(r.Debug, p.id) && tier == "user" && judged == "admitted"; got != want {
					t.Errorf("the log says %s loaded and admitted in tier user: %v, want %v (tier %q, %q)", p.id, got, want, tier, judged)
				}
			})
		}
	}
}

// A dev mod loads in the background, after the session has started (issue
// 30). The client reads <config>/dev-mods/<session id>/ as a --plugin-dir
// folder of plugins at the start. It loads the module while the first turn
// goes on and raises session.start for it then. When the load ends is a
// race: seen before the first prompt.submit, before the first model request
// and after the first tool call. A -p run shorter than the load ended with
// the mod never loaded, so the model's first call sleeps. Control: the same
// mod at --plugin-dir loads at the start, before the prompt.
func TestADevModLoadsInTheBackgroundAfterTheStart(t *testing.T) {
	t.Parallel()
	for _, dev := range []bool{true, false} {
		name := "dev mod"
		if !dev {
			name = "control: --plugin-dir"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t)
			marker := filepath.Join(w.Root, "marker")
			f := ModFolder{Name: "dm", Source: markerModule(marker, "session.start", "prompt.submit", "turn.complete")}
			run := Run{Prompt: "go", Args: []string{"--session-id", devSession}}
			if dev {
				w.Mod("home/.claude/dev-mods/"+devSession+"/dm", f)
			} else {
				run.Args = append(run.Args, "--plugin-dir", w.Mod("dm", f))
			}
			m := model(t, []Reply{Call("Bash", map[string]any{"command": "sleep 3"}), Call("Bash", map[string]any{"command": "true"})})
			r := w.Claude(m, run)
			if got := heard(marker); !strings.Contains(got, "session.start") || !strings.Contains(got, "turn.complete") {
				t.Errorf("the mod heard %q, want session.start and turn.complete", got)
			}
			if late := strings.Contains(r.Debug, "session.start: raised for dm (loaded later)"); late != dev {
				t.Errorf("the log says session.start was raised late: %v, want %v", late, dev)
			}
		})
	}
}

// heard is what a marker module heard, sorted: a mod loaded late hears its
// session.start while the turn goes on.
func heard(marker string) string {
	evs := strings.Split(Marker(marker), ",")
	slices.Sort(evs)
	return strings.Join(evs, ",")
}
