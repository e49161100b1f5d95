package claude

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
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
	// Problem, in fixed words, is why a folder's plugins cannot be known:
	// it could not be listed, so whether it is one plugin or a folder of
	// plugins, and which, is not known. "" when every folder was listed.
	Problem string
	// Unnamed: a plugin of them may bear a name skillwire cannot read (a
	// plugin.json it could not read, a folder given through a link).
	Unnamed bool
}

// Unknown reports whether the plugins of the folders cannot all be named
// as the client names them: then any plugin:name may be one of them, and
// an inline plugin overrides an installed one of its name.
func (in Inline) Unknown() bool { return in.Problem != "" || in.Unnamed }

// InlinePlugins are the plugins Claude Code loads from the folders dirs
// (absolute, as the client reads them), each named for its plugin, read
// through the walker; those of noMCP (and of a folder of plugins there)
// are loaded without their MCP servers. A folder that cannot be listed is
// the Problem, never guessed as one plugin; one that is not a folder (or
// a link to one) is watched as one plugin, so that its observation tells
// what is wrong, and is Unnamed.
func InlinePlugins(dirs, noMCP []string) Inline {
	var in Inline
	for _, d := range dirs {
		if d == "/" {
			in.Empty++ // no parent to watch it in
			continue
		}
		skipMCP := slices.Contains(noMCP, d)
		children, kind := collection(d)
		switch kind {
		case folderMissing, folderEmpty:
			in.Empty++
		case folderUnlisted:
			if in.Problem == "" {
				in.Problem = problemUnlisted
			}
		case folderOdd:
			in.Unnamed = true
			fallthrough
		case folderPlugin:
			in.add(inlineSource(parent(d), base(d)), skipMCP)
		}
		for _, c := range children {
			in.add(inlineSource(d, c), skipMCP)
		}
	}
	return in
}

// problemUnlisted is Inline.Problem for a folder that could not be listed.
const problemUnlisted = "a folder given with --plugin-dir could not be listed (fanout, unstable or unreadable)"

func (in *Inline) add(s PluginSource, noMCP bool) {
	s.NoMCP = noMCP
	if s.Plugin == "" {
		in.Unnamed = true
	}
	in.Plugins = append(in.Plugins, s)
}

// Told is what a session is told of the folders given with --plugin-dir
// that hold no plugin or cannot be listed, from fixed words only; "" when
// none.
func (in Inline) Told() string {
	var lines []string
	if in.Empty > 0 {
		lines = append(lines, fmt.Sprintf("skillwire: %d folder(s) given with --plugin-dir are not there or hold no plugin that Claude Code loads: nothing of them is watched.", in.Empty))
	}
	if in.Problem != "" {
		lines = append(lines, "skillwire cannot list the folder of plugins ("+in.Problem+
			"): the plugins Claude Code loads from it are not watched, and the gate asks for every plugin's skill, agent and command, an installed plugin's included, since a plugin of that folder overrides an installed one of its name.")
	}
	return strings.Join(lines, "\n")
}

// base is the last component of plain path p.
func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// How collection reads a folder given with --plugin-dir.
type folderKind uint8

const (
	folderPlugin   folderKind = iota // one plugin
	folderPlugins                    // a folder of plugins: its children
	folderEmpty                      // a folder of plugins holding none
	folderMissing                    // nothing there
	folderUnlisted                   // a folder that could not be listed (fanout, unstable, unreadable)
	folderOdd                        // not a folder: a link to one, a file
)

// collection reads folder d as the client does: one plugin, or a folder of
// plugins whose loaded children it lists.
func collection(d string) ([]string, folderKind) {
	w := walker.Discover([]walker.RootSpec{{Path: d, Files: true}}, walker.DefaultConfig())[0]
	switch {
	case w.Missing:
		return nil, folderMissing
	case slices.ContainsFunc(w.Anomalies, func(r anomaly.Reason) bool { return r != anomaly.Root }):
		return nil, folderUnlisted
	case len(w.Anomalies) > 0:
		return nil, folderOdd
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
			return nil, folderPlugin
		case manifestState(d+"/"+m) == manifestAbsent:
			return nil, folderPlugin
		}
	}
	var children []string
	for _, c := range w.Candidates {
		n := string(c.Name)
		if c.Kind != walker.KindDir || n[0] == '.' || manifestState(d+"/"+n) == manifestAbsent {
			continue // the client lists folders and links to them; a link to a file has no manifest
		}
		children = append(children, n)
	}
	if len(children) == 0 {
		return nil, folderEmpty
	}
	slices.Sort(children)
	return children, folderPlugins
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
// plugin (Inline.Unnamed: the gate then holds every plugin's name).
func inlineSource(dir, name string) PluginSource {
	plugin := name
	reads, err := walker.ReadFiles(pathname.Join(dir, name), ".claude-plugin", []string{"plugin.json"}, config.MaxJSON)
	switch {
	case err != nil:
		plugin = "" // .claude-plugin not reached (a link): the client may read a name there
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
