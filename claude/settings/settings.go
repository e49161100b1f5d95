// Package settings reads and edits Claude Code's settings.json. Its parse
// keeps every byte of meaning. It installs and removes skillwire's hooks
// (HookSpecs). It writes the edited file beside a backup. It reads what
// settings files say of hooks turned off and of a project's env.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude/config"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/internal/shellword"
)

// A settings.json belongs to the user, or to a project's authors.
// skillwire edits only hooks.SessionStart. It writes every other byte of
// meaning back as it was read: key order, duplicate keys, number
// spellings, string escapes. Only whitespace is rewritten, in the
// two-space layout Claude Code writes.

// Settings errors. Their messages name only skillwire's own keys and array
// indices, never text from the file.
var (
	ErrNotJSON     = errors.New("not valid JSON")
	ErrNotObject   = errors.New("its top level is not a JSON object")
	ErrShape       = errors.New("unexpected shape")
	ErrTooLarge    = errors.New("too large to be a settings file")
	ErrBadExecPath = errors.New("the binary's path is not an absolute, valid UTF-8 path")
)

// HookTimeout is the timeout, in seconds, of the installed hook. It is
// above the hook's own 5 s deadline, far below Claude Code's 600 s
// default.
const HookTimeout = 10

type kind uint8

const (
	scalar kind = iota
	object
	array
)

// value is one JSON value as written. An object keeps its members in
// order, duplicates included. An array keeps its elements, a scalar its
// source text.
type value struct {
	kind    kind
	raw     []byte
	members []member
	elems   []*value
}

type member struct {
	key  []byte // as written, quotes included
	name string // decoded, for lookups
	val  *value
}

// Doc is a parsed settings.json.
type Doc struct{ root *value }

// New is the empty settings object, for a file that does not exist.
func New() *Doc { return &Doc{root: &value{kind: object}} }

// Parse reads a settings.json. It accepts exactly one JSON object, with
// nothing before or after it but whitespace.
func Parse(data []byte) (*Doc, error) { return parse(data, config.MaxJSON) }

// parse is Parse of a file bounded by max bytes.
func parse(data []byte, max int64) (*Doc, error) {
	if int64(len(data)) > max {
		return nil, ErrTooLarge
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM is written back without it: Claude Code reads both
	root, err := parseValue(data)
	if err != nil {
		return nil, err
	}
	if root.kind != object {
		return nil, ErrNotObject
	}
	return &Doc{root: root}, nil
}

type parser struct {
	data  []byte
	dec   *json.Decoder
	depth int
}

func newParser(data []byte) *parser {
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	return p
}

// maxDepth bounds nesting. The parser recurses once per level, and a
// hostile project's settings.json of 4 MiB of '[' overflowed the stack.
const maxDepth = 256

// token returns the next token and its source text. The decoder validates
// the syntax. The text between the offsets before and after a token is
// the token itself, preceded by whitespace and separators only.
func (p *parser) token() (json.Token, []byte, error) {
	start := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, nil, fmt.Errorf("%w (at byte %d)", ErrNotJSON, se.Offset)
		}
		return nil, nil, ErrNotJSON
	}
	raw := bytes.TrimLeft(p.data[start:p.dec.InputOffset()], " \t\r\n,:")
	return tok, raw, nil
}

func (p *parser) value() (*value, error) {
	tok, raw, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(tok, raw)
}

func (p *parser) valueFrom(tok json.Token, raw []byte) (*value, error) {
	if tok == json.Delim('{') || tok == json.Delim('[') {
		if p.depth++; p.depth > maxDepth {
			return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrNotJSON, maxDepth)
		}
		defer func() { p.depth-- }()
	}
	switch tok {
	case json.Delim('{'):
		v := &value{kind: object}
		for {
			tok, raw, err := p.token()
			if err != nil {
				return nil, err
			}
			if tok == json.Delim('}') {
				return v, nil
			}
			name, ok := tok.(string)
			if !ok {
				return nil, ErrNotJSON
			}
			m := member{key: raw, name: name}
			if m.val, err = p.value(); err != nil {
				return nil, err
			}
			v.members = append(v.members, m)
		}
	case json.Delim('['):
		v := &value{kind: array}
		for {
			tok, raw, err := p.token()
			if err != nil {
				return nil, err
			}
			if tok == json.Delim(']') {
				return v, nil
			}
			e, err := p.valueFrom(tok, raw)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
	case json.Delim('}'), json.Delim(']'):
		return nil, ErrNotJSON
	}
	return &value{kind: scalar, raw: bytes.Clone(raw)}, nil
}

