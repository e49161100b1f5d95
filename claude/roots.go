// Package claude knows Claude Code's conventions. It knows where its
// configuration and project directories are. It knows which roots hold
// what it loads or runs without asking (DESIGN §12).
package claude

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// Scope says whose a root is.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
	Managed Scope = "managed" // set by the administrator (managed settings)
	// Added: a folder the session added (--add-dir). The client loads
	// skills, agents and commands from its .claude.
	Added Scope = "added"
)

// Valid reports whether s is one of the scopes.
func (s Scope) Valid() bool { return s == Global || s == Project || s == Managed || s == Added }

// Kind is what a root holds.
type Kind string

const (
	Skills   Kind = "skills"
	Agents   Kind = "agents"
	Commands Kind = "commands"
	// Config is a directory holding named configuration files: settings,
	// .mcp.json, CLAUDE.md, …. Only those names are candidates, each of
	// the kind its name says (ConfigFile).
	Config       Kind = "config"
	Rules        Kind = "rules"         // .claude/rules: instruction files
	OutputStyles Kind = "output-styles" // output styles: prompt files
	// Plugins is the plugin cache: its candidates are the installed
	// version directories <marketplace>/<plugin>/<version>.
	Plugins Kind = "plugins"
	// PluginSources holds the folders installed plugins of local
	// marketplaces load from in place (PluginSource). Only its Names are
	// candidates, each named for its plugin by Sources.
	PluginSources Kind = "plugin-sources"
	// ManagedSettings is managed-settings.d: every entry is a settings file.
	ManagedSettings Kind = "managed-settings"
	// Workflows is .claude/workflows: scripts that call agents.
	Workflows    Kind = "workflows"
	FlagSettings Kind = "flag-settings" // the settings files of --settings: its Names
	FlagMCP      Kind = "flag-mcp"      // the MCP configuration files of --mcp-config: its Names
	FlagPrompt   Kind = "flag-prompt"   // the system prompt files of --system-prompt-file and the like: its Names
)

// Kinds lists the kinds of the roots a repository's .claude holds, by
// directory name, in display order. They are what `lock` and `verify`
// cover.
var Kinds = []Kind{Skills, Agents, Commands, Rules, OutputStyles}

// Named reports whether a root of kind k holds only the files its Names
// list: configuration files, and the files a command line names.
func (k Kind) Named() bool { return k == Config || k.Flag() }

// Flag reports whether a root of kind k holds files a command line names.
func (k Kind) Flag() bool { return k == FlagSettings || k == FlagMCP || k == FlagPrompt }

// Valid reports whether k is a root kind.
func (k Kind) Valid() bool {
	switch k {
	case Skills, Agents, Commands, Config, Rules, OutputStyles, ManagedSettings, Plugins, PluginSources, Workflows, FlagSettings, FlagMCP, FlagPrompt:
		return true
	}
	return false
}

// Candidate kinds: what one candidate is (DESIGN §7, the "kind" of C).
const (
	KindSkill        = "skill"
	KindAgent        = "agent"
	KindCommand      = "command"
	KindPlugin       = "plugin"
	KindSettings     = "settings"
	KindMCP          = "mcp"
	KindInstructions = "instructions"
	KindOutputStyle  = "output-style"
	KindWorkflow     = "workflow"
)

// CandidateKind is the kind of the candidate name of a root of kind k.
// It is "" when a config root does not know the name.
func CandidateKind(k Kind, name []byte) string {
	switch k {
	case Skills:
		return KindSkill
	case Agents:
		return KindAgent
	case Commands:
		return KindCommand
	case Plugins, PluginSources:
		return KindPlugin
	case Rules:
		return KindInstructions
	case OutputStyles:
		return KindOutputStyle
	case Workflows:
		return KindWorkflow
	case ManagedSettings, FlagSettings:
		return KindSettings
	case FlagMCP:
		return KindMCP
	case FlagPrompt:
		return KindInstructions
	case Config:
		if f, ok := configFiles[string(name)]; ok {
			return f.kind
		}
	}
	return ""
}

// IsForm reports whether the candidate name of a root of kind k is kept
// as a canonical form of one file, as a settings or MCP candidate is. Its
// manifest's file entry is the form's hash, not the file's.
func IsForm(k Kind, name []byte) bool {
	ck := CandidateKind(k, name)
	return ck == KindSettings || ck == KindMCP
}

// Root is one directory of candidates.
type Root struct {
	Path  string
	Scope Scope
	Kind  Kind
	// Names are the candidates of a Config root, looked up by name. The
	// directory itself is never listed: it may be $HOME.
	Names []string
	// Home and Project anchor the scripts a settings file runs (~/…,
	// $CLAUDE_PROJECT_DIR/…). "" leaves those unbound.
	Home, Project string
	// Sources, of a PluginSources root, is the plugin (plugin@marketplace)
	// each of Names is the folder of.
	Sources map[string]string
	// Markets, of a PluginSources root, is the marketplace.json bound into
	// each of Names. Of the plugin cache, it is each marketplace's
	// (outsideFiles).
	Markets map[string]string
	// NoMCP, of a PluginSources root, are the Names the client loads
	// without their MCP servers (PluginSource.NoMCP).
	NoMCP []string
	// InPlace, of the plugin cache, are the <marketplace>/<plugin> folders
	// of plugins that load in place (PluginSource.Entry): none of its own.
	InPlace []string
	// ConfigDir is the configuration directory the root belongs to. Its
	// audit log speaks for the root. It is <cfg> for every root of the
	// user's. It is <project>/.claude for every root of the project's, the
	// folders around it included. It is "" for the administrator's and an
	// added folder's, for which no log speaks.
	ConfigDir string
}

