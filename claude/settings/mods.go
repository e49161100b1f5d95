package settings

import (
	"os"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
)

// The client's own mod policy (issue 30, pinned by e2e against 2.1.328).
// Any managed settings file with a key seats its security default,
// cc-plugin-sec-default@builtin. A managed prependPlugins that leaves it
// out unseats it. Seated, its option allowManagedModsOnly: true keeps a
// person's mod from loading at all. Without it a mod still loads. Hooks in
// managed settings then hold against its skip, allow, strip and mute. Its
// session.append still rewrites what a managed deny returns.

// SecDefault is the client's security default plugin.
const SecDefault = "cc-plugin-sec-default@builtin"

// ModsOnlyPath is where allowManagedModsOnly sits in a settings file.
var ModsOnlyPath = []string{"pluginConfigs", SecDefault, "options", "allowManagedModsOnly"}

// ModsOnlyJSON is the drop-in member `hook install --managed-mods-only`
// adds, as JSON.
const ModsOnlyJSON = `{"options":{"allowManagedModsOnly":true}}`

// ModPolicy is what holds against a person's mod on this machine.
type ModPolicy struct {
	// ManagedHooks: skillwire's hooks are in its managed drop-in.
	ManagedHooks bool
	// ModsOnly is the managed settings file that sets
	// allowManagedModsOnly: true, "" when none does. NotModsOnly is one
	// that sets it to anything else: which wins is not pinned.
	ModsOnly, NotModsOnly string
	// Seated: the security default is seated (a managed settings file has
	// a key). Unseated is a managed file whose prependPlugins leaves it
	// out, "" when none.
	Seated   bool
	Unseated string
}

// HoldsMods reports whether a root of kind k holds plugins, whose hooks
// file can list modules.
func HoldsMods(k claude.Kind) bool {
	return k == claude.Plugins || k == claude.PluginSources || k == claude.Skills
}

// ModTexts are the hooks modules the form canon of a candidate of a root
// of kind k lists, as facts told (escaped); nil when it is no mod.
func ModTexts(k claude.Kind, canon []byte) []string {
	if !HoldsMods(k) {
		return nil
	}
	var out []string
	for _, f := range config.ModuleFacts(canon) {
		out = append(out, f.String())
	}
	return out
}

// ManagedModsOnly reports whether the client keeps every person's mod
// from loading: allowManagedModsOnly set true, no file setting it
// otherwise, and the security default seated.
func (m ModPolicy) ManagedModsOnly() bool {
	return m.ModsOnly != "" && m.NotModsOnly == "" && m.Seated && m.Unseated == ""
}

// Held reports whether a person's mod can neither skip nor rewrite
// skillwire's answers. Only the client's allowManagedModsOnly holds: under
// managed hooks alone a mod's session.append still rewrites a deny.
func (m ModPolicy) Held() bool { return m.ManagedModsOnly() }

// String is the mod policy in force, and why, in fixed words and the
// files' paths, escaped.
func (m ModPolicy) String() string {
	q := func(p string) string { return anomaly.QuoteBytes([]byte(p)) }
	switch {
	case m.ManagedModsOnly():
		return "managed mods only: " + q(m.ModsOnly) + " sets allowManagedModsOnly, so a person's mod does not load"
	case m.Unseated != "":
		return "any mod loads: " + q(m.Unseated) + " sets prependPlugins without " + SecDefault + ", which turns the client's security default off"
	case m.NotModsOnly != "":
		return "not known to hold: " + q(m.NotModsOnly) + " sets allowManagedModsOnly to something other than true"
	case m.ModsOnly != "":
		return "any mod loads: allowManagedModsOnly is set, but no managed settings file seats the client's security default"
	case !m.Seated:
		return "any mod loads: no managed settings, so the client's security default is not seated"
	}
	return "any mod loads: managed settings do not set allowManagedModsOnly"
}

// Advice is what holds against a mod from here, "" when it is held.
func (m ModPolicy) Advice() string {
	switch {
	case m.Held():
		return ""
	case m.ManagedHooks:
		return "a mod can still rewrite what a managed deny returns (session.append): run `sudo skillwire hook install --managed --managed-mods-only`"
	}
	return "skillwire's hooks in user settings run beneath every mod, which can skip, allow or strip a deny and mute the advisory: run `sudo skillwire hook install --managed --managed-mods-only`"
}

