package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/walker"
)

// A folder given with --plugin-dir (or CLAUDE_CODE_PLUGIN_DIRS) is loaded
// for the session only, in place. Claude Code names its plugin
// "name@inline", after its plugin.json "name" or else the folder. The
// client reads such a folder as one plugin or as a folder of plugins.
// TestAPluginFolderIsOnePluginOrAFolderOfPluginsAsTheClientReadsIt holds
// the rule.

// InlineMarket is the marketplace word of a plugin loaded with
// --plugin-dir.
const InlineMarket = "inline"

// pluginMarkers are the entries that mark a folder as one plugin.
// componentDirs are those of them that may instead be a plugin of a
// folder of plugins.
var (
	pluginMarkers = []string{".claude-plugin", "commands", "skills", "agents", "hooks", "themes", "output-styles",
		"monitors", "workflows", "SKILL.md", ".mcp.json", ".lsp.json"}
	componentDirs = []string{"commands", "skills", "agents", "hooks", "themes", "output-styles", "monitors", "workflows"}
)

// Inline is what the folders given with --plugin-dir hold.
type Inline struct {
	Plugins []PluginSource
	// Empty counts the folders that are not there, hold no plugin the
	// client loads, or cannot be watched ("/").
	Empty int
	// Problem, in fixed words, is why a folder could not be listed. Then
	// whether it is one plugin or a folder of plugins is not known, nor
	// which. "" when every folder was listed.
	Problem string
	// Unnamed: a plugin of them may bear a name skillwire cannot read.
	// Examples: an unreadable plugin.json, a folder given through a link.
	Unnamed bool
	// Refused are the plugin folders whose plugin.json the client refuses
	// (sessionManifest). It loads nothing of them, so they are no Plugins.
	Refused []Refused
}

// Refused is a plugin folder the client refuses to load. Dir is its path
// as the client reads it; Why is the reason in fixed words.
type Refused struct{ Dir, Why string }

// Unknown reports whether the folders' plugins cannot all be named as the
// client names them. Then any plugin:name may be one of them, and an
// inline plugin overrides an installed one of its name. A refused folder
// counts: the client read it once, at its start. A plugin.json made
// refused mid-session would otherwise hide the inline twin loaded then.
// An installed plugin's verdict would stand in for it.
func (in Inline) Unknown() bool { return in.Problem != "" || in.Unnamed || len(in.Refused) > 0 }

// InlinePlugins are the plugins Claude Code loads from the folders dirs,
// read through the walker. dirs are absolute, as the client reads them.
// Each plugin is named for its plugin.json. The plugins of noMCP (and of
// a folder of plugins there) are loaded without their MCP servers. A
// folder that cannot be listed is the Problem, never guessed as one
// plugin. One that is not a folder (a link to one, a file) is watched as
// one plugin and is Unnamed. Its observation then tells what is wrong.
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
			in.add(parent(d), base(d), skipMCP)
		}
		for _, c := range children {
			in.add(d, c, skipMCP)
		}
	}
	return in
}

// problemUnlisted is Inline.Problem for a folder that could not be listed.
const problemUnlisted = "a folder given with --plugin-dir could not be listed (fanout, unstable or unreadable)"

// add adds the plugin of folder name of dir, or its refusal.
func (in *Inline) add(dir, name string, noMCP bool) {
	s, why := inlineSource(dir, name)
	if why != "" {
		in.Refused = append(in.Refused, Refused{Dir: pathname.Join(dir, name), Why: why})
		return
	}
	s.NoMCP = noMCP
	if s.Plugin == "" {
		in.Unnamed = true
	}
	in.Plugins = append(in.Plugins, s)
}

// maxRefusedTold bounds the refused plugin folders Told names one by one.
const maxRefusedTold = 3

