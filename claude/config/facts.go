package config

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// FactKind is one kind of security-relevant change of a configuration
// candidate. Dangerous facts are told first (Fact.Dangerous). Each group
// is in the order of the constants: hooks, helpers, env and MCP servers
// come before permissions, plugins and the rest.
type FactKind uint8

const (
	_                            FactKind = iota
	FactNewHook                           // Event, Matcher, Type, Command
	FactHookRemoved                       // Event, Matcher, Type, Command
	FactHelperSet                         // Name (statusLine, apiKeyHelper, …), Command
	FactHelperRemoved                     // Name
	FactEnvSet                            // Name; the value is never told (it may be a key)
	FactEnvRemoved                        // Name
	FactNewMCPServer                      // Name, Scope, Type ("command" or "url"), Command
	FactMCPServerChanged                  // Name, Scope, Type, Command
	FactMCPServerRemoved                  // Name, Scope
	FactEnableAllProjectMCP               // Value (JSON of the new value, or "" when unset)
	FactMcpjsonServerEnabled              // Name
	FactMcpjsonServerDisabled             // Name
	FactPermissionsDefaultMode            // Value ("" when unset)
	FactPermissionRuleAdded               // Name ("allow", "ask", "deny"), Value
	FactPermissionRuleRemoved             // Name, Value
	FactAdditionalDirectoryAdded          // Value
	FactPermissionsChanged                // Name (any other permissions key)
	FactPluginEnabled                     // Name
	FactPluginDisabled                    // Name
	FactMarketplaceAdded                  // Name, Value (its source)
	FactMarketplaceChanged                // Name, Value
	FactMarketplaceRemoved                // Name
	FactNameChanged                       // Value (frontmatter name)
	FactAllowedToolAdded                  // Name
	FactAllowedToolRemoved                // Name
	FactUnboundCommand                    // Event (hooks), Name (its Source), Command: a standing fact (Root.UnboundFacts)
	FactSettingSet                        // Name (a settingKeys key, or sandbox.KEY), Value (its JSON; "" when unset)
	FactFrontmatterMode                   // Value: an agent's permissionMode ("" when unset)
	FactToolAdded                         // Name: an agent's tools now include it
	FactToolRemoved                       // Name
	FactToolsUnrestricted                 // an agent's tools list was removed: it has every tool
	FactDisallowedToolAdded               // Name
	FactDisallowedToolRemoved             // Name
	FactPluginInstalled                   // Name, Value (version), Command (installPath): installed_plugins.json
	FactPluginInstallChanged              // Name, Value, Command
	FactPluginUninstalled                 // Name
	FactPluginOutsideCache                // Name, Command (installPath): a standing fact (Root.StandingFacts)
	FactFrontmatterUnreadable             // the frontmatter is not YAML even as the client rewrites it
	FactPluginSourceUnwatched             // Name (a local marketplace), Command (its installLocation): a standing fact (Root.StandingFacts)
	FactPluginRecordDiffers               // Name, Command (installPath), Type (a RecordCheck), Value (recorded), Event (found): pluginrecord.Facts
	FactNewLSPServer                      // Name, Type, Command: a plugin's marketplace entry (entryFacts)
	FactLSPServerChanged                  // Name, Type, Command
	FactLSPServerRemoved                  // Name
	FactHooksModule                       // Name (the hooks file), Command (JSON list of modules), Value (how many more): a standing fact (ModuleFacts)
	FactScheduledTaskNew                  // Name (its id), Command (prompt), Value (cron), Type ("once", "recurring")
	FactScheduledTaskChanged              // Name, Command, Value, Type
	FactScheduledTaskRemoved              // Name
)

// The checks of a plugin install against installed_plugins.json. Each is
// the Type of a FactPluginRecordDiffers.
const (
	RecordCopyHash          = "copyHash"           // its folder does not hash to its copyHash
	RecordCopyHashUnchecked = "copyHash unchecked" // Value: why it could not be computed (skillwire's words)
	RecordCopyHashType      = "copyHash type"      // a copyHash that is not a string: the client holds none
	RecordPathMissing       = "installPath missing"
	RecordPathUnrecorded    = "installPath unrecorded"
	RecordPathOther         = "installPath other" // the cache folder of another plugin
	RecordVersionFolder     = "version folder"    // Value recorded, Event the folder's name
	RecordVersionManifest   = "version manifest"  // Value recorded, Event plugin.json's version
	RecordGitCommitSha      = "gitCommitSha"      // Value: not a full commit id
)

