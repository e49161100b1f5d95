package config

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
)

// The wording of facts. The engine (facts.go) finds what changed; this
// file says it. Attacker text is always quoted and escaped (factQuote).
// The words around it are fixed.

// String is the fact as one factual line. A fact read from a plugin's
// marketplace.json says so first: "marketplace entry: new SessionStart hook runs …".
func (f Fact) String() string {
	if f.Origin == OriginEntry || f.Origin == OriginMarketplace {
		if f.Kind == FactSettingSet {
			return f.Origin + ": " + sayEntryField(f)
		}
		o := f
		o.Origin = ""
		return f.Origin + ": " + o.String()
	}
	switch f.Kind {
	case FactNewHook, FactHookRemoved:
		return sayHook(f)
	case FactHelperSet, FactHelperRemoved:
		return sayHelper(f)
	case FactEnvSet, FactEnvRemoved:
		return sayEnv(f)
	case FactNewMCPServer, FactMCPServerChanged, FactMCPServerRemoved:
		return sayMCPServer(f)
	case FactNewLSPServer, FactLSPServerChanged, FactLSPServerRemoved:
		return sayLSPServer(f)
	case FactEnableAllProjectMCP, FactMcpjsonServerEnabled, FactMcpjsonServerDisabled:
		return sayMcpjson(f)
	case FactPermissionsDefaultMode, FactPermissionRuleAdded, FactPermissionRuleRemoved,
		FactAdditionalDirectoryAdded, FactPermissionsChanged:
		return sayPermission(f)
	case FactPluginEnabled, FactPluginDisabled, FactPluginInstalled, FactPluginInstallChanged,
		FactPluginUninstalled, FactPluginOutsideCache, FactPluginRecordDiffers:
		return sayPlugin(f)
	case FactMarketplaceAdded, FactMarketplaceChanged, FactMarketplaceRemoved, FactPluginSourceUnwatched:
		return sayMarketplace(f)
	case FactNameChanged, FactAllowedToolAdded, FactAllowedToolRemoved, FactFrontmatterUnreadable,
		FactFrontmatterMode, FactToolAdded, FactToolRemoved, FactToolsUnrestricted,
		FactDisallowedToolAdded, FactDisallowedToolRemoved:
		return sayFrontmatter(f)
	case FactSettingSet:
		return saySetting(f)
	case FactUnboundCommand:
		return sayUnbound(f)
	case FactHooksModule:
		return sayModule(f)
	case FactScheduledTaskNew, FactScheduledTaskChanged, FactScheduledTaskRemoved:
		return sayTask(f)
	}
	return fmt.Sprintf("fact(%d)", f.Kind)
}

// sayHook tells a hook added or removed, by what it runs or posts to.
func sayHook(f Fact) string {
	s := "new " + factWord(hookEvents, f.Event) + " hook"
	if f.Kind == FactHookRemoved {
		s = "removed " + factWord(hookEvents, f.Event) + " hook"
	}
	if f.Matcher != "" {
		s += " for " + factQuote(f.Matcher)
	}
	switch f.Type {
	case "", "command":
		return s + " runs " + factQuote(f.Command)
	case "http":
		return s + " posts to " + factQuote(f.Command)
	}
	return s + " of type " + factQuote(f.Type) + ": " + factQuote(f.Command)
}

func sayHelper(f Fact) string {
	if f.Kind == FactHelperRemoved {
		return helperWho(f) + " is no longer set"
	}
	return helperWho(f) + " now runs " + factQuote(f.Command)
}

// sayEnv never tells the value: it may be a key.
func sayEnv(f Fact) string {
	if f.Kind == FactEnvRemoved {
		return "env no longer sets " + factQuote(f.Name)
	}
	return "env now sets " + factQuote(f.Name)
}

