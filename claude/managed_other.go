//go:build !darwin

package claude

// managedDir is where Claude Code reads managed settings on Linux.
const managedDir = "/etc/claude-code"