// Fact is one security-relevant difference between two extracted forms.
// Every string field except Kind's vocabulary is attacker text.
type Fact struct {
	Kind    FactKind
	Event   string
	Matcher string
	Name    string
	Scope   string // MCP servers: "" for .mcp.json, frontmatter and the user's; "local" for projects[…] of ~/.claude.json
	Type    string
	Command string
	Value   string
	// Project is the project of ~/.claude.json an approval of .mcp.json
	// servers is for. It is "" for a settings file's own.
	Project string
	// Origin is where in a plugin's marketplace.json the fact was read
	// (OriginEntry, OriginMarketplace). It is "" for the candidate's own
	// files.
	Origin string
	// FromCommit and ToCommit: a reinstalled plugin's gitCommitSha before
	// and after, when its install record names both and they differ.
	FromCommit, ToCommit string
}

// Facts lists what changed between two Canonical forms of the same
// candidate, in FactKind order. The forms are a settings subset, an MCP
// extract or frontmatter. A nil or damaged old form is read as empty: all
// is new.
func Facts(old, new []byte) []Fact {
	o, n := decodeCanonical(old), decodeCanonical(new)
	var fs []Fact
	fs = append(fs, hookFacts(o["hooks"], n["hooks"])...)
	fs = append(fs, helperFacts(o, n)...)
	fs = append(fs, mapFacts(o["env"], n["env"], FactEnvSet, FactEnvSet, FactEnvRemoved, nil)...)
	for _, sc := range []struct{ key, scope string }{{"mcpServers", ""}, {"localMcpServers", "local"}} {
		for _, f := range mapFacts(mcpServers(o[sc.key]), mcpServers(n[sc.key]), FactNewMCPServer, FactMCPServerChanged, FactMCPServerRemoved, describeServer) {
			f.Scope = sc.scope
			fs = append(fs, f)
		}
	}
	if !cfgEqual(o["enableAllProjectMcpServers"], n["enableAllProjectMcpServers"]) {
		fs = append(fs, Fact{Kind: FactEnableAllProjectMCP, Value: cfgJSON(n["enableAllProjectMcpServers"])})
	}
	fs = append(fs, listFacts(o["enabledMcpjsonServers"], n["enabledMcpjsonServers"], FactMcpjsonServerEnabled, 0, "")...)
	fs = append(fs, listFacts(o["disabledMcpjsonServers"], n["disabledMcpjsonServers"], FactMcpjsonServerDisabled, 0, "")...)
	fs = append(fs, localMcpjsonFacts(o[LocalMcpjsonKey], n[LocalMcpjsonKey])...)
	fs = append(fs, permissionFacts(o["permissions"], n["permissions"])...)
	fs = append(fs, pluginFacts(o["enabledPlugins"], n["enabledPlugins"])...)
	for _, k := range append(marketplaceKeys, KnownMarketplacesKey) {
		fs = append(fs, mapFacts(o[k], n[k], FactMarketplaceAdded, FactMarketplaceChanged, FactMarketplaceRemoved, describeMarketplace)...)
	}
	if n[unreadableKey] == true { // told with every change: what its new bytes allow is unknown
		fs = append(fs, Fact{Kind: FactFrontmatterUnreadable})
	}
	if n[unreadableKey] != true && !cfgEqual(o["name"], n["name"]) {
		fs = append(fs, Fact{Kind: FactNameChanged, Value: cfgText(n["name"])})
	}
	fs = append(fs, listFacts(o["allowed-tools"], n["allowed-tools"], FactAllowedToolAdded, FactAllowedToolRemoved, "")...)
	if !cfgEqual(o["permissionMode"], n["permissionMode"]) {
		fs = append(fs, Fact{Kind: FactFrontmatterMode, Value: cfgText(n["permissionMode"])})
	}
	if o["tools"] != nil && n["tools"] == nil {
		fs = append(fs, Fact{Kind: FactToolsUnrestricted})
	} else if n["tools"] != nil {
		fs = append(fs, listFacts(o["tools"], n["tools"], FactToolAdded, FactToolRemoved, "")...)
	}
	fs = append(fs, listFacts(o["disallowedTools"], n["disallowedTools"], FactDisallowedToolAdded, FactDisallowedToolRemoved, "")...)
	for _, k := range settingKeys {
		if !cfgEqual(o[k], n[k]) {
			fs = append(fs, Fact{Kind: FactSettingSet, Name: k, Value: cfgJSON(n[k])})
		}
	}
	fs = append(fs, sandboxFacts(o["sandbox"], n["sandbox"])...)
	fs = append(fs, commitFacts(o["plugins"], mapFacts(o["plugins"], n["plugins"], FactPluginInstalled, FactPluginInstallChanged, FactPluginUninstalled, describeInstall), n["plugins"])...)
	fs = append(fs, entryFacts(o[EntryKey], n[EntryKey])...)
	fs = append(fs, taskFacts(o[TasksKey], n[TasksKey])...)
	fs = append(fs, otherFacts(o, n)...)
	// Dangerous facts first: decoys of a harmless kind never push one out
	// of what is told.
	slices.SortStableFunc(fs, func(a, b Fact) int { return cmp.Or(a.Rank()-b.Rank(), int(a.Kind)-int(b.Kind)) })
	return fs
}