func sayMCPServer(f Fact) string {
	switch f.Kind {
	case FactMCPServerRemoved:
		return factScope(f.Scope) + "MCP server " + factServer(f) + " removed"
	case FactMCPServerChanged:
		return sayServes(factScope(f.Scope)+"MCP server "+factServer(f)+" changed:", f)
	}
	return sayServes("new "+factScope(f.Scope)+"MCP server "+factServer(f), f)
}

// sayServes ends a server's fact with what it runs or connects to, then
// its headersHelper.
func sayServes(s string, f Fact) string {
	helper := ""
	if f.Value != "" {
		helper = "; its headersHelper runs " + factQuote(f.Value)
	}
	switch f.Type {
	case "command":
		return s + " runs " + factQuote(f.Command) + helper
	case "url":
		return s + " connects to " + factQuote(f.Command) + helper
	}
	return s + " (no command or URL)" + helper
}

func sayLSPServer(f Fact) string {
	s := "new LSP server " + factQuote(f.Name)
	switch f.Kind {
	case FactLSPServerRemoved:
		return "LSP server " + factQuote(f.Name) + " removed"
	case FactLSPServerChanged:
		s = "LSP server " + factQuote(f.Name) + " changed:"
	}
	switch f.Type {
	case "command":
		return s + " runs " + factQuote(f.Command)
	case "url":
		return s + " connects to " + factQuote(f.Command)
	}
	return s + " (no command)"
}

// sayTask tells a scheduled task by the prompt it sends and when.
func sayTask(f Fact) string {
	switch f.Kind {
	case FactScheduledTaskRemoved:
		return "scheduled task " + factQuote(f.Name) + " removed"
	case FactScheduledTaskChanged:
		return "scheduled task " + factQuote(f.Name) + " now sends the prompt " + factQuote(f.Command) + " at cron " + factQuote(f.Value) + ", " + f.Type
	}
	return "new scheduled task " + factQuote(f.Name) + " sends the prompt " + factQuote(f.Command) + " at cron " + factQuote(f.Value) + ", " + f.Type
}

// sayMcpjson tells a project's approval of its .mcp.json servers.
func sayMcpjson(f Fact) string {
	switch f.Kind {
	case FactMcpjsonServerEnabled:
		return "enabledMcpjsonServers" + factProject(f) + " now includes " + factQuote(f.Name)
	case FactMcpjsonServerDisabled:
		return "disabledMcpjsonServers" + factProject(f) + " now includes " + factQuote(f.Name)
	}
	return "enableAllProjectMcpServers" + factProject(f) + " is " + factSetting(f.Value, []string{"true", "false"})
}

func sayPermission(f Fact) string {
	rules := []string{"allow", "ask", "deny"}
	switch f.Kind {
	case FactPermissionsDefaultMode:
		return "permissions.defaultMode is " + factSetting(f.Value, permissionModes)
	case FactPermissionRuleAdded:
		return "permissions." + factWord(rules, f.Name) + " now includes " + factQuote(f.Value)
	case FactPermissionRuleRemoved:
		return "permissions." + factWord(rules, f.Name) + " no longer includes " + factQuote(f.Value)
	case FactAdditionalDirectoryAdded:
		return "permissions.additionalDirectories now includes " + factQuote(f.Value)
	}
	return "permissions key " + factQuote(f.Name) + " changed"
}

func sayPlugin(f Fact) string {
	plugin := "plugin " + factQuote(f.Name)
	switch f.Kind {
	case FactPluginEnabled:
		return plugin + " is now enabled"
	case FactPluginDisabled:
		return plugin + " is no longer enabled"
	case FactPluginInstalled:
		return plugin + " is now installed: version " + factQuote(f.Value) + " at " + factQuote(f.Command)
	case FactPluginInstallChanged:
		s := plugin + " is now version " + factQuote(f.Value) + " at " + factQuote(f.Command)
		if f.FromCommit != "" {
			s += ", from commit " + factQuote(f.FromCommit) + " to commit " + factQuote(f.ToCommit)
		}
		return s
	case FactPluginUninstalled:
		return plugin + " is no longer installed"
	case FactPluginOutsideCache:
		return plugin + " is installed from outside the plugin cache: " + factQuote(f.Command)
	}
	return plugin + " at " + factQuote(f.Command) + ": " + sayRecord(f)
}

