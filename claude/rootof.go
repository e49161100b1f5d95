package claude

import "strings"

// RootOf is the root, and the candidate name in it, under which scan and
// record observe the candidate at dir/name. It is a root of p holding it;
// a plugin version is named market/plugin/version under the cache. Else it
// is a configuration root in dir when name is a configuration file's, such
// as settings.json or .mcp.json. Those are reduced to what they configure,
// so `digest` prints the digest `record` binds. ok is false for anything
// else: a plain directory or file.
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
