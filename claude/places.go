package claude

import (
	"cmp"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/cmdline"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/memkey"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// Places are the directories Claude Code reads what it loads from.
type Places struct {
	Config  string // <cfg>: $CLAUDE_CONFIG_DIR, else ~/.claude
	Project string // the project directory; "" when none is known
	// ClaudeJSON is the directory of .claude.json: $CLAUDE_CONFIG_DIR when
	// set, else $HOME. "" leaves it unwatched.
	ClaudeJSON string
	// Managed is the administrator's directory of managed settings and
	// CLAUDE.md. "" leaves it unwatched.
	Managed string
	// Home anchors ~/ in the commands settings run. "" leaves those
	// unbound.
	Home string

	// Locate (Discover) finds these around the project, within Limits.
	// Above are the folders above it, nearest first, whose instruction
	// files Claude Code reads: those holding one, or .claude. Ancestors
	// are those of them whose .claude it loads skills, agents, commands,
	// output styles and workflows from, up to the repository's top.
	// Nested are the folders below it holding .claude/skills.
	// NestedInstructions are those holding an instruction file.
	// Git-ignored ones are left out. NestedPartial: a limit cut the search.
	Above, Ancestors, Nested, NestedInstructions []string
	NestedPartial                                bool
	top                                          string
	// Sources are the folders installed plugins of local marketplaces
	// load from in place. Discover reads them from the plugin registries.
	Sources []PluginSource
	// Markets maps each known marketplace to the marketplace.json its
	// plugins' entries are read from (marketFiles).
	Markets map[string]string
	// Memory, MemoryEnv: auto memory moved by settings, by variables. AgentMemory: agents' (memkey.AgentDirs).
	Memory      []memkey.Folder
	MemoryEnv   memkey.Env
	AgentMemory []memkey.Folder

	// Added are the folders the session added (Client.Added), whose
	// .claude/{skills,agents,commands} are roots of scope Added.
	Added    []string
	Flags    []string // the session's --settings files (clientproc): FlagSettings roots of scope Added
	FlagsMCP []string // its --mcp-config files: FlagMCP roots of scope Added
	// FlagsPrompt are its --system-prompt-file, --append-system-prompt-file
	// and --append-subagent-system-prompt-file files: FlagPrompt roots.
	FlagsPrompt []string
	// Inline are the plugins the session loads with --plugin-dir
	// (InlinePlugins): PluginSources roots of scope Added.
	Inline []PluginSource
	// DevMods are the plugins of <cfg>/dev-mods/<session id>/ (devMods):
	// PluginSources roots of scope Added, as Inline's are.
	DevMods []PluginSource
	// AddedInstructions: the client reads the instruction files of the
	// Added folders too (EnvAddedInstructions). They are then roots of
	// scope Added as well.
	// TestAnAddedFoldersInstructionsAreRootsOnlyWhenTheClientReadsThem
	// holds which files.
	AddedInstructions bool
}

// Discover finds the folders around p.Project that Claude Code loads from.
func (p Places) Discover(lim Limits) Places {
	p.Above, p.Ancestors, p.Nested, p.NestedInstructions, p.NestedPartial, p.top = nil, nil, nil, nil, false, ""
	p.Sources, p.Markets, p.DevMods = pluginSources(p.Config), marketFiles(p.Config), devMods(p.Config)
	p.Memory = memkey.MovedBy(p.Config, p.Project, p.Home, p.Managed)
	if p.Project != "" {
		p.ancestors(lim)
		p.nested(lim)
	}
	p.AgentMemory = memkey.AgentDirs(memkey.AgentPlaces(p.Config, p.Project, cmp.Or(p.top, p.Project), p.MemoryEnv))
	return p
}

// MemoryDirs are the project's memory folders, keyed by the repository's top, else the project.
func (p Places) MemoryDirs() []string {
	return memkey.Dirs(cmp.Or(p.top, p.Project), p.Config, p.MemoryEnv)
}

// ManagedDirEnv overrides the managed directory, for tests and for systems
// where Claude Code is configured to read it elsewhere. Empty leaves it
// unwatched.
const ManagedDirEnv = "SKILLWIRE_MANAGED_DIR"

// Locate finds the places from the environment, with projectHint as
// ProjectDir's hint.
func Locate(env Env, projectHint string) (Places, error) {
	cfg, err := ConfigDir(env)
	if err != nil {
		return Places{}, err
	}
	p := Places{Config: cfg, Project: ProjectDir(env, projectHint), Managed: managedDir}
	if v, ok := env.Getenv(ManagedDirEnv); ok {
		p.Managed = ""
		if strings.HasPrefix(v, "/") {
			p.Managed = v
		}
	}
	p.MemoryEnv = memkey.EnvOf(env.Getenv)
	if v, ok := env.Getenv("CLAUDE_CONFIG_DIR"); ok && strings.HasPrefix(v, "/") {
		p.ClaudeJSON = v
	}
	if home, err := env.Home(); err == nil && strings.HasPrefix(home, "/") {
		p.Home = home
		if p.ClaudeJSON == "" {
			p.ClaudeJSON = home
		}
	}
	return p.Discover(DefaultLimits), nil
}

// configFile is what one named configuration file is.
type configFile struct {
	kind string
	// extract reduces the file to what it configures. nil: the file is
	// observed whole, like an agent file.
	extract walker.Extract
	limit   int64
	runs    bool // a settings file: the scripts its commands run are bound in
	// imports: an instruction file, read whole, with the files its @path
	// imports name bound in. Like Claude Code, it is read through a link.
	imports bool
	follow  bool // read through a link, as the client reads it
}

func (f configFile) spec(name string, r Root) walker.NameSpec {
	s := walker.NameSpec{Name: name, NoFollow: f.extract != nil && !f.follow, Extract: f.extract, Limit: f.limit}
	switch {
	case f.imports:
		s.Extract, s.Scripts = instructionsExtract, r.imports
		s.Imports, s.ImportDepth = r.importsOf, importDepth
	case f.runs:
		s.Scripts = r.scripts
	case name == "installed_plugins.json":
		s.Scripts = r.outsidePluginFiles
	}
	return s
}

// imports lists the files an instruction file of r imports (importPaths).
// Its whole text is its canonical form.
func (r Root) imports(text []byte) []string { return importPaths(r.Path, r.Home, text) }

// importDepth is how deep Claude Code 2.1.328 follows @path imports. The
// file itself is level 0, and a file of level 5 is not loaded. So four
// levels of imports are read, each file once: a cycle ends.
const importDepth = 4

// importsOf lists the files an imported file at p imports in turn. They
// are relative to it, as the client resolves them.
func (r Root) importsOf(p string, data []byte) []string {
	return importPaths(pathname.Parent(p), r.Home, data)
}

// instructionsExtract keeps an instruction file whole. Its digest is its
// bytes', and its imports are read from it.
func instructionsExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// scripts lists the local files the settings subset canon runs: hooks,
// status line, helpers. It lists those r's anchors resolve, as written,
// never cleaned. Absolute and ~/ paths always resolve. For a project's own
// settings, $CLAUDE_PROJECT_DIR/ and relative paths resolve too, since a
// hook runs in the project directory.
func (r Root) scripts(canon []byte) []string {
	var out []string
	for _, c := range config.SettingsCommands(canon) {
		if p, b := r.bind(c); b == cmdline.BindScript {
			out = append(out, p)
		}
	}
	return out
}

// bind is the file command c of r's settings runs, or why there is none.
func (r Root) bind(c config.Command) (string, cmdline.Bind) {
	if c.Type != "" && c.Type != "command" {
		return "", cmdline.BindNone // an http hook's URL, a prompt hook's prompt
	}
	sc, b := cmdline.ScriptOf(c.Command)
	if b != cmdline.BindScript {
		return "", b
	}
	switch {
	case sc.Anchor == cmdline.Absolute:
		return sc.Path, cmdline.BindScript
	case sc.Anchor == cmdline.Home && r.Home != "":
		return pathname.Join(r.Home, sc.Path), cmdline.BindScript
	case (sc.Anchor == cmdline.ProjectDir || sc.Anchor == cmdline.Relative) && r.Project != "":
		return pathname.Join(r.Project, sc.Path), cmdline.BindScript
	case sc.Anchor == cmdline.Relative && r.Scope == Project:
		return "", cmdline.BindNone // no project directory known: nothing to resolve it against
	}
	return "", cmdline.BindUnknown
}

// StandingFacts are what is told of candidate name of r, of canonical form
// canon, whenever it is told, not only when it is new. One is each command
// of a settings file that runs something skillwire cannot bind to a file.
// Another is each plugin installed_plugins.json loads from outside the
// watched cache. A plugin's hooks modules are one too (config.ModuleFacts).
func (r Root) StandingFacts(name, canon []byte) []config.Fact {
	if r.Kind == Plugins || r.Kind == PluginSources || r.Kind == Skills {
		return config.ModuleFacts(canon) // a mod: told whenever its plugin is
	}
	if r.Kind == Config && string(name) == "installed_plugins.json" {
		return r.outsideCache(canon)
	}
	if r.Kind == Config && string(name) == "known_marketplaces.json" {
		return unwatchedSources(canon)
	}
	if !(r.Kind == ManagedSettings || r.Kind == FlagSettings || r.Kind == Config && configFiles[string(name)].runs) {
		return nil
	}
	var fs []config.Fact
	for _, c := range config.SettingsCommands(canon) {
		if _, b := r.bind(c); b == cmdline.BindUnknown {
			fs = append(fs, config.Fact{Kind: config.FactUnboundCommand, Event: c.Event, Name: c.Source, Command: c.Command})
		}
	}
	return fs
}

// outsideCache: r is <cfg>/plugins. An installPath not under its cache
// directory is loaded unwatched. That is judged by its text, so a ".."
// component leaves it.
func (r Root) outsideCache(canon []byte) []config.Fact {
	var fs []config.Fact
	for _, in := range r.installsOutside(canon) {
		fs = append(fs, config.Fact{Kind: config.FactPluginOutsideCache, Name: in[0], Command: in[1]})
	}
	return fs
}

// installsOutside lists (plugin, installPath) of each install outside the
// cache.
func (r Root) installsOutside(canon []byte) [][2]string {
	cache := pathname.Join(r.Path, "cache") + "/"
	var out [][2]string
	for _, in := range config.PluginInstalls(canon) {
		rest, ok := strings.CutPrefix(in.Path, cache)
		if in.Path == "" || ok && !slices.Contains(strings.Split(rest, "/"), "..") {
			continue
		}
		out = append(out, [2]string{in.Plugin, in.Path})
	}
	return out
}

// outsidePluginFiles binds into installed_plugins.json the files that
// declare what a plugin installed outside the cache runs (pluginFronts).
// Each is reached as a script is, since the cache's walk never sees them.
func (r Root) outsidePluginFiles(canon []byte) []string {
	var out []string
	for _, in := range r.installsOutside(canon) {
		if strings.HasPrefix(in[1], "/") {
			for _, f := range pluginFronts {
				out = append(out, pathname.Join(in[1], f))
			}
		}
	}
	return out
}

// configFiles are the names a Config root may hold (DESIGN §12).
var configFiles = map[string]configFile{
	"AGENTS.md":               {kind: KindInstructions, imports: true},
	"CLAUDE.md":               {kind: KindInstructions, imports: true},
	"CLAUDE.local.md":         {kind: KindInstructions, imports: true},
	"settings.json":           {kind: KindSettings, extract: settingsExtract, limit: config.MaxJSON, runs: true},
	"settings.local.json":     {kind: KindSettings, extract: settingsExtract, limit: config.MaxJSON, runs: true},
	"managed-settings.json":   {kind: KindSettings, extract: settingsExtract, limit: config.MaxJSON, runs: true},
	"installed_plugins.json":  {kind: KindSettings, extract: wholeExtract, limit: config.MaxJSON},
	"known_marketplaces.json": {kind: KindSettings, extract: marketplacesExtract, limit: config.MaxJSON},
	".mcp.json":               {kind: KindMCP, extract: mcpExtract, limit: config.MaxJSON},
	".claude.json":            {kind: KindMCP, extract: claudeJSONExtract, limit: config.MaxClaudeJSON},
	"loop.md":                 loopFile,
	"scheduled_tasks.json":    tasksFile,
	"MEMORY.md":               {kind: KindInstructions, extract: instructionsExtract, follow: true}, // sent at start (e2e/memory_test.go), nothing imported
}

func settingsExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.SettingsSubset(data, int64(len(data))))
}

func mcpExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.MCPJSON(data, int64(len(data))))
}

func claudeJSONExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.ClaudeJSONServers(data, int64(len(data))))
}

func frontmatterExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.Frontmatter(data))
}

func marketplacesExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.KnownMarketplaces(data, int64(len(data))))
}

func wholeExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.WholeJSON(data, int64(len(data))))
}

// reasons turns an Extract into the walker's terms. Every ConfigAnomaly
// names an anomaly.Reason.
func reasons(ex config.Extract) ([]byte, []anomaly.Reason) {
	var rs []anomaly.Reason
	for _, a := range ex.Anomalies {
		r, ok := anomaly.Parse(string(a))
		if !ok {
			panic("claude: config anomaly without a reason: " + string(a))
		}
		rs = append(rs, r)
	}
	return ex.Canonical, rs
}

// Roots lists every root, in this order. First come the skills, agents and
// commands roots of cfg, then of the project, so their order never moves.
// Then come the configuration files, output styles and rules of the user,
// the managed directory and the project. A project root in the same
// directory as a global one is listed once, as global. That is a session
// started in $HOME. Named files that share a directory share one root.
func (p Places) Roots() []Root {
	var roots []Root
	add := func(r Root) {
		for i := range roots {
			o := &roots[i]
			if o.Kind == r.Kind && (o.Path == r.Path || r.Scope == Project && o.Scope != Project && sameDir(o.Path, r.Path)) {
				for _, n := range r.Names {
					if !slices.Contains(o.Names, n) {
						o.Names = append(o.Names, n)
						if s, ok := r.Sources[n]; ok {
							o.Sources[n] = s // a --plugin-dir folder inside a local marketplace's
						}
					}
				}
				return
			}
		}
		roots = append(roots, r)
	}
	dirs := func(base string, scope Scope) {
		for _, k := range []Kind{Skills, Agents, Commands} {
			add(Root{Path: pathname.Join(base, string(k)), Scope: scope, Kind: k})
		}
	}
	dirs(p.Config, Global)
	var pcfg string
	if p.Project != "" {
		pcfg = pathname.Join(p.Project, ".claude")
		dirs(pcfg, Project)
	}
	add(Root{Path: p.Config, Scope: Global, Kind: Config, Names: []string{"CLAUDE.local.md", "CLAUDE.md", "settings.json", "loop.md"}})
	add(Root{Path: pathname.Join(p.Config, "plugins"), Scope: Global, Kind: Config, Names: []string{"installed_plugins.json", "known_marketplaces.json"}})
	add(Root{Path: pathname.Join(pathname.Join(p.Config, "plugins"), "cache"), Scope: Global, Kind: Plugins, Markets: p.Markets, InPlace: inPlace(p.Sources)})
	add(Root{Path: pathname.Join(p.Config, "output-styles"), Scope: Global, Kind: OutputStyles})
	add(Root{Path: pathname.Join(p.Config, "rules"), Scope: Global, Kind: Rules})
	if p.ClaudeJSON != "" {
		add(Root{Path: p.ClaudeJSON, Scope: Global, Kind: Config, Names: []string{".claude.json"}})
	}
	if p.Managed != "" {
		add(Root{Path: p.Managed, Scope: Managed, Kind: Config, Names: []string{"CLAUDE.local.md", "CLAUDE.md", "managed-settings.json"}})
		add(Root{Path: pathname.Join(p.Managed, "managed-settings.d"), Scope: Managed, Kind: ManagedSettings})
	}
	if p.Project != "" {
		add(Root{Path: p.Project, Scope: Project, Kind: Config, Names: []string{".mcp.json", "AGENTS.md", "CLAUDE.local.md", "CLAUDE.md"}})
		add(Root{Path: pcfg, Scope: Project, Kind: Config, Names: []string{"AGENTS.md", "CLAUDE.local.md", "CLAUDE.md", "settings.json", "settings.local.json", "loop.md", "scheduled_tasks.json"}})
		add(Root{Path: pathname.Join(pcfg, "rules"), Scope: Project, Kind: Rules})
		add(Root{Path: pathname.Join(pcfg, "output-styles"), Scope: Project, Kind: OutputStyles})
	}
	// What Discover found comes after every root above, so their order
	// never moves when a folder around the project appears.
	add(Root{Path: pathname.Join(p.Config, "workflows"), Scope: Global, Kind: Workflows})
	if p.Project != "" {
		add(Root{Path: pathname.Join(pcfg, "workflows"), Scope: Project, Kind: Workflows})
	}
	for _, m := range p.MemoryDirs() {
		add(Root{Path: m, Scope: Project, Kind: Config, Names: []string{"MEMORY.md"}})
	}
	for _, m := range slices.Concat(p.Memory, p.AgentMemory) {
		add(Root{Path: m.Path, Scope: map[bool]Scope{false: Global, true: Project}[m.Project], Kind: Config, Names: []string{"MEMORY.md"}})
	}
	for _, d := range p.Ancestors {
		c := pathname.Join(d, ".claude")
		dirs(c, Project)
		add(Root{Path: pathname.Join(c, "output-styles"), Scope: Project, Kind: OutputStyles})
		add(Root{Path: pathname.Join(c, "workflows"), Scope: Project, Kind: Workflows})
	}
	for _, d := range p.Nested {
		add(Root{Path: pathname.Join(pathname.Join(d, ".claude"), "skills"), Scope: Project, Kind: Skills})
	}
	for _, d := range slices.Concat(p.Above, p.NestedInstructions) {
		add(Root{Path: d, Scope: Project, Kind: Config, Names: slices.Clone(instructionNames)})
		if d != p.Home {
			c := pathname.Join(d, ".claude")
			add(Root{Path: c, Scope: Project, Kind: Config, Names: []string{"AGENTS.md", "CLAUDE.md"}})
			add(Root{Path: pathname.Join(c, "rules"), Scope: Project, Kind: Rules})
		}
	}
	for _, r := range sourceRoots(p.Sources, Global) {
		add(r)
	}
	// The added folders come last: a session without them lists the
	// same roots in the same order.
	for _, d := range p.Added {
		dirs(pathname.Join(d, ".claude"), Added)
	}
	for _, r := range sourceRoots(slices.Concat(p.Inline, p.DevMods), Added) {
		add(r)
	}
	for _, fl := range []struct {
		kind  Kind
		files []string
	}{{FlagSettings, p.Flags}, {FlagMCP, p.FlagsMCP}, {FlagPrompt, p.FlagsPrompt}} {
		for _, f := range fl.files {
			add(Root{Path: pathname.Parent(f), Scope: Added, Kind: fl.kind, Names: []string{f[strings.LastIndexByte(f, '/')+1:]}})
		}
	}
	if p.AddedInstructions {
		for _, d := range p.Added {
			c := pathname.Join(d, ".claude")
			add(Root{Path: d, Scope: Added, Kind: Config, Names: []string{"CLAUDE.local.md", "CLAUDE.md"}})
			add(Root{Path: c, Scope: Added, Kind: Config, Names: []string{"CLAUDE.md"}})
			add(Root{Path: pathname.Join(c, "rules"), Scope: Added, Kind: Rules})
		}
	}
	roots = heldOnce(roots)
	for i := range roots {
		switch roots[i].Scope {
		case Global:
			roots[i].ConfigDir = p.Config
		case Project:
			roots[i].ConfigDir = pcfg
		}
		slices.Sort(roots[i].Names)
		if roots[i].Kind.Named() || roots[i].Kind == ManagedSettings {
			// A user's or administrator's settings are the same file in
			// every project. So $CLAUDE_PROJECT_DIR/… is bound only for
			// the project's own, or the digest would change with the
			// project.
			roots[i].Home = p.Home
			if roots[i].Scope == Project {
				roots[i].Project = p.Project
			}
		}
	}
	return roots
}

