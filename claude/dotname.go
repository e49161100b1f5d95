package claude

import (
	"bytes"

	"github.com/skillwire/skillwire/anomaly"
)

// DotName reports whether name is a skill, agent or command entry that the
// client loads under a leading dot. Claude Code 2.1.332 lists a skill folder
// ".hidden-tools" as ".hidden-tools" and runs it (e2e
// TestADotLeadingSkillTheClientLoadsIsASkill). So such a name is shown, with
// its dot, and judged as any other. One dot, then a name the display gate
// passes. A name spelled as the client's own files stays refused: .claude*,
// .git*, .mcp* and any *.json. It could pose as a configuration file.
func DotName(k Kind, name []byte) bool {
	if k != Skills && k != Agents && k != Commands || len(name) < 2 || name[0] != '.' || !anomaly.Gate(name[1:]) {
		return false
	}
	low := bytes.ToLower(name[1:])
	for _, p := range [][]byte{[]byte("claude"), []byte("git"), []byte("mcp")} {
		if bytes.HasPrefix(low, p) {
			return false
		}
	}
	return !bytes.HasSuffix(bytes.ToLower(name), []byte(".json")) // ".json" too
}