// Encode writes the settings in Claude Code's own layout, two-space
// indentation, ending with a newline.
func (s *Doc) Encode() []byte {
	var b bytes.Buffer
	encode(&b, s.root, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func encode(b *bytes.Buffer, v *value, depth int) {
	indent := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	switch v.kind {
	case scalar:
		b.Write(v.raw)
	case object:
		if len(v.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			b.Write(m.key)
			b.WriteString(": ")
			encode(b, m.val, depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	case array:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			encode(b, e, depth+1)
		}
		indent(depth)
		b.WriteByte(']')
	}
}

// lookup finds the last member named name. Claude Code uses JavaScript's
// JSON.parse, which keeps the last of duplicate keys.
func (v *value) lookup(name string) *member {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].name == name {
			return &v.members[i]
		}
	}
	return nil
}

// container finds the member name of object v, which must be of kind k if
// present. An edit of a duplicated key would be ambiguous, so it is
// refused.
func (v *value) container(name string, k kind, where string) (*member, error) {
	var found *member
	for i := range v.members {
		if v.members[i].name != name {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%w: %s is a duplicate key", ErrShape, where)
		}
		found = &v.members[i]
	}
	if found != nil && found.val.kind != k {
		return nil, fmt.Errorf("%w: %s is not %s", ErrShape, where, kindName(k))
	}
	return found, nil
}

func kindName(k kind) string {
	if k == object {
		return "an object"
	}
	return "an array"
}

// str is the decoded string a scalar spells, if it is a string.
func (v *value) str() (string, bool) {
	if v == nil || v.kind != scalar || len(v.raw) == 0 || v.raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v.raw, &s) == nil
}

func stringValue(s string) *value {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a Go string always encodes
	return &value{kind: scalar, raw: bytes.TrimSuffix(b.Bytes(), []byte("\n"))}
}

func newMember(name string, v *value) member {
	return member{key: stringValue(name).raw, name: name, val: v}
}

// hookEntry is the object install adds to a SessionStart group.
func hookEntry(command string) *value {
	return &value{kind: object, members: []member{
		newMember("type", stringValue("command")),
		newMember("command", stringValue(command)),
		newMember("timeout", &value{kind: scalar, raw: fmt.Appendf(nil, "%d", HookTimeout)}),
	}}
}

// HookEntry is the encoded hook object install adds, for showing it.
func HookEntry(command string) []byte {
	var b bytes.Buffer
	encode(&b, hookEntry(command), 0)
	return b.Bytes()
}

// eventHooks validates the path to hooks.<event> and returns its members,
// nil when absent. Claude Code rejects a settings file of another shape,
// and an edit of one would be a guess. So every level is checked.
func (s *Doc) eventHooks(event string) (hooks, ss *member, err error) {
	if hooks, err = s.root.container("hooks", object, "hooks"); err != nil || hooks == nil {
		return nil, nil, err
	}
	if ss, err = hooks.val.container(event, array, "hooks."+event); err != nil || ss == nil {
		return hooks, nil, err
	}
	for i, g := range ss.val.elems {
		where := fmt.Sprintf("hooks.%s[%d]", event, i)
		if g.kind != object {
			return nil, nil, fmt.Errorf("%w: %s is not an object", ErrShape, where)
		}
		hs, err := g.container("hooks", array, where+".hooks")
		if err != nil {
			return nil, nil, err
		}
		if hs == nil {
			continue
		}
		for j, h := range hs.val.elems {
			if h.kind != object {
				return nil, nil, fmt.Errorf("%w: %s.hooks[%d] is not an object", ErrShape, where, j)
			}
		}
	}
	return hooks, ss, nil
}

