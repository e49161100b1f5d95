package claude

import (
	"slices"

	"github.com/skillwire/skillwire/hookio"
	"github.com/skillwire/skillwire/walker"
)

// HooksOff is a settings file that sets "disableAllHooks": true. Claude
// Code then runs no hook of user, project or local settings (skillwire's
// own included: no advisory, no gate), and one set in managed settings
// stops the managed hooks too. skillwire's hooks cannot tell of it, since
// they do not run: scan, status and the daemon do (issue 21, finding 7).
type HooksOff struct {
	// Scope is Global (the user's settings.json), Project (the project's
	// settings.json or settings.local.json) or Managed.
	Scope Scope
	Path  string
}

// ManagedSettingsFile is Claude Code's managed settings file in the
// managed directory.
const ManagedSettingsFile = "managed-settings.json"

// Advice is what the person can do about h: a non-managed file is
// overruled by skillwire's hooks in managed settings; a managed one only
// by its administrator.
func (h HooksOff) Advice() string {
	if h.Scope == Managed {
		return "only the administrator can turn hooks back on"
	}
	return "run: sudo skillwire hook install --managed"
}

// HooksOff lists the settings files of p that stop skillwire's hooks: the
// user's settings.json, the project's settings.json and settings.local.json
// and the managed settings file, each where it sets disableAllHooks: true.
// A non-managed one stops nothing while skillwire's SessionStart hook is in
// its managed drop-in (ManagedDropIn): Claude Code runs managed hooks under
// a non-managed disableAllHooks (pinned by e2e). Files are read through
// the walker, never through a link; a file that cannot be read or parsed
// is not listed (its candidate tells that anomaly).
func (p Places) HooksOff() []HooksOff {
	var out []HooksOff
	if p.Managed != "" && disablesHooks(p.Managed, ".", ManagedSettingsFile) {
		out = append(out, HooksOff{Scope: Managed, Path: under(p.Managed, ManagedSettingsFile)})
	}
	var user []HooksOff
	if p.Config != "" && disablesHooks(p.Config, ".", "settings.json") {
		user = append(user, HooksOff{Scope: Global, Path: SettingsPath(p.Config)})
	}
	if p.Project != "" {
		for _, n := range ProjectSettingsFiles {
			if ProjectConfigDir(p.Project) != p.Config && disablesHooks(p.Project, ".claude", n) {
				user = append(user, HooksOff{Scope: Project, Path: under(ProjectConfigDir(p.Project), n)})
			}
		}
	}
	if len(user) > 0 && !p.managedHooks() {
		out = append(out, user...)
	}
	return out
}

// disablesHooks reads sub/name of dir and reports a top-level
// disableAllHooks: true in it.
func disablesHooks(dir, sub, name string) bool {
	s := readSettings(dir, sub, name)
	return s != nil && s.HooksDisabled()
}

// managedHooks reports whether skillwire's SessionStart hook is in its
// managed drop-in.
func (p Places) managedHooks() bool {
	if p.Managed == "" {
		return false
	}
	s := readSettings(p.Managed, "managed-settings.d", ManagedDropIn)
	if s == nil {
		return false
	}
	cmds, err := s.Commands(hookio.EventSessionStart)
	return err == nil && slices.ContainsFunc(cmds, HookSpecs[0].IsCommand)
}

// readSettings is the parsed settings file sub/name of dir, nil when it is
// missing or cannot be read or parsed.
func readSettings(dir, sub, name string) *Settings {
	reads, err := walker.ReadFiles(dir, sub, []string{name}, MaxSettings)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 {
		return nil
	}
	s, err := ParseSettings(reads[0].Data)
	if err != nil {
		return nil
	}
	return s
}
