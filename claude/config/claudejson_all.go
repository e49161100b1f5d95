package config

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/claude/config/jsonread"
)

// McpjsonKeys are a project's approvals of its .mcp.json servers, in
// ~/.claude.json's projects[p] as in a settings file.
var McpjsonKeys = []string{"disabledMcpjsonServers", "enableAllProjectMcpServers", "enabledMcpjsonServers"}

// LocalMcpjsonKey holds, in the ~/.claude.json form, each project's
// McpjsonKeys: {project: {key: value}}.
const LocalMcpjsonKey = "localMcpjson"

// ClaudeJSONServers extracts from ~/.claude.json the user's `mcpServers`
// and every project's `projects[p].mcpServers`. The latter are kept as
// `localMcpServers`, named "server@project". The form is one whatever
// project a session starts in. A form of one project's servers would
// change with the project, and the daemon watches many. A server added to
// any project is told with the project it is for. Each project's
// approvals of .mcp.json servers (McpjsonKeys) are kept as `localMcpjson`
// by project. Claude Code 2.1.328 moves them into the project's
// settings.local.json at start and acts on them. So a change there is
// told before the client moves it. Every other key of a project, such as
// its history or its trust dialog, is noise.
func ClaudeJSONServers(data []byte, size int64) Extract {
	if size > MaxClaudeJSON || int64(len(data)) > MaxClaudeJSON {
		return Extract{Anomalies: []Anomaly{AnomalyOversize}}
	}
	s := jsonread.NewScanner(trimBOM(data))
	kept := map[string]any{}
	var projects map[string]any           // project -> its mcpServers value
	var mcpjson map[string]map[string]any // project -> its McpjsonKeys
	err := s.Top(func(k string) error {
		switch k {
		case "mcpServers":
			return s.Keep(kept, "mcpServers", 1)
		case "projects":
			// Only the last `projects` counts. A repeated project or key
			// replaces the earlier one.
			projects, mcpjson = map[string]any{}, map[string]map[string]any{}
			return s.Object(func(p string) error {
				delete(projects, p)
				delete(mcpjson, p)
				if !s.AtObject() {
					return s.Skip()
				}
				return s.Object(func(pk string) error {
					if slices.Contains(McpjsonKeys, pk) {
						if mcpjson[p] == nil {
							mcpjson[p] = map[string]any{}
						}
						return s.Keep(mcpjson[p], pk, 3)
					}
					if pk != "mcpServers" {
						return s.Skip()
					}
					// Most projects have none: `{}` needs no decoder.
					if s.EmptyObject() {
						projects[p] = map[string]any{}
						return nil
					}
					return s.Keep(projects, p, 3)
				})
			})
		}
		return s.Skip()
	})
	if err != nil {
		return extracted(nil, false, err)
	}
	local := map[string]any{}
	for p, v := range projects {
		m, ok := v.(map[string]any)
		if !ok {
			local[string(canonicalJSON([]any{nil, p}))] = v
			continue
		}
		for name, cfg := range m {
			local[localServerKey(name, p)] = cfg
		}
	}
	if len(local) > 0 {
		kept["localMcpServers"] = local
	}
	if len(mcpjson) > 0 {
		kept[LocalMcpjsonKey] = mcpjson
	}
	return extracted(kept, s.Dup, nil)
}

// localServerKey names server name of project p in localMcpServers. The
// key is "name@p", split at the first @, while that is unambiguous. A name
// holding an @ or starting with [ is the JSON array ["name","p"] instead.
// Else `s@q` of /p and `s` of q@/p would both be "s@q@/p". No "name@p"
// starts with [.
func localServerKey(name, p string) string {
	if strings.ContainsRune(name, '@') || strings.HasPrefix(name, "[") {
		return string(canonicalJSON([]any{name, p}))
	}
	return name + "@" + p
}

// LocalServer reads a key of localMcpServers back into the server's name
// and its project, as localServerKey wrote it. whole: the key is [null,
// project], whose value is that project's whole mcpServers, not an
// object. ok is false for a key localServerKey never writes.
func LocalServer(key string) (name, project string, whole, ok bool) {
	if !strings.HasPrefix(key, "[") {
		name, project, ok = strings.Cut(key, "@")
		return name, project, false, ok
	}
	var pair []*string
	if json.Unmarshal([]byte(key), &pair) != nil || len(pair) != 2 || pair[1] == nil {
		return "", "", false, false
	}
	if pair[0] == nil {
		return "", *pair[1], true, true
	}
	return *pair[0], *pair[1], false, true
}
