// Package resolve is how Claude Code resolves a name among the installed
// candidates. The name is the Skill or Agent tool's, or a typed /name. It
// answers which skills, commands and agents a name reaches, by folder and
// by frontmatter name. It answers which of them outrank the others. It
// reads no file; the gate feeds it the names it read.
package resolve

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/walker"
)

// Kind is what a candidate is to Claude Code.
type Kind uint8

const (
	Skill Kind = iota + 1
	Command
	Agent
	// Workflow is a workflow script. It is named by its meta.name (package
	// workflow), never by its file.
	Workflow
)

func (k Kind) String() string {
	switch k {
	case Skill:
		return "skill"
	case Command:
		return "command"
	case Agent:
		return "agent"
	case Workflow:
		return "workflow"
	}
	return "candidate"
}

// Scope is where a candidate is installed.
type Scope uint8

const (
	Managed Scope = iota + 1 // enterprise, from managed settings
	User
	Project
	Plugin
	// Added: a folder the session added (--add-dir). Its rank against
	// the others is not known, so it neither shadows nor is shadowed.
	Added
)

func (s Scope) String() string {
	switch s {
	case Managed:
		return "managed"
	case User:
		return "user"
	case Project:
		return "project"
	case Plugin:
		return "plugin"
	case Added:
		return "added"
	}
	return "unknown"
}

// Candidate is one installed skill, command or agent as the store knows it.
type Candidate struct {
	ID    string
	Kind  Kind
	Scope Scope
	// Folder is the skill's folder, or the command's or agent's file name
	// without ".md". For a plugin cache version it is
	// <marketplace>/<plugin>/<version>.
	Folder []byte
	// Name is the frontmatter name, nil when there is none.
	Name []byte
	// Plugin is the name of the plugin that provides the candidate. It is
	// nil for one installed on its own. A plugin's candidates answer only
	// to "plugin:name".
	Plugin []byte
	// Source is set for the folder a local marketplace's plugin loads
	// from. It is the gated display name (plugin@marketplace), or "-" when
	// that fails the gate.
	Source string
	// Via says how a use reaches a candidate through another's reference:
	// `agent "courier" (sw…) preloads it (skills:)`. It is built from
	// Gated names and ids only.
	Via string
}

// KindOfTool is the kind of candidate a PreToolUse tool names. It is false
// for a tool that names no candidate.
func KindOfTool(tool string) (Kind, bool) {
	switch tool {
	case hookio.ToolSkill:
		return Skill, true
	case hookio.ToolAgent, hookio.ToolTask:
		return Agent, true
	case hookio.ToolWorkflow:
		return Workflow, true
	}
	return 0, false
}

// Spelled is the name the client looks a use of kind up by. A skill's
// name is trimmed and one leading "/" dropped (claude.SkillName). An
// agent's is kept, and compared by claude.AgentKey when resolved.
func Spelled(kind Kind, name string) string {
	if kind == Agent || kind == Workflow { // a workflow's, exactly as sent
		return name
	}
	return claude.SkillName(name)
}

// Resolve is every candidate that Claude Code may load for name used as
// kind. The Skill tool and a typed /name reach skills and commands alike.
// The Agent tool reaches agents. name is as the client looks it up
// (Spelled). Skill and command names are compared as raw bytes. Agent
// names are compared by claude.AgentKey, as the client compares them.
// A name that fails the display gate still matches: Claude Code loads it
// under that name. Built-in agents have no candidate. They resolve to
// nothing unless a custom agent takes the same name.
//
// Precedence is as Claude Code documents it (see TestResolve). Skills rank
// managed, user, project, plugin; a skill outranks a command. Agents rank
// managed, project, user, plugin. Where the documents leave the winner
// open, every possible winner is returned for the caller to judge. The
// worst answer wins. So a candidate is dropped only when a match outranks it in scope and kind
// at once. Claude Code may name a candidate by folder or by frontmatter
// name. The winners of both readings are returned.
func Resolve(kind Kind, name string, cands []Candidate) []Candidate {
	var out []Candidate
	for _, i := range Index(kind, name, cands) {
		out = append(out, cands[i])
	}
	return out
}