// toldKeys are the top-level keys some fact above tells, or that say
// nothing of their own, like installed_plugins.json's "version". A change
// of any other key of a canonical form is told as a setting (otherFacts).
var toldKeys = slices.Concat(settingKeys, frontmatterKeys, pluginKeys, objectHelperKeys, helperKeys, marketplaceKeys, []string{unreadableKey,
	KnownMarketplacesKey, "disabledMcpjsonServers", "enableAllProjectMcpServers", "enabledMcpjsonServers",
	"enabledPlugins", "env", "localMcpServers", LocalMcpjsonKey, "permissions", "plugins", "sandbox", "version", EntryKey, ModulesKey, TasksKey,
})

// localMcpjsonFacts tells, project by project, the approvals of .mcp.json
// servers ~/.claude.json holds, as a settings file's are told.
func localMcpjsonFacts(old, new any) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	var fs []Fact
	for _, p := range slices.Compact(slices.Sorted(slices.Values(append(cfgKeys(om), cfgKeys(nm)...)))) {
		o, _ := om[p].(map[string]any)
		n, _ := nm[p].(map[string]any)
		var pf []Fact
		if !cfgEqual(o["enableAllProjectMcpServers"], n["enableAllProjectMcpServers"]) {
			pf = append(pf, Fact{Kind: FactEnableAllProjectMCP, Value: cfgJSON(n["enableAllProjectMcpServers"])})
		}
		pf = append(pf, listFacts(o["enabledMcpjsonServers"], n["enabledMcpjsonServers"], FactMcpjsonServerEnabled, 0, "")...)
		pf = append(pf, listFacts(o["disabledMcpjsonServers"], n["disabledMcpjsonServers"], FactMcpjsonServerDisabled, 0, "")...)
		for i := range pf {
			pf[i].Scope, pf[i].Project = "local", p
		}
		fs = append(fs, pf...)
	}
	return fs
}

// otherFacts tells each other key whose value changed. So a key skillwire
// has never heard of ("fooHelper") is a told change, never silence.
func otherFacts(o, n map[string]any) []Fact {
	var fs []Fact
	for _, k := range cfgKeys(n) {
		if !slices.Contains(toldKeys, k) && !cfgEqual(o[k], n[k]) {
			fs = append(fs, Fact{Kind: FactSettingSet, Name: k, Value: cfgJSON(n[k])})
		}
	}
	for _, k := range cfgKeys(o) {
		if _, ok := n[k]; !ok && !slices.Contains(toldKeys, k) {
			fs = append(fs, Fact{Kind: FactSettingSet, Name: k})
		}
	}
	return fs
}

