package claude

import (
	"cmp"

	"github.com/skillwire/skillwire/claude/memkey"
)

// A project's auto memory folder, as Claude Code 2.1.332 reads it: see
// docs/claude-code.md and e2e/memory_test.go. Its MEMORY.md is sent at
// start, told like an instruction file, with nothing imported.
var memoryFile = configFile{kind: KindInstructions, extract: instructionsExtract, follow: true}

// MemoryDir is the project's memory folder, "" when none is known. It is
// keyed by the repository's top, else by the project.
func (p Places) MemoryDir() string {
	return memkey.Dir(p.Config, cmp.Or(p.top, p.Project))
}
