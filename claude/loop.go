package claude

import (
	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
)

// What Claude Code's /loop and its scheduler read. Each fact holds for
// 2.1.328 and 2.1.332 and is pinned by e2e/loop_test.go.
//
// A bare /loop, or one with an interval alone, sends a loop-tasks file
// with its prompt. That is <project>/.claude/loop.md, else <config>/loop.md.
// The project is the folder the client started in, never a folder above
// it. A file that is empty or white space counts as none. Both are read
// through a link, and only when /loop runs.
//
// An interactive session sends the prompt of each task of
// <project>/.claude/scheduled_tasks.json when it comes due. A one-shot
// task missed while no session ran is sent at the start. The file is read
// through a link. <config>/scheduled_tasks.json is not read.
//
// The client reads neither .claude/routines nor .claude/launch.json. It
// only checks that they are there, for its sandbox's protected paths.

var (
	// loopFile is told like an instruction file: the model works its
	// tasks as the person's own. Nothing in it is imported.
	loopFile = configFile{kind: KindInstructions, extract: instructionsExtract, follow: true}
	// tasksFile is told by its tasks (config.ScheduledTasks).
	tasksFile = configFile{kind: KindSettings, extract: tasksExtract, limit: config.MaxJSON, follow: true}
)

func tasksExtract(_, data []byte) ([]byte, []anomaly.Reason) {
	return reasons(config.ScheduledTasks(data, int64(len(data))))
}
