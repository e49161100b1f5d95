package claude

import (
	"strings"

	"github.com/skillwire/skillwire/claude/jstext"
)

// EnvAddedInstructions switches on Claude Code's reading of the
// instruction files of the folders a session added
// (Places.AddedInstructions; pinned by e2e/addedcfg_test.go). It is off
// unless set, either in the environment the client started with or in a
// settings env it applied.
const EnvAddedInstructions = "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"

// EnvOn reads an environment switch as Claude Code 2.1.328 does. The value
// is trimmed as JavaScript trims and lower-cased. It is on when it is one
// of 1, true, yes, on. No other rune lower-cases to one of those letters,
// in JavaScript or in Go, but their own capitals.
func EnvOn(v string) bool {
	switch strings.ToLower(strings.TrimFunc(v, jstext.Space)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
