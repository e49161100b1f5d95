package e2e

// The coverage oracle's noise (oracle.go): places under the world the
// client reads that are no load place. Each entry says why. matchNoise
// matches them; a pattern's anchors are World.anchors.
var readNoise = []noiseEntry{
	{"{root}/debug-*.log", "the suite's --debug-file: the client writes it"},
	{"{config}/.claude.json.lock", "the lock of the client's state file; .claude.json itself is watched (MCP)"},
	{"{config}/.claude.json.tmp.*", "the client's half-written state file, renamed onto .claude.json"},
	{"{config}/.claude.json.backup*", "the client's copies of its state file; it loads none of them"},
	{"{home}/.claude.json.lock", "the lock of the client's state file"},
	{"{home}/.claude.json.tmp.*", "the client's half-written state file"},
	{"{config}/backups", "the client's backups of its state file; it restores them only when asked"},
	{"{config}/backups/**", "the client's backups of its state file"},
	{"{config}/sessions", "the live sessions' registry: pid, session id and working folder"},
	{"{config}/sessions/**", "the live sessions' registry"},
	{"{config}/session-env", "the environment a session's hooks exported, kept per session id"},
	{"{config}/session-env/**", "the environment a session's hooks exported (CLAUDE_ENV_FILE)"},
	{"{config}/projects", "transcripts, one folder per project"},
	{"{config}/projects/**", "a project's transcripts, sidechains, tool results and workflow journals, written by the client; its memory folder's MEMORY.md is a load place (loadPlacesInNoise)"},
	{"{config}/shell-snapshots/**", "the client's snapshot of the person's shell functions and aliases"},
	{"{config}/shell-snapshots", "the client's snapshots of the shell"},
	{"{config}/todos/**", "the todo lists the model kept"},
	{"{config}/statsig/**", "feature-flag cache"},
	{"{config}/plugins/store", "plugins' stored state, data their watched code reads"},
	{"{config}/plugins/store/**", "plugins' stored state and its locks"},
	{"{config}/plugins/*.lock", "the lock of a plugin registry; the registries themselves are watched"},
	{"{config}/plugins/*.json.lock", "the lock of a plugin registry"},
	{"{config}/plugins/marketplaces", "the folder of marketplace copies; their marketplace.json is bound into the plugins it lists"},
	{"{config}/history.jsonl", "the person's prompt history, for the up arrow and search; sent only when picked"},
	{"{config}/history.jsonl.lock", "the lock of the prompt history"},
	{"**/*.tmp.*.*", "a file the client writes whole and renames onto its name (settings.json, scheduled_tasks.json)"},
	{"{project}/.claude/scheduled_tasks.lock", "the lock of the scheduled tasks; the tasks file is watched"},
	{"stat:{config}/scheduled_tasks.json", "the client stats it and never reads <config>'s tasks (TestAMissedScheduledTaskIsSentAtTheStartOfAnInteractiveSession)"},
	{"{root}/trace-*.txt", "the oracle's own trace"},
	{"{root}/*debug*.log", "a test's --debug-file"},
	{"{root}/latest", "the client's link to the newest debug log, beside --debug-file"},
	{"{root}/marketplace-ca.pem", "the test's CA for its marketplace server (NODE_EXTRA_CA_CERTS)"},
	{"{config}/plugins/marketplaces/*", "a marketplace's copy, and the scratch file of a fetch; its marketplace.json is bound into the plugins it lists"},
	{"{root}/market", "the local marketplace folder `claude plugin marketplace add` is given, listed to find its catalogue; its plugins are watched where they load (plugin sources)"},
	{"{root}/cc", "the local marketplace folder of the market cases (e2e/market_test.go), listed as {root}/market is: its plugins are watched where they load"},
	{"**/.claude-plugin/marketplace.json", "a marketplace's catalogue: read when added or updated, it loads nothing itself; each installed plugin binds its entry (claude.Root.Markets)"},
	{"{config}/plugins/data/*", "a plugin's data folder (CLAUDE_PLUGIN_DATA): what its watched code writes"},
	{"dir:{config}/plugins/cache/**", "the cache's folders, listed for the client's sweep of .orphaned_at stamps (rg --files --glob .orphaned_at), stat'ed and opened O_PATH: a listing or a handle loads nothing; a file read there is still held to the watch (TestADirectoryMarketplacesPluginIsCountedOnceWhereTheClientLoadsIt: a copy of a plugin loaded in place is listed, none of its files read)"},
	{"{config}/plugins/.last_inuse_sweep", "the client's stamp of its last sweep of the plugin cache"},
	{"{config}/mcp-needs-auth-cache.json", "the client's cache of the MCP servers that wait for a login; the servers are watched where configured"},
	{"{root}/extra/.claude/settings.json", "an added folder's settings: the client reads them and applies none (TestAnAddedFoldersSettingsAndMCPAreIgnoredByTheClient)"},
	{"{root}/extra/.claude/settings.local.json", "an added folder's local settings: read, none applied (TestAnAddedFoldersSettingsAndMCPAreIgnoredByTheClient)"},
	{"{config}/.gcp_auth_refresh-*", "the client's lock and holder files while it refreshes cloud credentials"},
	{"{config}/.aws_auth_refresh-*", "the client's lock and holder files while it refreshes cloud credentials"},
	{"dir:{config}/state", "the client's own state folder, stat'ed and opened O_PATH before it writes there: no file's bytes read"},
	{"{config}/state/mcp-discover-verdicts.json", "the client's cache of each MCP server's protocol version (observedAt, modernProtocolVersion; 2.1.332): it starts no server; the servers are watched where configured"},
	{"stat:**/.claude/loop.md", "a stat alone: the client stats loop.md above its start and sends it not (TestABareLoopSendsTheProjectsLoopMDElseTheUsers)"},
	{"**/settings.json.lock", "the lock the client takes while it writes a settings file (2.1.332); the settings file is watched"},
	{"**/settings.local.json.lock", "the lock the client takes while it writes a local settings file; the file is watched"},
	{"{home}/.cache/claude-cli-nodejs/**", "the client's own logs of the MCP servers it ran; the servers are watched where configured"},
	{"{root}/marker", "the mods cases' marker: the mod's code, in the client's process, writes it (e2e/mods_test.go)"},
	{"{config}/.last-cleanup", "the client's stamp of its last cleanup of old transcripts"},
	{"{project}/.claude/routines", "listed, nothing in it read: the client checks it for its sandbox's protected paths (claude/loop.go; a file read in it still fails)"},
	{"stat:{project}/.claude/routines", "the client only checks it is there, for its sandbox's protected paths (claude/loop.go)"},
	{"stat:{project}/.claude/launch.json", "the client only checks it is there, for its sandbox's protected paths (claude/loop.go)"},
	{"{state}", "skillwire's own store"},
	{"{state}/**", "skillwire's own store"},
	{"{config}/*.skillwire-backup*", "skillwire's copy of a settings file it changed; the client loads no such name"},
	{"{tmp}/**", "TMPDIR: the client's scratch files"},
	{"**/.git/**", "git internals: the client reads the branch and status for its prompt"},
	{"**/.git", "git internals"},
	{"**/node_modules/**", "a package folder: the client reads it only as a tool's input"},
}

// loadPlacesInNoise are load places within readNoise's patterns. The
// noise never covers them: the oracle holds them to skillwire's watch.
var loadPlacesInNoise = []noiseEntry{
	{"{config}/projects/*/memory/MEMORY.md", "the default memory folder's index, sent at the session start (TestMemoryMDIsSentAtSessionStartFromTheFolderOfTheRepositorysTop)"},
}

// hookOnly are load places only a skillwire hook hears of, during its
// session: the oracle, after the session, cannot see what the hook kept.
// With the hooks uninstalled (a control) nobody hears of them.
var hookOnly = []noiseEntry{
	{"{root}/typed-added/**", "the folder a typed /add-dir adds (only that case's: every other added folder is judged): the DirectoryAdded hook tells skillwire, which keeps it for the session (TestAFolderAddedWithSlashAddDirIsJudgedLaterInTheSession)"},
}

// knownGaps are load places skillwire does not watch yet. Each names its
// issue. The oracle tells them in the test log and does not fail on them.
var knownGaps = []noiseEntry{}