// commandOf is the command of a hook entry of type "command".
func commandOf(h *value) (string, bool) {
	t := h.lookup("type")
	c := h.lookup("command")
	if t == nil || c == nil {
		return "", false
	}
	if typ, ok := t.val.str(); !ok || typ != "command" {
		return "", false
	}
	return c.val.str()
}

// Commands lists the commands of the hooks of event, in order.
func (s *Doc) Commands(event string) ([]string, error) {
	_, ss, err := s.eventHooks(event)
	if err != nil || ss == nil {
		return nil, err
	}
	var cmds []string
	for _, g := range ss.val.elems {
		hs := g.lookup("hooks")
		if hs == nil {
			continue
		}
		for _, h := range hs.val.elems {
			if c, ok := commandOf(h); ok {
				cmds = append(cmds, c)
			}
		}
	}
	return cmds, nil
}

// Has reports whether h is installed: a command hook of a binary named
// skillwire for h, in a group of exactly h's matcher. Under another
// matcher, an older install's, it does not run for every tool it should.
func (s *Doc) Has(h HookSpec) bool {
	_, ss, err := s.eventHooks(h.Event)
	if err != nil || ss == nil {
		return false
	}
	for _, g := range ss.val.elems {
		if matcherOf(g) != h.Matcher {
			continue
		}
		if hs := g.lookup("hooks"); hs != nil {
			for _, e := range hs.val.elems {
				if c, ok := commandOf(e); ok && h.IsCommand(c) {
					return true
				}
			}
		}
	}
	return false
}

// AddHook adds to hooks.<event> a group holding one command hook, with
// matcher when it is not "". It adds nothing, and reports false, when a
// command hook with exactly this command is already under that event in a
// group of exactly this matcher. The command under another matcher would
// run for other tools, or never. It is removed and added again under
// matcher: a repair, reported true like an add.
func (s *Doc) AddHook(event, matcher, command string) (bool, error) {
	_, ss, err := s.eventHooks(event)
	if err != nil {
		return false, err
	}
	if ss != nil {
		for _, g := range ss.val.elems {
			if hasCommand(g, command) && matcherOf(g) == matcher {
				return false, nil
			}
		}
		if _, err := s.RemoveHooks(event, func(c string) bool { return c == command }); err != nil {
			return false, err
		}
	}
	hooks, ss, _ := s.eventHooks(event)
	if hooks == nil {
		s.root.members = append(s.root.members, newMember("hooks", &value{kind: object}))
		hooks = &s.root.members[len(s.root.members)-1]
	}
	if ss == nil {
		hooks.val.members = append(hooks.val.members, newMember(event, &value{kind: array}))
		ss = &hooks.val.members[len(hooks.val.members)-1]
	}
	group := &value{kind: object}
	if matcher != "" {
		group.members = append(group.members, newMember("matcher", stringValue(matcher)))
	}
	group.members = append(group.members, newMember("hooks", &value{kind: array, elems: []*value{hookEntry(command)}}))
	ss.val.elems = append(ss.val.elems, group)
	return true, nil
}

// hasCommand reports whether group g holds a command hook running
// command.
func hasCommand(g *value, command string) bool {
	hs := g.lookup("hooks")
	if hs == nil {
		return false
	}
	for _, h := range hs.val.elems {
		if c, ok := commandOf(h); ok && c == command {
			return true
		}
	}
	return false
}

// matcherOf is group g's matcher, "" when absent. A matcher that is not a
// string is never equal to one install writes.
func matcherOf(g *value) string {
	m := g.lookup("matcher")
	if m == nil {
		return ""
	}
	if s, ok := m.val.str(); ok {
		return s
	}
	return "\x00not a string"
}

