// Package settingschange judges a settings file Claude Code is about to
// reload mid-session, at its ConfigChange hook. Of and File.Root say which
// file a source names and where it is among the roots. Why says why its
// change must be blocked, against the form last delivered. A change
// blocks when it lets something run, connect or be allowed without asking
// (Blocks). So does a file that cannot be read safely.
package settingschange

import (
	"slices"
	"strconv"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/walker"
)

// File is the settings file a ConfigChange source names. It holds its
// name, the label a reason gives it, and the scopes of the roots holding
// it. The scopes are in the order looked in: a project in $HOME shares the
// user's root.
type File struct {
	Name, Label string
	Scopes      []claude.Scope
}

// Of is the file the settings source names. A source that is none gets
// the zero File, which no root holds.
func Of(source string) File { return files[source] }

var files = map[string]File{
	hookio.SourceUserSettings:    {"settings.json", "user settings", []claude.Scope{claude.Global}},
	hookio.SourceProjectSettings: {"settings.json", "project settings", []claude.Scope{claude.Project, claude.Global}},
	hookio.SourceLocalSettings:   {"settings.local.json", "local settings", []claude.Scope{claude.Project, claude.Global}},
	hookio.SourcePolicySettings:  {"managed-settings.json", "policy settings", []claude.Scope{claude.Managed}},
}

// Reread is a settings file the client reads again, in the root holding
// it.
type Reread struct {
	File
	Root claude.Root
}

// Rereads are the other settings files of roots the client reads again
// at a ConfigChange of source. It merges every settings file anew at any
// change, so a change held blocked in one comes in with another's
// (TestAConfigChangeBlockHolds). A change of policy settings, which
// cannot be blocked, re-reads none that a block could hold.
func Rereads(source string, roots []claude.Root) []Reread {
	at, ok := Of(source).Root(roots)
	if !ok || source == hookio.SourcePolicySettings {
		return nil
	}
	var out []Reread
	for _, s := range []string{hookio.SourceUserSettings, hookio.SourceProjectSettings, hookio.SourceLocalSettings} {
		f := files[s]
		if r, ok := f.Root(roots); ok && (r.Path != at.Path || f.Name != files[source].Name) {
			out = append(out, Reread{f, r})
		}
	}
	return out
}

// Why is the reason to block the settings file cand now. It compares
// against the form last delivered, else the one reviewed. It is "" when
// nothing added or changed lets something run or be allowed unasked.
func Why(label string, cand *walker.Candidate, delivered, reviewed []byte) string {
	if an := cand.Anomalies(); len(an) > 0 {
		if an[0].Reason == anomaly.Root {
			return "" // removed: nothing of it runs any more
		}
		return label + " could not be read safely (" + an[0].Reason.String() + "), so what the change allows is unknown"
	}
	if cand.Canonical == nil {
		return ""
	}
	old := delivered
	if old == nil {
		old = reviewed
	}
	var fs []config.Fact
	for _, f := range config.Facts(old, cand.Canonical) {
		if Blocks(f) {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return ""
	}
	why := label + ": " + fs[0].String()
	if len(fs) > 1 {
		why += " (and " + strconv.Itoa(len(fs)-1) + " more)"
	}
	return why
}

// Blocks reports whether a settings fact lets something run, connect or
// be allowed that was not. A removal only takes away. A permission rule's
// is the exception: a removed deny rule allows.
func Blocks(f config.Fact) bool {
	if f.Dangerous() { // config's rule: it runs, reroutes or asks less (an unknown key too)
		return true
	}
	switch f.Kind {
	case config.FactNewHook, config.FactHelperSet, config.FactEnvSet,
		config.FactNewMCPServer, config.FactMCPServerChanged, config.FactMcpjsonServerEnabled,
		config.FactPermissionsDefaultMode, config.FactPermissionRuleAdded, config.FactPermissionRuleRemoved,
		config.FactAdditionalDirectoryAdded, config.FactPermissionsChanged,
		config.FactPluginEnabled, config.FactMarketplaceAdded, config.FactMarketplaceChanged:
		return true
	case config.FactEnableAllProjectMCP:
		return f.Value != "" && f.Value != "false"
	}
	return false
}

// Root is the configuration root of roots holding f, looked for in its
// scopes in order.
func (f File) Root(roots []claude.Root) (claude.Root, bool) {
	for _, sc := range f.Scopes {
		for _, r := range roots {
			if r.Kind == claude.Config && r.Scope == sc && slices.Contains(r.Names, f.Name) {
				return r, true
			}
		}
	}
	return claude.Root{}, false
}