func sayMarketplace(f Fact) string {
	switch f.Kind {
	case FactMarketplaceAdded:
		return "new marketplace " + factQuote(f.Name) + " from " + factQuote(f.Value)
	case FactMarketplaceChanged:
		return "marketplace " + factQuote(f.Name) + " is now from " + factQuote(f.Value)
	case FactMarketplaceRemoved:
		return "marketplace " + factQuote(f.Name) + " removed"
	}
	return "marketplace " + factQuote(f.Name) + " loads its plugins in place from a folder skillwire cannot open as written, not watched: " + factQuote(f.Command)
}

func sayFrontmatter(f Fact) string {
	switch f.Kind {
	case FactNameChanged:
		return "frontmatter name is now " + factQuote(f.Value)
	case FactAllowedToolAdded:
		return "allowed-tools now includes " + factQuote(f.Name)
	case FactAllowedToolRemoved:
		return "allowed-tools no longer includes " + factQuote(f.Name)
	case FactFrontmatterUnreadable:
		return "frontmatter not readable: its tools and hooks are unknown"
	case FactFrontmatterMode:
		return "frontmatter permissionMode is " + factSetting(f.Value, permissionModes)
	case FactToolAdded:
		return "frontmatter tools now include " + factQuote(f.Name)
	case FactToolRemoved:
		return "frontmatter tools no longer include " + factQuote(f.Name)
	case FactToolsUnrestricted:
		return "frontmatter tools is no longer set: every tool is available"
	case FactDisallowedToolAdded:
		return "frontmatter disallowedTools now include " + factQuote(f.Name)
	}
	return "frontmatter disallowedTools no longer include " + factQuote(f.Name)
}

// saySetting tells a settings key by its new value. A key skillwire does
// not know is told as "setting KEY", quoted.
func saySetting(f Fact) string {
	name := factWord(slices.Concat(settingKeys, sandboxKeys, []string{"sandbox"}), f.Name)
	if !slices.Contains(settingKeys, f.Name) && !strings.HasPrefix(f.Name, "sandbox") {
		name = "setting " + name
	}
	switch f.Value {
	case "":
		return name + " is no longer set"
	case "true", "false":
		s := name + " is now " + f.Value
		if f.Name == "disableAllHooks" && f.Value == "true" {
			s += " (every hook is off, skillwire's own too)"
		}
		return s
	}
	return name + " is now " + factQuote(cfgDisplay(f.Value))
}

func sayUnbound(f Fact) string {
	who := factWord(helperNames(), f.Name)
	if f.Name == "hooks" {
		who = factWord(hookEvents, f.Event) + " hook"
	}
	return who + " runs a command skillwire cannot bind to a file: " + factQuote(f.Command)
}

// sayRecord says how an install differs from installed_plugins.json.
func sayRecord(f Fact) string {
	switch f.Type {
	case RecordCopyHash:
		return "its files differ from what Claude Code installed (copyHash)"
	case RecordCopyHashUnchecked:
		return "its copyHash could not be checked: " + factQuote(f.Value)
	case RecordCopyHashType:
		return "its copyHash is not a string, so Claude Code holds none: " + factQuote(f.Value)
	case RecordPathMissing:
		return "its installPath does not exist"
	case RecordPathUnrecorded:
		return "no installPath is recorded: " + factQuote(f.Value)
	case RecordPathOther:
		return "its installPath is the cache folder of another plugin"
	case RecordVersionFolder:
		return "version " + factQuote(f.Value) + " is recorded for a folder named " + factQuote(f.Event)
	case RecordVersionManifest:
		return "version " + factQuote(f.Value) + " is recorded where its plugin.json says " + factQuote(f.Event)
	case RecordGitCommitSha:
		return "its gitCommitSha is not a full commit id: " + factQuote(f.Value)
	}
	return "its install record is not understood: " + factQuote(f.Type)
}