// Same reports whether r and o are one root. Roots never lists two roots
// of one kind in one directory.
func (r Root) Same(o Root) bool { return r.Path == o.Path && r.Kind == o.Kind && r.Scope == o.Scope }

// Display is how the candidate name of a root of kind k is shown, and
// whether it may be. A name that passes the display gate shows. So does a
// configuration file's name: skillwire chose it, and ".mcp.json" fails
// the gate's first rule. So does a plugin's "plugin@marketplace/version"
// when each of the three passes.
func Display(k Kind, name []byte) (string, bool) {
	switch {
	case k == Plugins:
		m, rest, ok1 := bytes.Cut(name, []byte{'/'})
		p, v, ok2 := bytes.Cut(rest, []byte{'/'})
		if ok1 && ok2 && anomaly.Gate(m) && anomaly.Gate(p) && anomaly.Gate(v) {
			return string(p) + "@" + string(m) + "/" + string(v), true
		}
		return "", false
	case anomaly.Gate(name), DotName(k, name):
		return string(name), true
	}
	if _, fixed := configFiles[string(name)]; k == Config && fixed {
		return string(name), true
	}
	return "", false
}

// ValidName reports whether name can be a candidate of a root of kind k.
// That is one entry name, or for the plugin cache a path of up to three
// components.
func ValidName(k Kind, name []byte) bool {
	n := 1
	if k == Plugins {
		n = 3
	}
	comps := bytes.Split(name, []byte{'/'})
	if len(comps) > n {
		return false
	}
	for _, c := range comps {
		if len(c) == 0 || string(c) == "." || string(c) == ".." || bytes.IndexByte(c, 0) >= 0 {
			return false
		}
	}
	return true
}

// KindOf is the kind of an observed candidate: CandidateKind, with one
// exception. Claude Code loads a folder of a skills root holding
// .claude-plugin/plugin.json as a plugin, hooks and all.
func KindOf(k Kind, name []byte, m *snapshot.Manifest) string {
	if k == Skills && m != nil {
		_, ok := slices.BinarySearchFunc(m.Entries, []byte(".claude-plugin/plugin.json"), func(e snapshot.Entry, p []byte) int {
			return snapshot.ComparePaths(e.Path, p)
		})
		if ok {
			return KindPlugin
		}
	}
	return CandidateKind(k, name)
}

// Holds reports whether name can be a candidate of r. Any name can, except
// in a Config or PluginSources root, which holds only its Names. So a
// record of another root in r's directory is never judged removed by r's
// observation.
func (r Root) Holds(name []byte) bool {
	if m, rest, _ := strings.Cut(string(name), "/"); slices.Contains(r.InPlace, m+"/"+strings.SplitN(rest, "/", 2)[0]) {
		return false
	}
	return !r.Kind.Named() && r.Kind != PluginSources || slices.Contains(r.Names, string(name))
}

// Split names the candidate a path under r lies in; rest is relative to
// r.Path. nested says the path lies inside the candidate rather than being
// it. ok is false for a path above every candidate: a marketplace or
// plugin directory of the plugin cache.
func (r Root) Split(rest string) (name string, nested, ok bool) {
	depth := 1
	if r.Kind == Plugins {
		depth = 3
	}
	end := 0
	for range depth {
		i := strings.IndexByte(rest[end:], '/')
		if i < 0 {
			return rest, false, strings.Count(rest, "/") == depth-1
		}
		end += i + 1
	}
	return rest[:end-1], true, true
}

