package memkey

import (
	"cmp"

	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// An agent whose frontmatter says "memory: user", "project" or "local"
// has its folder's MEMORY.md sent in its system prompt when it runs
// (Claude Code 2.1.332, e2e TestAnAgentsMemoryMDIsWatched):
//   - user: <config>/agent-memory/<agent>/, Remote standing for the config
//   - project: <project>/.claude/agent-memory/<agent>/
//   - local: <project>/.claude/agent-memory-local/<agent>/, or with Remote
//     <Remote>/projects/<key>/agent-memory-local/<agent>/

// AgentPlaces are the folders that hold agents' memory folders, for the
// config folder cfg, the project, and base, the repository's top else the
// project. Project: the project's, not the user's.
func AgentPlaces(cfg, project, base string, e Env) []Folder {
	var out []Folder
	if c := cmp.Or(e.Remote, cfg); c != "" {
		out = append(out, Folder{Path: pathname.Join(c, "agent-memory")})
	}
	if project != "" {
		dot := pathname.Join(project, ".claude")
		out = append(out, Folder{pathname.Join(dot, "agent-memory"), true}, Folder{pathname.Join(dot, "agent-memory-local"), true})
	}
	if e.Remote != "" && base != "" {
		for _, b := range Bases(base) {
			out = append(out, Folder{pathname.Join(pathname.Join(pathname.Join(e.Remote, "projects"), Of(b)), "agent-memory-local"), true})
		}
	}
	return out
}

// AgentDirs are the agents' memory folders in each of places: every entry
// that is not a regular file. Each is the folder of one agent's MEMORY.md.
// The listing is the walker's, bounded as its.
func AgentDirs(places []Folder) []Folder {
	var out []Folder
	for _, p := range places {
		w := walker.Discover([]walker.RootSpec{{Path: p.Path}}, walker.DefaultConfig())[0]
		for _, c := range w.Candidates {
			if c.Kind != walker.KindFile {
				out = append(out, Folder{pathname.Join(p.Path, string(c.Name)), p.Project})
			}
		}
	}
	return out
}