// AddedRoots are the roots of scope Added of the folders dirs, as Roots
// lists them for Places.Added. They hold the folders' instruction files
// when the client reads them (Places.AddedInstructions). home anchors
// their ~/ imports, as Places.Home does. So a folder /add-dir adds is
// observed by the ids and digests of a session given it with --add-dir.
func AddedRoots(dirs []string, instructions bool, home string) []Root {
	return Places{Added: dirs, AddedInstructions: instructions, Home: home}.addedRoots()
}

// InlineRoots are the roots of the --plugin-dir plugins named of the
// folders dir holds, as a store records them outside the session. Each is
// named for its plugin as InlinePlugins names it.
func InlineRoots(dir string, names []string) []Root {
	var p Places
	for _, n := range names {
		s, _ := inlineSource(dir, n)
		p.Inline = append(p.Inline, s)
	}
	return p.addedRoots()
}

func (p Places) addedRoots() []Root {
	var out []Root
	for _, r := range p.Roots() {
		if r.Scope == Added {
			out = append(out, r)
		}
	}
	return out
}

// heldOnce leaves out of the roots of a command line's files (--settings,
// --mcp-config, a system prompt file) each file another root holds: it is
// watched there, once, for two candidates of one path would share its id.
// Among those roots the first holds it. A skills or plugin cache root
// holds folders, not a file of its own directory.
func heldOnce(roots []Root) []Root {
	out := make([]Root, 0, len(roots))
	for i, r := range roots {
		if r.Kind.Flag() {
			r.Names = slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool {
				for j, o := range roots {
					if j != i && o.Path == r.Path && o.Kind != Skills && o.Kind != Plugins && (!o.Kind.Flag() || j < i) && o.Holds([]byte(n)) {
						return true
					}
				}
				return false
			})
			if len(r.Names) == 0 {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}