// Spec is the walker's view of the root. In a skills root only
// directories are candidates. Agents and commands may be single files.
// Configuration files are read whole and reduced to what they configure.
func (r Root) Spec() walker.RootSpec {
	spec := walker.RootSpec{Path: r.Path, Files: r.Kind != Skills}
	if r.Kind == Skills || r.Kind == Agents || r.Kind == Commands {
		spec.Shown = func(name []byte) bool { return DotName(r.Kind, name) }
	}
	switch r.Kind {
	case Skills:
		// A skills folder holding .claude-plugin/plugin.json loads as a
		// plugin (KindOf).
		// Its SKILL.md's form depends on its bytes alone: a walk may reuse
		// it (walker.FrontCache).
		spec.Each = &walker.NameSpec{Front: skillFront, FrontTag: "skill", FrontFile: "SKILL.md", FrontMore: pluginFronts, FrontRefs: pluginRefs, FrontJoin: skillJoin}
	case Agents, Commands:
		// An agent's or command's frontmatter form depends on its bytes
		// alone too: hundreds of them are not parsed again at each start.
		spec.Each = &walker.NameSpec{Front: frontmatterExtract, FrontTag: "frontmatter"}
	case Config:
		for _, n := range r.Names {
			spec.Names = append(spec.Names, configFiles[n].spec(n, r))
		}
	case ManagedSettings:
		spec.Each = &walker.NameSpec{NoFollow: true, Extract: settingsExtract, Limit: config.MaxJSON, Scripts: r.scripts}
	case FlagSettings, FlagMCP, FlagPrompt:
		// Named by the person's command line: a link is followed, as the
		// client follows it. A system prompt file's whole text is sent,
		// nothing imported.
		ns := map[Kind]walker.NameSpec{
			FlagSettings: {Extract: settingsExtract, Limit: config.MaxJSON, Scripts: r.scripts},
			FlagMCP:      {Extract: mcpExtract, Limit: config.MaxJSON},
			FlagPrompt:   {Extract: instructionsExtract},
		}[r.Kind]
		for _, n := range r.Names {
			ns.Name = n
			spec.Names = append(spec.Names, ns)
		}
	case Plugins:
		// What a plugin's hooks run is told as facts of its version.
		spec.Depth, spec.InnerLinks, spec.Skip = 2, true, r.InPlace
		each := pluginSpec()
		each.Noise, each.Outside, each.OutsideExtract = cacheNoise, r.outsideFiles, r.entryForm
		spec.Each = &each
	case PluginSources:
		// The names come from a marketplace.json, so the tree's author
		// chose them: they pass the display gate. A link there is told,
		// never followed out of the marketplace.
		spec.InnerLinks, spec.NamesFromTree = true, true
		for _, n := range r.Names {
			ns := pluginSpec()
			if slices.Contains(r.NoMCP, n) {
				// Its .mcp.json is content, never a server that starts.
				ns.Front, ns.FrontMore = pluginHooksFront, []string{".claude-plugin/plugin.json"}
			}
			ns.Name, ns.NoFollow, ns.Outside, ns.OutsideExtract = n, true, r.outsideFiles, r.entryForm
			if isDevMods(r.Path) {
				ns.Noise = devModNoise
			}
			spec.Names = append(spec.Names, ns)
		}
	}
	return spec
}

// pluginSpec is how a plugin's folder is observed: all content. What its
// hooks and servers run is told as facts.
func pluginSpec() walker.NameSpec {
	return walker.NameSpec{Front: pluginFront, FrontFile: pluginFronts[0], FrontMore: pluginFronts[1:], FrontRefs: pluginRefs, FrontJoin: joinForms,
		Unloaded: pluginUnloaded}
}

// pluginUnloaded are a plugin folder's entries the client never loads as
// it: a git checkout's .git/, of a marketplace that is one plugin ("./")
// or of a version cloned into the cache. A pull changes it wholesale. A
// plugin whose hooks, servers or plugin.json name it keeps it as content
// (walker.NameSpec.Unloaded).
var pluginUnloaded = []string{".git"}

// Env is the part of the environment these conventions read.
type Env struct {
	Getenv func(string) (string, bool)
	Home   func() (string, error)
	Getwd  func() (string, error)
}

// OSEnv reads the process environment.
func OSEnv() Env { return Env{Getenv: os.LookupEnv, Home: os.UserHomeDir, Getwd: os.Getwd} }

// ErrNoConfigDir means neither $CLAUDE_CONFIG_DIR nor a home directory is
// known.
var ErrNoConfigDir = errors.New("no Claude Code configuration directory: set CLAUDE_CONFIG_DIR or HOME")

// ConfigDir is $CLAUDE_CONFIG_DIR when it is absolute, else ~/.claude.
func ConfigDir(env Env) (string, error) {
	if v, ok := env.Getenv("CLAUDE_CONFIG_DIR"); ok && strings.HasPrefix(v, "/") {
		return v, nil
	}
	home, err := env.Home()
	if err != nil || !strings.HasPrefix(home, "/") {
		return "", ErrNoConfigDir
	}
	return pathname.Join(home, ".claude"), nil
}

// ProjectDir is $CLAUDE_PROJECT_DIR when absolute, else hint (the hook's
// cwd) when absolute, else the working directory. "" means none is known.
func ProjectDir(env Env, hint string) string {
	if v, ok := env.Getenv("CLAUDE_PROJECT_DIR"); ok && strings.HasPrefix(v, "/") {
		return v
	}
	if strings.HasPrefix(hint, "/") {
		return hint
	}
	if wd, err := env.Getwd(); err == nil && strings.HasPrefix(wd, "/") {
		return wd
	}
	return ""
}

// SettingsPath is the settings.json of a Claude Code configuration
// directory: the global one, or a project's .claude.
func SettingsPath(dir string) string { return pathname.Join(dir, "settings.json") }

// ProjectConfigDir is a project's .claude directory.
func ProjectConfigDir(project string) string { return pathname.Join(project, ".claude") }

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