// sayEntryField tells a field of a plugin's marketplace.json, a
// FactSettingSet of an origin: "field \"source\" is now \"./plug\"". A
// noise key's field says what the client's schema says of its value. The
// word "schema" is never used: in the client's debug log, hook output
// saying it reads as the client's own trouble.
func sayEntryField(f Fact) string {
	field, whole, stub := "field "+factQuote(f.Name), "entry", "the entry is stubbed: its hooks do not run"
	if f.Origin == OriginMarketplace {
		whole, stub = "marketplace", "the marketplace does not load: the entry's hooks do not run"
	}
	now := field + " is now " + factQuote(cfgDisplay(f.Value))
	if f.Value == "" {
		now = field + " is null or not set"
	}
	switch f.Type {
	case schemaPasses:
		return field + " now holds a value the client accepts (noise, not shown): unless another field fails, the " + whole + " is applied and its hooks run"
	case schemaRefused:
		return now + ", which the client refuses: " + stub
	case schemaUnproven:
		return now + ", which skillwire cannot prove the client accepts"
	}
	if f.Value == "" {
		return "field " + factQuote(f.Name) + " is no longer set"
	}
	return "field " + factQuote(f.Name) + " is now " + factQuote(cfgDisplay(f.Value))
}

// hookEvents and permissionModes are Claude Code's own words, told bare.
// Any other event or mode name is attacker text, told quoted.
var (
	hookEvents = []string{"ConfigChange", "InstructionsLoaded", "Notification", "PermissionRequest",
		"PostCompact", "PostToolUse", "PostToolUseFailure", "PreCompact", "PreToolUse", "SessionEnd",
		"SessionStart", "Setup", "Stop", "SubagentStart", "SubagentStop", "TaskCompleted",
		"TeammateIdle", "UserPromptExpansion", "UserPromptSubmit", "WorktreeCreate", "WorktreeRemove"}
	permissionModes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"}
)

// factWord tells s bare when it is one of words, else quoted.
func factWord(words []string, s string) string {
	if slices.Contains(words, s) {
		return s
	}
	return factQuote(s)
}

// helperWho names the helper of a fact: its key, or a marketplace's headersHelper.
func helperWho(f Fact) string {
	if f.Name == HeadersHelper {
		return "marketplace " + factQuote(f.Matcher) + " headersHelper"
	}
	return factWord(helperNames(), f.Name)
}

// factProject names the project of ~/.claude.json a fact is for.
func factProject(f Fact) string {
	if f.Project == "" {
		return ""
	}
	return " of project " + factQuote(f.Project) + " in .claude.json"
}

// factServer names a server. A local one is named by a JSON array
// (localServerKey): the server and its project, each quoted.
func factServer(f Fact) string {
	var pair []*string
	if f.Scope == "local" && strings.HasPrefix(f.Name, "[") && json.Unmarshal([]byte(f.Name), &pair) == nil && len(pair) == 2 && pair[1] != nil {
		if pair[0] == nil {
			return "entry of project " + factQuote(*pair[1]) + ", not an object,"
		}
		return factQuote(*pair[0]) + " of project " + factQuote(*pair[1])
	}
	return factQuote(f.Name)
}

func factScope(scope string) string {
	if scope == "local" {
		return "local "
	}
	return ""
}

// factSetting tells a new value: "now X" for a known word, else quoted.
// An unset value is "no longer set".
func factSetting(v string, words []string) string {
	if v == "" {
		return "no longer set"
	}
	return "now " + factWord(words, v)
}

// cfgDisplay is a JSON value for a fact: a string as itself, any other as its JSON.
func cfgDisplay(j string) string {
	var s string
	if json.Unmarshal([]byte(j), &s) == nil {
		return s
	}
	return j
}