// Dangerous reports whether the fact makes Claude Code run something new,
// reroute or inject into what it runs, or ask less. Such a fact is always
// told, never only counted.
func (f Fact) Dangerous() bool {
	switch f.Kind {
	case FactSettingSet:
		if f.Origin != "" {
			return entryFieldDangerous(f)
		}
		return dangerousSetting(f.Name, f.Value)
	case FactNewHook, FactHelperSet, FactUnboundCommand, FactPluginInstalled, FactPluginInstallChanged, FactPluginOutsideCache, FactPluginSourceUnwatched, FactPluginRecordDiffers, FactNewMCPServer, FactMCPServerChanged, FactMcpjsonServerEnabled,
		FactNewLSPServer, FactLSPServerChanged, FactHooksModule, FactScheduledTaskNew, FactScheduledTaskChanged,
		FactAdditionalDirectoryAdded, FactPluginEnabled, FactAllowedToolAdded:
		return true
	case FactEnvSet:
		return DangerousEnv(f.Name)
	case FactEnableAllProjectMCP:
		return f.Value != "" && f.Value != "false"
	case FactPermissionsDefaultMode, FactFrontmatterMode:
		return f.Value != "" && f.Value != "default" && f.Value != "plan" && f.Value != "dontAsk"
	case FactToolAdded, FactToolsUnrestricted, FactDisallowedToolRemoved, FactFrontmatterUnreadable:
		return true
	case FactPermissionRuleAdded:
		return f.Name != "ask" && f.Name != "deny"
	case FactPermissionRuleRemoved:
		return f.Name != "allow" // a removed ask or deny rule asks less
	}
	return false
}

// dangerousSetting: what turns hooks or the sandbox off, allows more, or
// loads another agent or memory. A managed "only" switch turned off is
// one too.
func dangerousSetting(name, value string) bool {
	switch name {
	case "disableAllHooks", "skipDangerousModePermissionPrompt", "sandbox.autoAllowBashIfSandboxed", "sandbox.allowUnsandboxedCommands":
		return value != "" && value != "false"
	case "allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly", "sandbox.enabled":
		return value != "true"
	case "outputStyle":
		return false
	}
	return true // the agent, allow-lists, deny-lists, memory directory, sandbox exclusions and network
}

// sandboxFacts compares the sandbox object key by key. Any other shape is
// one fact.
func sandboxFacts(old, new any) []Fact {
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if !(ok1 || old == nil) || !(ok2 || new == nil) {
		if cfgEqual(old, new) {
			return nil
		}
		return []Fact{{Kind: FactSettingSet, Name: "sandbox", Value: cfgJSON(new)}}
	}
	fs := fieldFacts(om, nm, nil)
	for i := range fs {
		fs[i].Name = "sandbox." + fs[i].Name
	}
	return fs
}

// sandboxKeys are Claude Code's own sandbox settings, told bare.
var sandboxKeys = []string{"sandbox.allowUnsandboxedCommands", "sandbox.autoAllowBashIfSandboxed", "sandbox.enabled",
	"sandbox.enableWeakerNestedSandbox", "sandbox.excludedCommands", "sandbox.filesystem", "sandbox.ignoreViolations", "sandbox.network"}

// DangerousEnv reports whether an env key reroutes Claude Code's traffic
// or injects code into what it runs. Such are model endpoints, proxies,
// loaders and search paths.
func DangerousEnv(name string) bool {
	u := strings.ToUpper(name)
	for _, p := range []string{"ANTHROPIC_", "CLAUDE_", "LD_", "DYLD_", "NODE_", "NPM_CONFIG_", "PYTHON", "GIT_", "AWS_", "OTEL_", "BUN_", "DENO_", "PERL5", "RUBY"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	for _, s := range []string{"_BASE_URL", "_PROXY", "_ENDPOINT", "_URL", "_HOST", "_OPTIONS"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return slices.Contains([]string{"PATH", "SHELL", "BASH_ENV", "ENV", "ZDOTDIR", "HOME", "TMPDIR", "EDITOR", "VISUAL", "PAGER", "SSL_CERT_FILE", "SSL_CERT_DIR", "PROMPT_COMMAND"}, u)
}

// hookFacts compares hooks as multisets of (event, matcher, type,
// command). A changed command is a new hook and a removed one.
func hookFacts(old, new any) []Fact {
	count := map[Command]int{}
	for _, c := range hookCommands(old) {
		count[c]++
	}
	var fs []Fact
	for _, c := range hookCommands(new) {
		if count[c] > 0 {
			count[c]--
			continue
		}
		fs = append(fs, Fact{Kind: FactNewHook, Event: c.Event, Matcher: c.Matcher, Type: c.Type, Command: c.Command})
	}
	for _, c := range hookCommands(old) {
		if count[c] > 0 {
			count[c]--
			fs = append(fs, Fact{Kind: FactHookRemoved, Event: c.Event, Matcher: c.Matcher, Type: c.Type, Command: c.Command})
		}
	}
	return fs
}

func helperFacts(o, n map[string]any) []Fact {
	type key struct{ source, marketplace string }
	helpers := func(doc map[string]any) map[key]string {
		m := map[key]string{}
		for _, c := range SettingsCommands(canonicalJSON(doc)) {
			if c.Source != "hooks" {
				m[key{c.Source, c.Matcher}] = c.Command
			}
		}
		return m
	}
	ho, hn := helpers(o), helpers(n)
	keys := slices.Collect(maps.Keys(hn))
	for k := range ho {
		if !cfgHas(hn, k) {
			keys = append(keys, k)
		}
	}
	order := helperNames()
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.source), slices.Index(order, b.source)), strings.Compare(a.marketplace, b.marketplace))
	})
	var fs []Fact
	for _, k := range keys {
		c, ok := hn[k]
		switch {
		case ok && (c != ho[k] || !cfgHas(ho, k)):
			fs = append(fs, Fact{Kind: FactHelperSet, Name: k.source, Matcher: k.marketplace, Command: c})
		case !ok:
			fs = append(fs, Fact{Kind: FactHelperRemoved, Name: k.source, Matcher: k.marketplace})
		}
	}
	return fs
}

