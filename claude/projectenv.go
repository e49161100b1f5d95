package claude

import "strings"

// ProjectSettingsFiles are the files of a project's .claude whose env
// Claude Code applies to its own process. So they apply to every hook it
// runs.
var ProjectSettingsFiles = []string{"settings.json", "settings.local.json"}

// HookProjects are the directories whose project settings Claude Code may
// have applied to a hook run in cwd. One is ProjectDir (CLAUDE_PROJECT_DIR,
// else cwd). The other is cwd itself when it is absolute. Either may be
// the one Claude Code started in.
func HookProjects(env Env, cwd string) []string {
	ps := []string{ProjectDir(env, cwd)}
	if strings.HasPrefix(cwd, "/") {
		ps = append(ps, cwd)
	}
	return ps
}
