package builtin

// Tool is one of the client's own tools, as it offers it to the model.
type Tool struct {
	Name string
	// Hook is the tool name skillwire's PreToolUse matcher sees for a
	// call of it. It is "" for a tool the gate does not see.
	Hook string
	// Why says how the gate judges a call, or why it needs no gate.
	Why string
}

// Tools are the tools Claude Code 2.1.328 and 2.1.332 offer the model. They
// are the request's tools array and its deferred tools, which ToolSearch
// loads. The e2e case TestTheClientsToolsAreTheOnesSkillwireKnows reads
// them from what the pinned client sends. It fails on a tool missing
// either side. It checks each Hook against the installed matcher.
var Tools = []Tool{
	{"Agent", "Agent", "runs an agent: judged by its subagent_type"},
	{"Bash", "Bash", "a skillwire decision command is asked of the person"},
	{"CronCreate", "", "fires a prompt as a typed one: a /name in it meets prompt-expansion"},
	{"CronDelete", "", "cancels a CronCreate job; runs nothing"},
	{"CronList", "", "lists CronCreate jobs; runs nothing"},
	{"DeferredToolPlaceholder", "", "a placeholder the model is told never to call"},
	{"Edit", "", "changes a file; a candidate it changes is judged at its use"},
	{"EnterWorktree", "", "moves the session into a worktree; a BLOCK on a project skill holds there"},
	{"ExitWorktree", "", "moves the session back out of a worktree; runs nothing"},
	{"ListAgents", "", "lists agents and sessions to message; runs and loads nothing"},
	// The client runs Bash-matched hooks for Monitor, with tool_name Bash
	// and the monitor's command.
	{"Monitor", "Bash", "runs a shell command: judged as a Bash call"},
	{"NotebookEdit", "", "changes a notebook cell; a notebook is no candidate"},
	{"Read", "", "reads a file into the context; PostToolUse keeps the nested skills its touch loads"},
	{"ReportFindings", "", "hands review findings to the host's UI; runs and loads nothing"},
	{"ScheduleWakeup", "", "fires a prompt as a typed one: a /name in it meets prompt-expansion"},
	{"SendMessage", "", "messages an agent started through Agent, or a session with its own hooks"},
	{"Skill", "Skill", "loads a skill: judged by its name"},
	{"TaskStop", "", "stops a background task; runs nothing"},
	{"ToolSearch", "", "loads the schema of a tool the client already offers"},
	{"WebFetch", "", "fetches a page from the network; nothing on disk is loaded"},
	{"WebSearch", "", "searches the web; nothing on disk is loaded"},
	{"Workflow", "Workflow", "runs a workflow: judged by its script or name"},
	{"Write", "", "writes a file; a candidate it writes is judged at its use"},
}