// helperNames are the settings keys told as helper facts, in the order told.
func helperNames() []string {
	return slices.Concat(objectHelperKeys, helperKeys, []string{HeadersHelper})
}

func cfgHas[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// mapFacts compares two JSON objects member by member. describe, when
// set, fills the fact from the new value (Type, Command or Value).
func mapFacts(old, new any, added, changed, removed FactKind, describe func(any, *Fact)) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	var fs []Fact
	for _, k := range cfgKeys(nm) {
		ov, had := om[k]
		if had && cfgEqual(ov, nm[k]) {
			continue
		}
		f := Fact{Kind: added, Name: k}
		if had {
			f.Kind = changed
		}
		if describe != nil {
			describe(nm[k], &f)
		}
		fs = append(fs, f)
	}
	for _, k := range cfgKeys(om) {
		if !cfgHas(nm, k) {
			fs = append(fs, Fact{Kind: removed, Name: k})
		}
	}
	return fs
}

// listFacts compares two lists as sets of their entries' text. field names
// which Fact field holds the entry: "" for Name, "value" for Value.
func listFacts(old, new any, added, removed FactKind, field string) []Fact {
	os, ns := textSet(old), textSet(new)
	var fs []Fact
	emit := func(k FactKind, s string) {
		f := Fact{Kind: k, Name: s}
		if field == "value" {
			f.Name, f.Value = "", s
		}
		fs = append(fs, f)
	}
	for _, s := range ns {
		if !slices.Contains(os, s) {
			emit(added, s)
		}
	}
	if removed != 0 {
		for _, s := range os {
			if !slices.Contains(ns, s) {
				emit(removed, s)
			}
		}
	}
	return fs
}

