// Package claude knows Claude Code's conventions: where its configuration
// and project directories are, and which roots hold what it loads or runs
// without asking (DESIGN §12).
package claude

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/walker"
)

// Scope says whose a root is.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
	Managed Scope = "managed" // set by the administrator (managed settings)
)

// Valid reports whether s is one of the scopes.
func (s Scope) Valid() bool { return s == Global || s == Project || s == Managed }

// Kind is what a root holds.
type Kind string

const (
	Skills   Kind = "skills"
	Agents   Kind = "agents"
	Commands Kind = "commands"
	// Config is a directory holding named configuration files (settings,
	// .mcp.json, CLAUDE.md, …): only those names are candidates, each of the
	// kind its name says (ConfigFile).
	Config       Kind = "config"
	Rules        Kind = "rules"         // .claude/rules: instruction files
	OutputStyles Kind = "output-styles" // output styles: prompt files
	// ManagedSettings is managed-settings.d: every entry is a settings file.
	ManagedSettings Kind = "managed-settings"
)

// Kinds lists the kinds of the roots a repository's .claude holds by
// directory name (skills, agents, commands), in display order.
var Kinds = []Kind{Skills, Agents, Commands}

// Valid reports whether k is a root kind.
func (k Kind) Valid() bool {
	switch k {
	case Skills, Agents, Commands, Config, Rules, OutputStyles, ManagedSettings:
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
)

// CandidateKind is the kind of the candidate name of a root of kind k;
// "" when a config root does not know the name.
func CandidateKind(k Kind, name []byte) string {
	switch k {
	case Skills:
		return KindSkill
	case Agents:
		return KindAgent
	case Commands:
		return KindCommand
	case Rules:
		return KindInstructions
	case OutputStyles:
		return KindOutputStyle
	case ManagedSettings:
		return KindSettings
	case Config:
		if f, ok := configFiles[string(name)]; ok {
			return f.kind
		}
	}
	return ""
}

// Root is one directory of candidates.
type Root struct {
	Path  string
	Scope Scope
	Kind  Kind
	// Names are the candidates of a Config root, looked up by name; the
	// directory itself is never listed (it may be $HOME).
	Names []string
	// Home and Project anchor the scripts a settings file runs (~/…,
	// $CLAUDE_PROJECT_DIR/…); "" leaves those unbound.
	Home, Project string
}

// Same reports whether r and o are one root: Roots never lists two roots
// of one kind in one directory.
func (r Root) Same(o Root) bool { return r.Path == o.Path && r.Kind == o.Kind && r.Scope == o.Scope }

// Shown reports whether the name of a candidate of a root of kind k may
// be shown: it passes the display gate, or it is a configuration file's
// name, which skillwire chose (".mcp.json" fails the gate's first rule).
func Shown(k Kind, name []byte) bool {
	if anomaly.Gate(name) {
		return true
	}
	_, fixed := configFiles[string(name)]
	return k == Config && fixed
}

// Holds reports whether name can be a candidate of r: any name, except in
// a Config root, which holds only its Names. A record of another root that
// shares r's directory is never judged removed by r's observation.
func (r Root) Holds(name []byte) bool {
	return r.Kind != Config || slices.Contains(r.Names, string(name))
}

// Spec is the walker's view of the root: in a skills root only
// directories are candidates; agents and commands may be single files;
// configuration files are read whole and reduced to what they configure.
func (r Root) Spec() walker.RootSpec {
	spec := walker.RootSpec{Path: r.Path, Files: r.Kind != Skills}
	switch r.Kind {
	case Config:
		for _, n := range r.Names {
			spec.Names = append(spec.Names, configFiles[n].spec(n, r.scripts))
		}
	case ManagedSettings:
		spec.Each = &walker.NameSpec{NoFollow: true, Extract: settingsExtract, Limit: MaxConfigJSON, Scripts: r.scripts}
	}
	return spec
}

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
	return under(home, ".claude"), nil
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

// Roots lists the roots of cfg and project (see Places.Roots), without
// ~/.claude.json and the managed files.
func Roots(cfg, project string) []Root {
	return Places{Config: cfg, Project: project}.Roots()
}

// under appends one component without cleaning the path it was given.
func under(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

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
