package claude

import (
	"cmp"

	"github.com/skillwire/skillwire/claude/memkey"
)

// An auto memory folder's MEMORY.md is sent at start (2.1.332, e2e/memory_test.go):
// told like an instruction file, with nothing imported.
var memoryFile = configFile{kind: KindInstructions, extract: instructionsExtract, follow: true}

// MemoryDirs are the project's memory folders: the config folder's and
// RemoteMemory's. Each is keyed by the repository's top, else the project.
func (p Places) MemoryDirs() []string {
	return memkey.Dirs(cmp.Or(p.top, p.Project), p.Config, p.RemoteMemory)
}
