package mainagent

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
	"golang.org/x/text/unicode/norm"
)

// maxAgentRead bounds one plugin agent file read for its name. A larger
// one's name is unread.
const maxAgentRead = 1 << 20

// maxAgentReads bounds the plugin agent files one session start reads.
// Past it, names are unread: ambiguous, and told.
const maxAgentReads = 512

// frontName reads the frontmatter name of the plugin's agent file e, in
// the plugin folder dir. The walk saw the file. Its bytes are read again,
// never through a link at the file or its folder, and must hash as the
// walk saw them: else the name is unread (ok false). "" is no name: the
// client then takes the file's stem, as when it cannot read the
// frontmatter either.
func frontName(dir string, e snapshot.Entry) (name string, ok bool) {
	p := string(e.Path)
	i := strings.LastIndexByte(p, '/')
	j := strings.LastIndexByte(p[:max(i, 0)], '/')
	if i < 0 || e.Kind != snapshot.File {
		return "", false
	}
	parent := dir
	if j >= 0 {
		parent += "/" + p[:j]
	}
	reads, err := walker.ReadFiles(parent, p[j+1:i], []string{p[i+1:]}, maxAgentRead)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 || snapshot.Hash(blake3.Sum256(reads[0].Data)) != e.Hash {
		return "", false
	}
	return nameOf(config.Frontmatter(reads[0].Data).Canonical)
}

// pluginJSON is what a plugin's .claude-plugin/plugin.json says of its
// agents: its "name", and whether it lists its agents ("agents"), as does
// its marketplace entry. Claude Code 2.1.332 then loads those files, named
// plugin:name, and not agents/ (e2e
// TestAPluginsListedAgentsAreUnreadMainAgents). ok is false when the file
// could not be read again as the walk saw it. A plugin without one is ok.
func pluginJSON(ag *baseline.Standing, reads *int) (name string, lists, ok bool) {
	var form, mkt, entry map[string]json.RawMessage
	if json.Unmarshal(ag.Observed.Canonical, &form) == nil && json.Unmarshal(form[config.EntryKey], &mkt) == nil &&
		json.Unmarshal(mkt["entry"], &entry) == nil && entry["agents"] != nil {
		lists = true
	}
	i := slices.IndexFunc(ag.Observed.Manifest.Entries, func(e snapshot.Entry) bool { return string(e.Path) == ".claude-plugin/plugin.json" })
	if i < 0 {
		return "", lists, true
	}
	if *reads == 0 {
		return "", lists, false
	}
	*reads--
	e := ag.Observed.Manifest.Entries[i]
	rs, err := walker.ReadFiles(ag.Root.Path+"/"+string(ag.Name), ".claude-plugin", []string{"plugin.json"}, maxAgentRead)
	if err != nil || len(rs) != 1 || rs[0].Missing || rs[0].Reason != 0 || snapshot.Hash(blake3.Sum256(rs[0].Data)) != e.Hash {
		return "", lists, false
	}
	var doc struct {
		Name   any             `json:"name"`
		Agents json.RawMessage `json:"agents"`
	}
	if json.Unmarshal(rs[0].Data, &doc) != nil {
		return "", lists, false
	}
	name, _ = doc.Name.(string)
	return name, lists || doc.Agents != nil, true
}

// ownLoads reports whether the client loads the own agent ag, as far as
// its description tells: Claude Code 2.1.332 refuses an agent without a
// description ("Missing required \"description\" field"), and an exact
// name that did not load hides nothing. Its file is read again as
// frontName reads one; read is false when it could not be, or its bytes
// are not the walk's.
func ownLoads(ag *baseline.Standing) (loads, read bool) {
	es := ag.Observed.Manifest.Entries
	i := strings.LastIndexByte(ag.Root.Path, '/')
	if len(es) != 1 || len(es[0].Path) != 0 || es[0].Kind != snapshot.File || i < 0 {
		return false, false
	}
	reads, err := walker.ReadFiles(ag.Root.Path[:i], ag.Root.Path[i+1:], []string{string(ag.Name)}, maxAgentRead)
	if err != nil || len(reads) != 1 || reads[0].Missing || reads[0].Reason != 0 || snapshot.Hash(blake3.Sum256(reads[0].Data)) != es[0].Hash {
		return false, false
	}
	var fm map[string]any
	canon := config.FrontmatterFields(reads[0].Data).Canonical
	if canon == nil || json.Unmarshal(canon, &fm) != nil {
		return false, false
	}
	// The client also refuses an agent for hooks it cannot load, or hook
	// matchers outside "hooks": skillwire does not judge those, so an
	// agent with any is unread.
	for _, k := range []string{"hooks", "PreToolUse", "PermissionRequest"} {
		if _, ok := fm[k]; ok {
			return false, false
		}
	}
	d, ok := fm["description"].(string)
	return ok && d != "", true
}

// ownNameValid reports whether the client accepts name for an agent of
// its own (2.1.332): not starting with "-", at most 256 UTF-16 units, and
// no ":" even after NFKC (reserved for plugins).
func ownNameValid(name string) bool {
	return name != "" && !strings.HasPrefix(name, "-") && len(utf16.Encode([]rune(name))) <= maxFrontName && !strings.Contains(norm.NFKC.String(name), ":")
}

// nameOf is the frontmatter name in an agent's canonical form. A form
// the client cannot read either names nothing. A name that is no string
// is unread: the client would spell it as JavaScript does.
func nameOf(canon []byte) (string, bool) {
	var fm map[string]json.RawMessage
	if canon == nil || json.Unmarshal(canon, &fm) != nil {
		return "", false
	}
	if string(fm["unreadable"]) == "true" {
		return "", true
	}
	raw, ok := fm["name"]
	if !ok || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