// ModPolicyOf reads the managed settings of p: managed-settings.json and
// every drop-in of managed-settings.d, each through the walker, once. A
// file that cannot be read or parsed counts as setting nothing.
func ModPolicyOf(p claude.Places) ModPolicy {
	var m ModPolicy
	dropIn := false
	for _, f := range managedDocs(p) {
		if f.sub == "managed-settings.d" && f.name == ManagedDropIn {
			m.ManagedHooks, dropIn = holdsOurHooks(f.doc), true
		}
		if len(f.doc.root.members) > 0 {
			m.Seated = true
		}
		if v, err := f.doc.at(ModsOnlyPath, false); err == nil && v != nil {
			if v.kind == scalar && string(v.raw) == "true" {
				m.ModsOnly = first(m.ModsOnly, f.path)
			} else {
				m.NotModsOnly = first(m.NotModsOnly, f.path)
			}
		}
		if unseats(f.doc) {
			m.Unseated = first(m.Unseated, f.path)
		}
	}
	if !dropIn {
		m.ManagedHooks = ManagedHooks(p) // a folder that could not be listed
	}
	return m
}

// SideloadPath is where disableSideloadFlags sits in a settings file.
// Claude Code 2.1.332 honours it from managed settings alone: true, it
// refuses --plugin-dir, --plugin-url, --agents and --mcp-config at
// startup ("--mcp-config is disabled by your organization's managed
// settings"; e2e TestTheManagedNoSideloadInstallRefusesCommandLineLoads).
var SideloadPath = []string{"disableSideloadFlags"}

// SideloadRefusedIn is the first managed settings file that sets
// disableSideloadFlags: true, "" when none does.
func SideloadRefusedIn(p claude.Places) string {
	for _, f := range managedDocs(p) {
		if v, err := f.doc.at(SideloadPath, false); err == nil && v != nil && v.kind == scalar && string(v.raw) == "true" {
			return f.path
		}
	}
	return ""
}

// Sideload is what holds against the loads of a session's command line
// that no settings file lists (--plugin-dir, --plugin-url, --mcp-config,
// --agents). skillwire reads them from the sessions running now; a
// session started later has a command line nobody can know yet. Only the
// client's managed disableSideloadFlags holds against it.
type Sideload struct {
	// RefusedIn is the managed settings file that sets
	// disableSideloadFlags: true (SideloadRefusedIn), "" when none does.
	RefusedIn string
}

// SideloadOf reads the managed settings of p for disableSideloadFlags.
func SideloadOf(p claude.Places) Sideload { return Sideload{RefusedIn: SideloadRefusedIn(p)} }

// String says, in one sentence, what a session started later may load
// unseen and what holds, with the file's path escaped.
func (s Sideload) String() string {
	const flags = "a session started later with --plugin-dir, --plugin-url, --mcp-config or --agents"
	if s.RefusedIn != "" {
		return flags + " is refused by the client: " + anomaly.QuoteBytes([]byte(s.RefusedIn)) + " sets disableSideloadFlags"
	}
	return flags + " is not seen here (only the sessions running now are); to have the client refuse those flags, run `sudo skillwire hook install --managed --managed-no-sideload`"
}

// PrependsWithout are the managed settings files whose prependPlugins
// leaves the security default out.
func PrependsWithout(p claude.Places) []string {
	var out []string
	for _, f := range managedDocs(p) {
		if unseats(f.doc) {
			out = append(out, f.path)
		}
	}
	return out
}

// unseats reports whether s sets a prependPlugins that leaves the
// security default out.
func unseats(s *Doc) bool {
	pp := s.root.lookup("prependPlugins")
	return pp != nil && !listsSecDefault(pp.val)
}

// managedDoc is one managed settings file, parsed.
type managedDoc struct {
	settingsFile
	doc *Doc
}

// managedDocs are the managed files of p that could be read and parsed.
func managedDocs(p claude.Places) []managedDoc {
	var out []managedDoc
	for _, f := range managedFiles(p) {
		if s := readFile(f.dir, f.sub, f.name); s != nil {
			out = append(out, managedDoc{f, s})
		}
	}
	return out
}

func first(have, path string) string {
	if have != "" {
		return have
	}
	return path
}

// listsSecDefault reports whether a prependPlugins value lists the
// security default by its full id. Anything else leaves it out.
func listsSecDefault(v *value) bool {
	if v.kind != array {
		return false
	}
	return slices.ContainsFunc(v.elems, func(e *value) bool {
		s, ok := e.str()
		return ok && s == SecDefault
	})
}

// managedFiles are managed-settings.json and the .json drop-ins of
// managed-settings.d, by name. A drop-in that is not a regular file is
// left to readFile, which reads none through a link.
func managedFiles(p claude.Places) []settingsFile {
	if p.Managed == "" {
		return nil
	}
	out := []settingsFile{{claude.Managed, p.Managed, ".", ManagedSettingsFile, pathname.Join(p.Managed, ManagedSettingsFile)}}
	d := pathname.Join(p.Managed, "managed-settings.d")
	ents, _ := os.ReadDir(d)
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".json") {
			out = append(out, settingsFile{claude.Managed, p.Managed, "managed-settings.d", n, pathname.Join(d, n)})
		}
	}
	return out
}