func textSet(v any) []string {
	var out []string
	for _, e := range cfgList(v) {
		out = append(out, cfgText(e))
	}
	if s, ok := v.(string); ok {
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func permissionFacts(old, new any) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	var fs []Fact
	if !cfgEqual(om["defaultMode"], nm["defaultMode"]) {
		fs = append(fs, Fact{Kind: FactPermissionsDefaultMode, Value: cfgText(nm["defaultMode"])})
	}
	for _, list := range []string{"allow", "ask", "deny"} {
		for _, f := range listFacts(om[list], nm[list], FactPermissionRuleAdded, FactPermissionRuleRemoved, "value") {
			f.Name = list
			fs = append(fs, f)
		}
	}
	fs = append(fs, listFacts(om["additionalDirectories"], nm["additionalDirectories"], FactAdditionalDirectoryAdded, 0, "value")...)
	keys := cfgKeys(nm)
	for _, k := range cfgKeys(om) {
		if !cfgHas(nm, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch k {
		case "defaultMode", "allow", "ask", "deny", "additionalDirectories":
			continue
		}
		if !cfgEqual(om[k], nm[k]) {
			fs = append(fs, Fact{Kind: FactPermissionsChanged, Name: k})
		}
	}
	return fs
}

// pluginFacts reads enabledPlugins as name → enabled. A list of names, the
// older form, enables each.
func pluginFacts(old, new any) []Fact {
	enabled := func(v any) map[string]bool {
		m := map[string]bool{}
		if o, ok := v.(map[string]any); ok {
			for k, e := range o {
				m[k] = e != false && e != nil
			}
		}
		for _, s := range textSet(v) {
			if _, isMap := v.(map[string]any); !isMap {
				m[s] = true
			}
		}
		return m
	}
	om, nm := enabled(old), enabled(new)
	names := map[string]any{}
	for k := range om {
		names[k] = nil
	}
	for k := range nm {
		names[k] = nil
	}
	var fs []Fact
	for _, k := range cfgKeys(names) {
		switch {
		case nm[k] && !om[k]:
			fs = append(fs, Fact{Kind: FactPluginEnabled, Name: k})
		case om[k] && !nm[k]:
			fs = append(fs, Fact{Kind: FactPluginDisabled, Name: k})
		}
	}
	return fs
}

// mcpServers reads an mcpServers value: an object of name → config. In
// agent frontmatter it may be a list of server names and name → config
// objects.
func mcpServers(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	for _, e := range cfgList(v) {
		switch e := e.(type) {
		case map[string]any:
			for k, c := range e {
				m[k] = c
			}
		default:
			m[cfgText(e)] = nil
		}
	}
	return m
}

// describeServer tells what a server runs: its command line, or its URL.
func describeServer(v any, f *Fact) {
	c, _ := v.(map[string]any)
	if cmd, ok := c["command"].(string); ok {
		parts := []string{cmd}
		for _, a := range cfgList(c["args"]) {
			parts = append(parts, cfgText(a))
		}
		f.Type, f.Command = "command", strings.Join(parts, " ")
	} else if u, ok := c["url"].(string); ok {
		f.Type, f.Command = "url", u
	}
	// An http, sse or ws server's headersHelper is a command the client
	// runs for its headers. So say Claude Code 2.1.328's server schemas.
	if h, ok := c["headersHelper"]; ok {
		f.Value = cfgText(h)
	}
}

// installs reads one installed_plugins.json entry: a list of installs
// (version 2) or one install (version 1).
func installs(v any) []map[string]any {
	var out []map[string]any
	for _, e := range cfgList(v) {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// commitFacts adds to each reinstalled plugin the commits it moved between,
// from its install records' gitCommitSha.
func commitFacts(old any, fs []Fact, new any) []Fact {
	om, _ := old.(map[string]any)
	nm, _ := new.(map[string]any)
	for i := range fs {
		if fs[i].Kind != FactPluginInstallChanged {
			continue
		}
		from, to := commitsOf(om[fs[i].Name]), commitsOf(nm[fs[i].Name])
		if from != "" && to != "" && from != to {
			fs[i].FromCommit, fs[i].ToCommit = from, to
		}
	}
	return fs
}

// commitsOf is an install record's gitCommitSha values, joined by ", ".
func commitsOf(v any) string {
	var out []string
	for _, in := range installs(v) {
		if sha := cfgText(in["gitCommitSha"]); sha != "" {
			out = append(out, sha)
		}
	}
	return strings.Join(out, ", ")
}

// describeInstall tells a plugin's versions and install paths, joined by
// ", " when several.
func describeInstall(v any, f *Fact) {
	var vs, ps []string
	for _, in := range installs(v) {
		vs = append(vs, cfgText(in["version"]))
		ps = append(ps, cfgText(in["installPath"]))
	}
	f.Value, f.Command = strings.Join(vs, ", "), strings.Join(ps, ", ")
}

func describeMarketplace(v any, f *Fact) {
	src, _ := v.(map[string]any)
	s, _ := src["source"].(map[string]any)
	for _, k := range []string{"repo", "url", "path", "package"} {
		if t, ok := s[k].(string); ok {
			f.Value = t
			return
		}
	}
	f.Value = cfgJSON(src["source"])
}

func cfgEqual(a, b any) bool {
	return (a == nil) == (b == nil) && string(canonicalJSON(a)) == string(canonicalJSON(b))
}

// cfgJSON is a value's canonical JSON, "" when absent.
func cfgJSON(v any) string {
	if v == nil {
		return ""
	}
	return string(canonicalJSON(v))
}

// cfgText is a string as itself and any other value as its JSON.
func cfgText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return cfgJSON(v)
}

// RecordFact is the fact that the install of plugin at path fails check,
// a Record… word. recorded is the value the record holds. found is the
// one on disk, nil when none. Each is told as itself when a string, else
// as its JSON.
func RecordFact(plugin, path, check string, recorded, found any) Fact {
	return Fact{Kind: FactPluginRecordDiffers, Name: plugin, Command: path, Type: check, Value: cfgText(recorded), Event: cfgText(found)}
}
