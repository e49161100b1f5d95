package claude

import (
	"cmp"

	"github.com/skillwire/skillwire/claude/memkey"
)

// MemoryDirs are the project's memory folders: the config folder's and
// MemoryEnv's. Each is keyed by the repository's top, else the project.
func (p Places) MemoryDirs() []string {
	return memkey.Dirs(cmp.Or(p.top, p.Project), p.Config, p.MemoryEnv)
}
