package claude

import "strings"

// EnvAddedInstructions switches on Claude Code's reading of the
// instruction files of the folders a session added (Places.AddedInstructions,
// pinned by e2e/addedcfg_test.go): off unless set, from the environment
// the client started with or from a settings env it applied.
const EnvAddedInstructions = "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"

// EnvOn reads an environment switch as Claude Code 2.1.328 does: trimmed
// as JavaScript trims, lower-cased, one of 1, true, yes, on (no rune but
// those letters' own capitals lower-cases to one of them, in JavaScript
// or in Go).
func EnvOn(v string) bool {
	switch strings.ToLower(strings.TrimFunc(v, jsSpace)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
