package claude

// managedDir is where Claude Code reads managed settings on macOS.
const managedDir = "/Library/Application Support/ClaudeCode"