// Told is what a session is told of the folders given with --plugin-dir.
// It names those that hold no plugin, hold a refused one, or cannot be
// listed. It is built from fixed words and the folders' quoted paths
// (anomaly.QuoteBytes) only; "" when none.
func (in Inline) Told() string {
	var lines []string
	for i, r := range in.Refused {
		if i == maxRefusedTold {
			lines = append(lines, fmt.Sprintf("skillwire: %d more plugin folder(s) given with --plugin-dir are refused by the client, and not watched.", len(in.Refused)-i))
			break
		}
		lines = append(lines, "skillwire: "+anomaly.QuoteBytes([]byte(r.Dir))+", given with --plugin-dir, is a plugin folder the client refuses to load ("+r.Why+
			"): Claude Code loads nothing of it and runs none of its hooks, and skillwire does not watch it.")
	}
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

// collection reads folder d as the client does. It is one plugin, or a
// folder of plugins whose loaded children it lists.
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
// plugin.json. That marks a marketplace's folder, not a plugin.
func marketplaceOnly(d string) bool {
	reads, err := walker.ReadFiles(d, ".claude-plugin", []string{"plugin.json", "marketplace.json"}, config.MaxJSON)
	return err == nil && reads != nil && reads[0].Missing && !reads[1].Missing
}

// emptyFile: the file name of folder d is a regular file of no bytes.
// It is read with a limit of 0, so a longer one is oversize.
func emptyFile(d, name string) bool {
	reads, err := walker.ReadFiles(parent(d), base(d), []string{name}, 0)
	return err == nil && reads != nil && reads[0].Reason == 0 && !reads[0].Missing && len(reads[0].Data) == 0
}

// inlineSource is the plugin of folder name of dir. The client names it by
// its plugin.json "name", else by the folder. A plugin.json that cannot be
// read as a JSON object names no plugin. Inline.Unnamed then makes the
// gate hold every plugin's name. why, in fixed words, is why the client
// refuses to load it (sessionManifest); "" when it may load it.
func inlineSource(dir, name string) (s PluginSource, why string) {
	plugin, why := clientName(pathname.Join(dir, name), name)
	key := ""
	if plugin != "" && why == "" {
		key = plugin + "@" + InlineMarket
	}
	return PluginSource{Plugin: key, Dir: dir, Name: name}, why
}

// clientName is the name the client gives the plugin of folder dir: its
// plugin.json "name", else folder, the name it has without one. It is ""
// when the name cannot be read as the client reads it: .claude-plugin not
// reached (a link: the client may read a name there), plugin.json
// unreadable or no JSON object. why, in fixed words, is why the client
// refuses to load the plugin (sessionManifest); "" when it may load it.
func clientName(dir, folder string) (name, why string) {
	reads, err := walker.ReadFiles(dir, ".claude-plugin", []string{"plugin.json"}, config.MaxJSON)
	switch {
	case err != nil, reads != nil && !reads[0].Missing && reads[0].Reason != 0:
		return "", ""
	case reads == nil || reads[0].Missing:
		return folder, ""
	}
	m, ok := sessionManifest(reads[0].Data)
	if !ok {
		return "", m.refused
	}
	return m.name, m.refused
}

// ManifestName is the name the client gives the plugin whose plugin.json
// is data. That is its "name", when data is a JSON object with a non-empty
// string name. ok is false for any other file, which the client refuses as
// a manifest. The plugin's name is then unknown, never its folder's. A
// name refused for its characters (sessionManifest) is still returned. The
// gate reads it of a cached version only to add matches, never to remove
// one.
func ManifestName(data []byte) (name string, ok bool) {
	m, ok := sessionManifest(data)
	return m.name, ok && m.name != ""
}

// pluginManifest is a plugin.json read as the client's loader reads it.
type pluginManifest struct {
	name    string // its "name", when a non-empty string
	refused string // why the client refuses to load the plugin, in fixed words; "" when it may load it
}

// Why the client refuses a plugin's manifest, in fixed words.
const (
	refusedNoName      = "its plugin.json has no name"
	refusedNameType    = "its plugin.json's name is not a string"
	refusedNameEmpty   = "its plugin.json's name is empty"
	refusedNameSpace   = "its plugin.json's name holds a space"
	refusedNameControl = "its plugin.json's name holds a control or bidirectional-formatting character"
	refusedNameRune    = "its plugin.json's name holds an @, a colon, whitespace, a path separator or an invisible character"
	refusedVersionType = "its plugin.json's version is not a string"
)

// sessionManifest reads plugin.json data as the client's loader reads a
// --plugin-dir plugin's manifest. It runs only the checks that make the
// loader refuse the plugin. A refused plugin is never loaded, and its
// hooks never run. TestAPluginManifestIsRefusedAsTheClientRefusesIt holds
// the checks. The schema refuses more, such as a malformed hooks entry. A
// plugin.json failing only those is read as loaded, so it is told and
// watched, never silent. ok is false when data is not a JSON object:
// nothing is then known of it.
func sessionManifest(data []byte) (m pluginManifest, ok bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil || doc == nil {
		return m, false
	}
	raw, has := doc["name"]
	switch name, isString := jsonString(raw); {
	case !has:
		m.refused = refusedNoName
	case !isString:
		m.refused = refusedNameType
	case name == "":
		m.refused = refusedNameEmpty
	default:
		m.name = name
		switch {
		case strings.Contains(name, " "):
			m.refused = refusedNameSpace
		case strings.ContainsFunc(name, controlOrBidi):
			m.refused = refusedNameControl
		}
	}
	if v, has := doc["version"]; has && m.refused == "" {
		if _, isString := jsonString(v); !isString {
			m.refused = refusedVersionType
		}
	}
	if m.refused == "" && strings.ContainsFunc(m.name, notInPluginName) {
		m.refused = refusedNameRune
	}
	return m, true
}

// jsonString is the string the JSON value raw holds. isString is false
// for any other value, null among them.
func jsonString(raw json.RawMessage) (s string, isString bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// controlOrBidi are the runes the manifest schema refuses in a plugin's
// name besides the space. Its pattern:
// /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u.
func controlOrBidi(r rune) bool {
	return unicode.IsControl(r) || r == '\u200e' || r == '\u200f' ||
		'\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069'
}

// notInPluginName are the runes the client's loader refuses in the name a
// plugin.json gives. Its pattern is /[@:\s/\\${ob}]/u, where ob is
// \p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\u2028\u2029, invisibleRanges and U+2800.
// \p{Cn} is left out: whether a rune is unassigned depends on each side's
// Unicode version. A rune the client takes must never be told as refused.
// A surrogate never reaches a Go string (json decodes one to U+FFFD).
func notInPluginName(r rune) bool {
	switch r {
	case '@', ':', '/', '\\', '\t', '\n', '\v', '\f', '\r', '\u2028', '\u2029', '\ufeff', '\u2800':
		return true
	}
	if unicode.In(r, unicode.Zs, unicode.Cc, unicode.Cf, unicode.Co) {
		return true
	}
	for _, g := range invisibleRanges {
		if g[0] <= r && r <= g[1] {
			return true
		}
	}
	return false
}

// invisibleRanges are the client's own list of invisible runes (its jgs),
// as it gives them.
var invisibleRanges = [][2]rune{{173, 173}, {847, 847}, {1564, 1564}, {4447, 4448}, {6068, 6069}, {6155, 6159},
	{8203, 8207}, {8234, 8238}, {8288, 8303}, {12644, 12644}, {65024, 65039}, {65279, 65279}, {65440, 65440},
	{65520, 65531}, {69759, 69759}, {78896, 78911}, {94180, 94180}, {113824, 113827}, {119155, 119162}, {917504, 921599}}
