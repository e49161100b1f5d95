package claude

import "strings"

// RootOf is the root, and the candidate name in it, under which the
// candidate at dir/name is observed as scan and record observe it: a root
// of p holding it (a plugin version is named market/plugin/version under
// the cache), else a configuration root in dir when name is a
// configuration file's (settings.json, .mcp.json: reduced to what they
// configure, so `digest` prints the digest `record` binds). ok is false
// for anything else: a plain directory or file.
func (p Places) RootOf(dir, name string) (r Root, cand string, ok bool) {
	for _, r := range p.Roots() {
		rest := name
		switch {
		case dir == r.Path:
		case strings.HasPrefix(dir, r.Path+"/"):
			rest = dir[len(r.Path)+1:] + "/" + name
		default:
			continue
		}
		if n, nested, ok := r.Split(rest); ok && !nested && r.Holds([]byte(n)) {
			return r, n, true
		}
	}
	if _, known := configFiles[name]; known {
		return Root{Path: dir, Scope: Project, Kind: Config, Names: []string{name}, Home: p.Home, Project: p.Project}, name, true
	}
	return Root{}, "", false
}