// Index is Resolve by index into cands, in cands' order.
func Index(kind Kind, name string, cands []Candidate) []int {
	plugin, local, namespaced := strings.Cut(name, ":")
	if !namespaced {
		plugin, local = "", name
	}
	if local == "" {
		return nil // no file or folder is named by nothing
	}
	keep := make([]bool, len(cands))
	for _, byName := range []bool{false, true} {
		var match []int
		for i, c := range cands {
			if Reaches(kind, c.Kind) && bytes.Equal(c.Plugin, []byte(plugin)) &&
				namespaced == (len(c.Plugin) > 0) && c.AnswersTo(kind, local, byName) {
				match = append(match, i)
			}
		}
		for _, i := range match {
			if !outranked(kind, cands, i, match, byName) {
				keep[i] = true
			}
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// Reaches reports whether a use of kind can load a candidate of kind of.
func Reaches(kind, of Kind) bool {
	if kind == Agent || kind == Workflow {
		return of == kind
	}
	return (kind == Skill || kind == Command) && (of == Skill || of == Command)
}

// AnswersTo reports whether c is named local. With byName false Claude
// Code names candidates by folder. With byName true it names them by
// frontmatter name, falling back to the folder. A skill or command
// matches byte for byte. An agent matches by claude.AgentKey, since the
// client folds case, dashes and spaces.
func (c Candidate) AnswersTo(kind Kind, local string, byName bool) bool {
	if kind == Workflow {
		return byName && c.Name != nil && string(c.Name) == local // never by its file
	}
	id := c.ident(byName)
	if kind == Agent {
		return claude.AgentKey(string(id)) == claude.AgentKey(local)
	}
	return string(id) == local
}

// ident is the name c answers to when named by folder or by frontmatter.
func (c Candidate) ident(byName bool) []byte {
	if byName && c.Name != nil {
		return c.Name
	}
	return c.Folder
}

// outranked reports whether another match beats cands[i] both in scope and
// in kind. Then no order of the two rules lets cands[i] win. Agents joined
// only by their folded key are never outranked. Which of two spellings the
// client picks is not known, so both are judged.
func outranked(kind Kind, cands []Candidate, i int, match []int, byName bool) bool {
	for _, j := range match {
		if kind == Agent && !bytes.Equal(cands[j].ident(byName), cands[i].ident(byName)) {
			continue
		}
		if Beats(kind, cands[j], cands[i]) {
			return true
		}
	}
	return false
}

// Beats reports whether d outranks c both in scope and in kind.
func Beats(kind Kind, d, c Candidate) bool {
	sd, sc := scopeRank(kind, d.Scope), scopeRank(kind, c.Scope)
	kd, kc := kindRank(d.Kind), kindRank(c.Kind)
	return sd >= 0 && sc >= 0 && sd <= sc && kd <= kc && (sd < sc || kd < kc)
}

// scopeRank orders scopes, lower winning. An unknown scope is -1 and is
// never compared, so it neither shadows nor is shadowed. No workflow
// shadows another. The client keeps a nearer folder's over a farther one's
// only when its whole script parses. skillwire does not read that far.
func scopeRank(kind Kind, s Scope) int {
	if kind == Workflow {
		return -1
	}
	order := []Scope{Managed, User, Project, Plugin}
	if kind == Agent {
		order = []Scope{Managed, Project, User, Plugin}
	}
	for r, o := range order {
		if s == o {
			return r
		}
	}
	return -1
}

func kindRank(k Kind) int {
	if k == Command {
		return 1
	}
	return 0
}

// FrontName is the frontmatter name f gives, nil for none. ok is false
// when which name Claude Code reads is unknown. That is when the front
// file could not be read, or names itself other than by a string.
func FrontName(f walker.Front) (name []byte, ok bool) {
	if f.Reason != 0 {
		return nil, false
	}
	if f.Canonical == nil {
		return nil, true
	}
	return canonicalName(f.Canonical)
}

// canonicalName is the "name" of a canonical frontmatter, a JSON object.
// One that spells no "name" and holds no escape has no such key: it is
// only checked to be an object, with no map made. The gate reads the
// names of every skill a typed name may reach, hundreds, from the cache
// (issue 34).
func canonicalName(c []byte) (name []byte, ok bool) {
	if t := bytes.TrimLeft(c, " \t\r\n"); len(t) > 0 && t[0] == '{' &&
		!bytes.Contains(c, []byte(`"name"`)) && bytes.IndexByte(c, '\\') < 0 {
		return nil, json.Valid(c)
	}
	return decodedName(c)
}

// decodedName is canonicalName through a decoder.
func decodedName(c []byte) (name []byte, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(c, &m) != nil {
		return nil, false
	}
	raw, has := m["name"]
	if !has {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// PluginName is the plugin of a plugin cache candidate
// <marketplace>/<plugin>/<version>. It is nil for a name of another shape.
func PluginName(name []byte) []byte {
	parts := bytes.Split(name, []byte{'/'})
	if len(parts) != 3 {
		return nil
	}
	return parts[1]
}

// Gated reports whether the gate resolves names into roots of kind k.
// Those roots hold what a name loads: skills, agents, commands, plugins,
// workflows.
func Gated(k claude.Kind) bool {
	switch k {
	case claude.Skills, claude.Agents, claude.Commands, claude.Plugins, claude.PluginSources, claude.Workflows:
		return true
	}
	return false
}

// Cached reports whether c is a plugin's folder, judged whole for any of
// its skills, agents and commands. It is a version directory of the plugin
// cache (Folder <marketplace>/<plugin>/<version>). Or it is the folder a
// local marketplace's plugin loads from (Source).
func (c Candidate) Cached() bool {
	return c.Scope == Plugin && (c.Source != "" || bytes.Count(c.Folder, []byte{'/'}) == 2)
}
