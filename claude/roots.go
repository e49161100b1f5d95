// Package claude knows Claude Code's conventions: where its configuration
// and project directories are, and which roots hold skills, agents and
// commands.
package claude

import (
	"errors"
	"os"
	"strings"

	"github.com/skillwire/skillwire/walker"
)

// Scope says whose a root is.
type Scope string

const (
	Global  Scope = "global"
	Project Scope = "project"
)

// Kind is what a root holds.
type Kind string

const (
	Skills   Kind = "skills"
	Agents   Kind = "agents"
	Commands Kind = "commands"
)

// Kinds lists the root kinds in display order.
var Kinds = []Kind{Skills, Agents, Commands}

// Root is one directory of candidates.
type Root struct {
	Path  string
	Scope Scope
	Kind  Kind
}

// Spec is the walker's view of the root: in a skills root only
// directories are candidates; agents and commands may be single files.
func (r Root) Spec() walker.RootSpec {
	return walker.RootSpec{Path: r.Path, Files: r.Kind != Skills}
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

// Roots lists the global roots under cfg and the project roots under
// project/.claude. A project root that is the same directory as a global
// one (a session started in $HOME) is listed once, as global.
func Roots(cfg, project string) []Root {
	var roots []Root
	for _, k := range Kinds {
		roots = append(roots, Root{Path: under(cfg, string(k)), Scope: Global, Kind: k})
	}
	if project == "" {
		return roots
	}
	pcfg := under(project, ".claude")
	for _, k := range Kinds {
		p := under(pcfg, string(k))
		if sameDir(p, under(cfg, string(k))) {
			continue
		}
		roots = append(roots, Root{Path: p, Scope: Project, Kind: k})
	}
	return roots
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
