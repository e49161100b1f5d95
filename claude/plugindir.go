package claude

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/config"
	"github.com/skillwire/skillwire/pathname"
	"github.com/skillwire/skillwire/walker"
)

// A folder given with --plugin-dir (or CLAUDE_CODE_PLUGIN_DIRS) is loaded
// by Claude Code 2.1.328 for the session only, in place, as the plugin
// "name@inline": name is its .claude-plugin/plugin.json "name", else the
// folder's own name (pinned by e2e/plugindir_test.go). The client reads a
// folder as one plugin or as a folder of plugins (its loader's b8n): a
// folder is one plugin when an entry at its top marks it (.claude-plugin,
// SKILL.md, a non-empty .mcp.json, .lsp.json), or when one of commands,
// skills, agents, hooks, themes, output-styles, monitors, workflows there
// holds no .claude-plugin/plugin.json; else each child folder (or link to
// one) not starting with "." that holds .claude-plugin/plugin.json is a
// plugin. A .claude-plugin holding only marketplace.json marks nothing.

// InlineMarket is the marketplace word Claude Code names a plugin loaded
// with --plugin-dir by.
const InlineMarket = "inline"

// pluginMarkers are the entries that mark a folder as one plugin;
// componentDirs those of them that may instead be a plugin of a folder of
// plugins.
var (
	pluginMarkers = []string{".claude-plugin", "commands", "skills", "agents", "hooks", "themes", "output-styles",
		"monitors", "workflows", "SKILL.md", ".mcp.json", ".lsp.json"}
	componentDirs = []string{"commands", "skills", "agents", "hooks", "themes", "output-styles", "monitors", "workflows"}
)

// Inline is what the folders given with --plugin-dir hold.
type Inline struct {
	Plugins []PluginSource
	// Empty counts the folders that are not there, or hold no plugin the
	// client loads, or cannot be watched ("/").
	Empty int
}

// InlinePlugins are the plugins Claude Code loads from the folders dirs
// (absolute, as the client reads them), each named for its plugin, read
// through the walker. A folder that cannot be listed or is not a folder
// is watched as one plugin, so that its observation tells what is wrong.
func InlinePlugins(dirs []string) Inline {
	var in Inline
	for _, d := range dirs {
		if d == "/" {
			in.Empty++ // no parent to watch it in
			continue
		}
		children, ok, missing := collection(d)
		switch {
		case missing:
			in.Empty++
		case !ok:
			in.Plugins = append(in.Plugins, inlineSource(parent(d), base(d)))
		case len(children) == 0:
			in.Empty++
		}
		for _, c := range children {
			in.Plugins = append(in.Plugins, inlineSource(d, c))
		}
	}
	return in
}

// Told is the line a session is told of the folders given with
// --plugin-dir that hold no plugin, from fixed words only; "" when none.
func (in Inline) Told() string {
	if in.Empty == 0 {
		return ""
	}
	return fmt.Sprintf("skillwire: %d folder(s) given with --plugin-dir are not there or hold no plugin that Claude Code loads: nothing of them is watched.", in.Empty)
}

// base is the last component of plain path p.
func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// collection reports whether the client reads folder d as a folder of
// plugins, and lists the ones it loads; ok is false when d is one plugin,
// or cannot be listed (then the client, too, reads it as one); missing:
// there is nothing at d.
func collection(d string) (children []string, ok, missing bool) {
	w := walker.Discover([]walker.RootSpec{{Path: d, Files: true}}, walker.DefaultConfig())[0]
	if w.Missing || len(w.Anomalies) > 0 {
		return nil, false, w.Missing
	}
	kinds := map[string]walker.Kind{}
	for _, c := range w.Candidates {
		kinds[string(c.Name)] = c.Kind
	}
	if _, ok := kinds[".claude-plugin"]; ok && marketplaceOnly(d) {
		delete(kinds, ".claude-plugin")
	}
	for _, m := range pluginMarkers {
		k, there := kinds[m]
		switch {
		case !there:
		case m == ".mcp.json" && k == walker.KindFile && emptyFile(d, m):
			// an empty .mcp.json marks nothing
		case !slices.Contains(componentDirs, m):
			return nil, false, false
		case manifestState(d+"/"+m) == manifestAbsent:
			return nil, false, false
		}
	}
	for _, c := range w.Candidates {
		n := string(c.Name)
		if c.Kind != walker.KindDir || n[0] == '.' || manifestState(d+"/"+n) == manifestAbsent {
			continue // the client lists folders and links to them; a link to a file has no manifest
		}
		children = append(children, n)
	}
	slices.Sort(children)
	return children, true, false
}

type manifest uint8

const (
	manifestThere manifest = iota
	manifestAbsent
	manifestUnsure // there, but not readable as a plain file: the client may read it
)

// manifestState is whether folder d holds .claude-plugin/plugin.json.
func manifestState(d string) manifest {
	reads, err := walker.ReadFiles(d, ".claude-plugin", []string{"plugin.json"}, config.MaxJSON)
	switch {
	case err != nil:
		return manifestUnsure
	case reads == nil || reads[0].Missing:
		return manifestAbsent
	case reads[0].Reason != 0:
		return manifestUnsure
	}
	return manifestThere
}

// marketplaceOnly: d's .claude-plugin holds marketplace.json and no
// plugin.json, which marks a marketplace's folder, not a plugin.
func marketplaceOnly(d string) bool {
	reads, err := walker.ReadFiles(d, ".claude-plugin", []string{"plugin.json", "marketplace.json"}, config.MaxJSON)
	return err == nil && reads != nil && reads[0].Missing && !reads[1].Missing
}

// emptyFile: the file name of folder d is a regular file of no bytes
// (read with a limit of 0, a longer one is oversize).
func emptyFile(d, name string) bool {
	reads, err := walker.ReadFiles(parent(d), base(d), []string{name}, 0)
	return err == nil && reads != nil && reads[0].Reason == 0 && !reads[0].Missing && len(reads[0].Data) == 0
}

// inlineSource is the plugin of folder name of dir: named by its
// plugin.json "name", else by the folder, as the client names it; a
// plugin.json that cannot be read, or gives no string name, names no
// plugin (the gate then judges a name it could serve as never observed).
func inlineSource(dir, name string) PluginSource {
	plugin := name
	reads, err := walker.ReadFiles(pathname.Join(dir, name), ".claude-plugin", []string{"plugin.json"}, config.MaxJSON)
	switch {
	case err != nil:
	case reads == nil || reads[0].Missing:
	case reads[0].Reason != 0:
		plugin = ""
	default:
		plugin = ""
		if n, ok := ManifestName(reads[0].Data); ok {
			plugin = n
		}
	}
	key := ""
	if plugin != "" {
		key = plugin + "@" + InlineMarket
	}
	return PluginSource{Plugin: key, Dir: dir, Name: name}
}

// ManifestName is the name the client gives the plugin whose plugin.json
// is data: its "name", when data is a JSON object with a non-empty string
// name. ok is false for any other file (not JSON, no name, a name that is
// no string or is empty), which the client refuses as a manifest: the
// plugin's name is then unknown, never its folder's.
func ManifestName(data []byte) (name string, ok bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return "", false
	}
	raw, has := doc["name"]
	if !has || json.Unmarshal(raw, &name) != nil || name == "" {
		return "", false
	}
	return name, true
}