// RemoveHooks removes the command hooks of event whose command ours
// accepts. It removes nothing else but what that empties: a group left
// without hooks, then the event, then hooks. It returns the removed
// commands.
func (s *Doc) RemoveHooks(event string, ours func(string) bool) ([]string, error) {
	hooks, ss, err := s.eventHooks(event)
	if err != nil || ss == nil {
		return nil, err
	}
	var removed []string
	groups := ss.val.elems[:0:0]
	for _, g := range ss.val.elems {
		hs := g.lookup("hooks")
		if hs == nil {
			groups = append(groups, g)
			continue
		}
		kept := hs.val.elems[:0:0]
		for _, h := range hs.val.elems {
			if c, ok := commandOf(h); ok && ours(c) {
				removed = append(removed, c)
				continue
			}
			kept = append(kept, h)
		}
		emptied := len(kept) == 0 && len(hs.val.elems) > 0
		hs.val.elems = kept
		if !emptied {
			groups = append(groups, g)
		}
	}
	if len(removed) == 0 {
		return nil, nil
	}
	emptied := len(groups) == 0
	ss.val.elems = groups
	if emptied {
		hooks.val.members = without(hooks.val.members, ss)
		if len(hooks.val.members) == 0 {
			s.root.members = without(s.root.members, hooks)
		}
	}
	return removed, nil
}

func without(ms []member, m *member) []member {
	for i := range ms {
		if &ms[i] == m {
			return append(ms[:i:i], ms[i+1:]...)
		}
	}
	return ms
}

// HooksDisabled reports a top-level "disableAllHooks": true. Under it
// Claude Code runs no hook at all.
func (s *Doc) HooksDisabled() bool {
	m := s.root.lookup("disableAllHooks")
	return m != nil && m.val.kind == scalar && string(m.val.raw) == "true"
}

// HookSpec is one hook skillwire installs. It holds the event, its matcher
// and the subcommand of `skillwire hook` it runs. A matcher of "" is none:
// every occurrence.
type HookSpec struct {
	Event, Matcher, Sub string
}

// HookSpecs are the seven hooks `hook install` installs, in order. The
// PreToolUse matcher is an anchored regex; a value with "|" is a regex,
// unanchored otherwise. It matches the tools that name a candidate.
// Workflow is among them, since it runs a watched workflow. It matches
// Bash too, for skillwire's own decision commands. "Task" is the Agent
// tool's name before Claude Code renamed it. PostToolUse, on the candidate
// tools, records that a person allowed a use the gate asked about. On
// Read, Edit and Write it keeps what the client read of the nested skills
// folders the call touched.
var HookSpecs = []HookSpec{
	{hookio.EventSessionStart, "", "session-start"},
	{hookio.EventPreToolUse, "^(" + candidateTools + "|" + hookio.ToolBash + ")$", "pre-tool-use"},
	{hookio.EventUserPromptExpansion, "", "prompt-expansion"},
	{hookio.EventConfigChange, "", "config-change"},
	{hookio.EventInstructionsLoaded, "", "instructions-loaded"},
	{hookio.EventPostToolUse, "^(" + candidateTools + "|" + touchTools + ")$", "post-tool-use"},
	// DirectoryAdded, for /add-dir mid-session: the folder is kept for the
	// session's gate, and the person told what it holds.
	{hookio.EventDirectoryAdded, "", "directory-added"},
}

// candidateTools are the tools that name a candidate, for a matcher.
const candidateTools = hookio.ToolSkill + "|" + hookio.ToolAgent + "|" + hookio.ToolTask + "|" + hookio.ToolWorkflow

// touchTools are the tools whose touch of a file makes the client read the
// nested skills folders above it.
const touchTools = hookio.ToolRead + "|" + hookio.ToolEdit + "|" + hookio.ToolWrite

// HookCommand is the SessionStart command install writes for the binary at
// exe. Claude Code runs it through a shell. So a path with any byte other
// than [A-Za-z0-9/._+-] is single-quoted.
func HookCommand(exe string) (string, error) { return HookSpecs[0].Command(exe) }

// Command is the command of h for the binary at exe, quoted as
// HookCommand.
func (h HookSpec) Command(exe string) (string, error) {
	if !strings.HasPrefix(exe, "/") || !utf8.ValidString(exe) {
		return "", ErrBadExecPath
	}
	return shellword.Quote(exe) + " hook " + h.Sub, nil
}

// IsCommand reports whether command is h's command for any binary named
// skillwire, quoted as Command quotes it.
func (h HookSpec) IsCommand(command string) bool {
	word, ok := strings.CutSuffix(command, " hook "+h.Sub)
	if !ok {
		return false
	}
	path, ok := shellword.Unquote(word)
	return ok && strings.HasPrefix(path, "/") && strings.HasSuffix(path, "/skillwire") && shellword.Quote(path) == word
}
