package settings

import (
	"slices"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// HooksOff is a settings file that sets "disableAllHooks": true. Claude
// Code then runs no hook of user, project or local settings. skillwire's
// own are among them: no advisory, no gate. One set in managed settings
// stops the managed hooks too. skillwire's hooks cannot tell of it, since
// they do not run. So scan, status and the daemon do (issue 21, finding
// 7).
type HooksOff struct {
	// Scope is Global (the user's settings.json), Project (the project's
	// settings.json or settings.local.json) or Managed.
	Scope claude.Scope
	Path  string
}

// ManagedSettingsFile is Claude Code's managed settings file in the
// managed directory.
const ManagedSettingsFile = "managed-settings.json"

// Advice is what the person can do about h. skillwire's hooks in managed
// settings overrule a non-managed file. Only its administrator overrules
// a managed one.
func (h HooksOff) Advice() string {
	if h.Scope == claude.Managed {
		return "only the administrator can turn hooks back on"
	}
	return "run: sudo skillwire hook install --managed"
}

// HooksOffIn lists the settings files of p that stop skillwire's hooks,
// each where it sets disableAllHooks: true. The files are the user's
// settings.json, the project's settings.json and settings.local.json, and
// the managed settings file. A non-managed one stops nothing while
// skillwire's SessionStart hook is in its managed drop-in (ManagedDropIn).
// Claude Code runs managed hooks under a non-managed disableAllHooks
// (pinned by e2e). Files are read through the walker, never through a
// link. A file that cannot be read or parsed is not listed; its candidate
// tells that anomaly.
func HooksOffIn(p claude.Places) []HooksOff {
	var out []HooksOff
	if p.Managed != "" && disablesHooks(p.Managed, ".", ManagedSettingsFile) {
		out = append(out, HooksOff{Scope: claude.Managed, Path: pathname.Join(p.Managed, ManagedSettingsFile)})
	}
	var user []HooksOff
	for _, f := range userFiles(p) {
		if s := readFile(f.dir, f.sub, f.name); s != nil && s.HooksDisabled() {
			user = append(user, HooksOff{Scope: f.scope, Path: f.path})
		}
	}
	if len(user) > 0 && !ManagedHooks(p) {
		out = append(out, user...)
	}
	return out
}

// disablesHooks reads sub/name of dir and reports a top-level
// disableAllHooks: true in it.
func disablesHooks(dir, sub, name string) bool {
	s := readFile(dir, sub, name)
	return s != nil && s.HooksDisabled()
}

// settingsFile is one settings file of p: sub/name of dir, at path.
type settingsFile struct {
	scope                claude.Scope
	dir, sub, name, path string
}

// userFiles are the non-managed settings files that can hold hooks. They
// are the user's settings.json, and the project's settings.json and
// settings.local.json. The project's are left out when its .claude is the
// configuration directory itself.
func userFiles(p claude.Places) []settingsFile {
	var out []settingsFile
	if p.Config != "" {
		out = append(out, settingsFile{claude.Global, p.Config, ".", "settings.json", claude.SettingsPath(p.Config)})
	}
	if p.Project != "" && claude.ProjectConfigDir(p.Project) != p.Config {
		for _, n := range claude.ProjectSettingsFiles {
			out = append(out, settingsFile{claude.Project, p.Project, ".claude", n, pathname.Join(claude.ProjectConfigDir(p.Project), n)})
		}
	}
	return out
}

// ManagedHooks reports whether skillwire's SessionStart hook is in its
// managed drop-in: only there do its hooks run above a mod (issue 30).
func ManagedHooks(p claude.Places) bool {
	if p.Managed == "" {
		return false
	}
	s := readFile(p.Managed, "managed-settings.d", ManagedDropIn)
	return s != nil && holdsOurHooks(s)
}

// holdsOurHooks reports whether s holds skillwire's SessionStart hook.
func holdsOurHooks(s *Doc) bool {
	cmds, err := s.Commands(hookio.EventSessionStart)
	return err == nil && slices.ContainsFunc(cmds, HookSpecs[0].IsCommand)
}

// readFile is the parsed settings file sub/name of dir. It is nil when the
// file is missing or cannot be read or parsed.
func readFile(dir, sub, name string) *Doc {
	reads, err := walker.ReadFiles(dir, sub, []string{name}, config.MaxJSON)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 {
		return nil
	}
	s, err := Parse(reads[0].Data)
	if err != nil {
		return nil
	}
	return s
}

// Incomplete is a settings file holding skillwire's SessionStart hook
// without some of the others `hook install` installs, each under its
// matcher. It may be an install made before a hook, or a matcher's tool
// such as Workflow, was added. It may be one a person or the model
// trimmed. Claude Code then runs what is there, and nothing tells of the
// rest. Without DirectoryAdded, the gate never sees a folder /add-dir
// adds.
type Incomplete struct {
	Path    string
	Missing []HookSpec
}

// Advice is what the person can do about i.
func (i Incomplete) Advice() string { return "run: skillwire hook install" }

// Events names the missing hooks' events.
func (i Incomplete) Events() []string {
	out := make([]string, len(i.Missing))
	for k, h := range i.Missing {
		out[k] = h.Event
	}
	return out
}

// IncompleteIn is the install of skillwire's hooks that lacks some of
// HookSpecs, nil when none does. It reads through the walker the files
// that can hold them. Those are the managed drop-in, the user's
// settings.json, and the project's settings.json and settings.local.json.
// A hook counts as installed in any of them. The install is named by the
// first that holds the SessionStart hook. Without a SessionStart hook
// anywhere, nothing is installed and nothing is incomplete.
func IncompleteIn(p claude.Places) *Incomplete {
	install, have := installed(p)
	if install == "" {
		return nil
	}
	in := &Incomplete{Path: install}
	for i, h := range HookSpecs {
		if !have[i] {
			in.Missing = append(in.Missing, h)
		}
	}
	if len(in.Missing) == 0 {
		return nil
	}
	return in
}

// Installed reports whether skillwire's SessionStart hook is in any file
// IncompleteIn reads. Without it no session is told anything.
func Installed(p claude.Places) bool {
	install, _ := installed(p)
	return install != ""
}

// installed is the first file holding skillwire's SessionStart hook ("":
// none), and which of HookSpecs any of the files holds.
func installed(p claude.Places) (install string, have []bool) {
	var files []settingsFile
	if p.Managed != "" {
		files = append(files, settingsFile{claude.Managed, p.Managed, "managed-settings.d", ManagedDropIn, pathname.Join(pathname.Join(p.Managed, "managed-settings.d"), ManagedDropIn)})
	}
	files = append(files, userFiles(p)...)
	have = make([]bool, len(HookSpecs))
	for _, f := range files {
		s := readFile(f.dir, f.sub, f.name)
		if s == nil {
			continue
		}
		for i, h := range HookSpecs {
			if s.Has(h) {
				have[i] = true
				if i == 0 && install == "" {
					install = f.path
				}
			}
		}
	}
	return install, have
}

// HooksOffElsewhere are the settings files of other registered projects
// that switch skillwire's hooks off. A project's own disableAllHooks stops
// the very hook that would tell it. So it is told in the next session where
// hooks run. Bounded by maxHooksOffProjects.
func HooksOffElsewhere(p claude.Places, current string, projects []string) []HooksOff {
	if p.Config == "" {
		return nil
	}
	var out []HooksOff
	for i, proj := range projects {
		if i == maxHooksOffProjects {
			break
		}
		if proj == current {
			continue
		}
		// Only the project's own files. The user's settings.json, were it to
		// switch hooks off, would have stopped this session's hooks too.
		q := claude.Places{Managed: p.Managed, Project: proj}
		for _, h := range HooksOffIn(q) {
			if h.Scope == claude.Project {
				out = append(out, h)
			}
		}
	}
	return out
}

// maxHooksOffProjects bounds the registered projects a session start reads
// the settings of.
const maxHooksOffProjects = 64