// maxFactText bounds one quoted attacker string, in characters of its escaped form.
const maxFactText = 160

// factQuote quotes attacker text for a one-line fact (anomaly.Quote). It
// is fenced so it cannot close its quotes, and cut keeping head and tail.
func factQuote(s string) string { return anomaly.Quote(s, maxFactText) }

// factNouns name each kind in counts ("+2 hooks"). The words are fixed.
var factNouns = map[FactKind]string{
	FactNewHook: "hooks", FactHookRemoved: "removed hooks", FactHelperSet: "helpers", FactHelperRemoved: "removed helpers",
	FactEnvSet: "env", FactEnvRemoved: "removed env", FactNewMCPServer: "MCP servers", FactMCPServerChanged: "changed MCP servers",
	FactMCPServerRemoved: "removed MCP servers", FactEnableAllProjectMCP: "enableAllProjectMcpServers",
	FactMcpjsonServerEnabled: "enabled .mcp.json servers", FactMcpjsonServerDisabled: "disabled .mcp.json servers",
	FactPermissionsDefaultMode: "permission modes", FactPermissionRuleAdded: "permission rules", FactPermissionRuleRemoved: "removed permission rules",
	FactAdditionalDirectoryAdded: "additional directories", FactPermissionsChanged: "permissions keys",
	FactPluginEnabled: "enabled plugins", FactPluginDisabled: "disabled plugins", FactMarketplaceAdded: "marketplaces",
	FactMarketplaceChanged: "changed marketplaces", FactMarketplaceRemoved: "removed marketplaces", FactNameChanged: "names",
	FactAllowedToolAdded: "allowed tools", FactAllowedToolRemoved: "removed allowed tools",
	FactUnboundCommand: "commands skillwire cannot bind to a file", FactSettingSet: "settings",
	FactFrontmatterMode: "permission modes", FactToolAdded: "tools", FactToolRemoved: "removed tools",
	FactToolsUnrestricted: "unrestricted tools", FactDisallowedToolAdded: "disallowed tools", FactDisallowedToolRemoved: "no longer disallowed tools",
	FactPluginInstalled: "installed plugins", FactPluginInstallChanged: "reinstalled plugins", FactPluginUninstalled: "uninstalled plugins",
	FactPluginOutsideCache: "plugins installed outside the cache", FactFrontmatterUnreadable: "unreadable frontmatters",
	FactPluginSourceUnwatched: "marketplace folders not watched", FactPluginRecordDiffers: "plugins that differ from their install record",
	FactNewLSPServer: "LSP servers", FactLSPServerChanged: "changed LSP servers", FactLSPServerRemoved: "removed LSP servers",
	FactHooksModule:      "hooks files listing modules",
	FactScheduledTaskNew: "scheduled tasks", FactScheduledTaskChanged: "changed scheduled tasks", FactScheduledTaskRemoved: "removed scheduled tasks",
}

func modsFirst(k FactKind) int {
	if k == FactHooksModule {
		return 0
	}
	return 1
}

// CountFacts counts fs per kind, hooks modules first, then in FactKind
// order: "+2 hooks, +1 env".
func CountFacts(fs []Fact) string {
	n := map[FactKind]int{}
	var kinds []FactKind
	for _, f := range fs {
		if n[f.Kind] == 0 {
			kinds = append(kinds, f.Kind)
		}
		n[f.Kind]++
	}
	slices.SortFunc(kinds, func(a, b FactKind) int {
		return cmp.Or(modsFirst(a)-modsFirst(b), int(a)-int(b))
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		noun, ok := factNouns[k]
		if !ok {
			noun = fmt.Sprintf("fact(%d)", k)
		}
		parts[i] = fmt.Sprintf("+%d %s", n[k], noun)
	}
	return strings.Join(parts, ", ")
}
