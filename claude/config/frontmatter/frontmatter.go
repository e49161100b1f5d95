// Package frontmatter reads the YAML frontmatter of a SKILL.md, agent or
// command file as Claude Code reads it. It builds plain values only.
// Which keys matter is config's concern.
package frontmatter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// Max bounds how much of a file is searched for its frontmatter. One that
// does not close within it is oversize.
const Max = 64 << 10

// maxAliasNodes bounds the nodes that aliases may add when expanded. Real
// frontmatter uses none; a billion-laughs document needs millions.
const maxAliasNodes = 1000

// The reasons Read gives for frontmatter it does not read.
var (
	ErrOversize = errors.New("frontmatter does not close within the bound")
	// ErrMultiDocument: a `---` or `...` line inside it starts a second
	// document. Which one a reader takes is a guess, so none is read.
	ErrMultiDocument = errors.New("frontmatter holds more than one YAML document")
	ErrAlias         = errors.New("aliases expand past the limit")
	ErrDepth         = errors.New("nested too deep")
	// ErrUnreadable: not a YAML mapping even as the client quotes it. The
	// client loads such a file with no frontmatter at all.
	ErrUnreadable = errors.New("frontmatter is not YAML")
)

var errShape = errors.New("unexpected YAML shape")

// MaySpell reports whether data may hold s, a key or value, once read as
// YAML: its bytes, or an escape that could spell them. A NUL may mean an
// encoding other than UTF-8 (UTF-16): that counts too. s must be
// printable ASCII with no space, quote or backslash: every YAML spelling
// of such a scalar but an escaped one holds its bytes as they are
// (folding adds a space). So when MaySpell is false, no parse of data
// gives s, and the parse can be skipped: 64 KiB of list-shaped YAML takes
// 17 ms to parse, and a tree's author can write 200 of them (issue 34).
func MaySpell(data []byte, s string) bool {
	return bytes.Contains(data, []byte(s)) || bytes.IndexByte(data, '\\') >= 0 || bytes.IndexByte(data, 0) >= 0
}

// Read parses the frontmatter at the start of data to a mapping (nil for
// none). Values are map[string]any, []any, string, bool and nil. dup
// reports a key given twice; the last one is kept. maxDepth bounds the
// nesting of a value.
func Read(data []byte, maxDepth int) (m map[string]any, dup bool, err error) {
	body, found, over := find(data)
	if over {
		return nil, false, ErrOversize
	}
	if !found {
		return nil, false, nil
	}
	if hasDocumentMarker(body) {
		return nil, false, ErrMultiDocument
	}
	// Parsed to nodes only: yaml.v3 keeps aliases as pointers, and the
	// converter expands them under its limit. goccy/go-yaml was tried: it
	// takes seconds on 60 KB of nested brackets and has no alias limit.
	root, err := document(body)
	if errors.Is(err, ErrUnreadable) {
		// The client's second try: plain values quoted, leading tabs made spaces.
		root, err = document(quoted(body))
	}
	if err != nil {
		return nil, false, err
	}
	c := converter{maxDepth: maxDepth}
	var doc any
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		doc, err = c.value(root.Content[0], 0)
	}
	switch {
	case errors.Is(err, ErrAlias), errors.Is(err, ErrDepth):
		return nil, false, err
	case err != nil:
		return nil, false, ErrUnreadable
	}
	m, ok := doc.(map[string]any)
	if !ok && doc != nil {
		return nil, false, ErrUnreadable
	}
	return m, c.dup, nil
}

// document decodes body as exactly one YAML document, to nodes.
func document(body []byte) (yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(body))
	var root, next yaml.Node
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return root, ErrUnreadable
	}
	// Unmarshal would read the first document and ignore the rest. A
	// second one is refused, never skipped.
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err == nil {
			return root, ErrMultiDocument
		}
		return root, ErrUnreadable
	}
	return root, nil
}

// plainLine and plainSpecial are Claude Code's (2.1.328) test for a line it
// quotes when its frontmatter is not YAML. The line is `key: value`: a key
// of letters, '_' and '-', a value holding a YAML indicator or ": ". In
// JavaScript '.' stops at \r, U+2028 and U+2029, so such a line is left.
var (
	plainLine    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-zA-Z_-]+):\s+(\S[^\r\x{2028}\x{2029}]*)$`) })
	plainSpecial = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("[{}\\[\\]*&#!|>%@`]|: ") })
	leadingTabs  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\t+`) })
)

// quoted is the frontmatter as Claude Code rewrites it when it is not YAML.
// Each plain line whose value holds an indicator becomes `key: "value"`,
// unless already quoted or a flow list. Each leading tab becomes two
// spaces. Eleven of 150 agent and skill files in Anthropic's own plugin
// repositories need it. Their descriptions hold ": " and <example> blocks.
func quoted(body []byte) []byte {
	lines := strings.Split(string(body), "\n")
	for i, l := range lines {
		m := plainLine().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := m[2]
		switch {
		case v[0] == '"' && v[len(v)-1] == '"', v[0] == '\'' && v[len(v)-1] == '\'':
			continue
		case v[0] == '[' && v[len(v)-1] == ']' && isList(v):
			continue
		case !plainSpecial().MatchString(v):
			continue
		}
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
		lines[i] = m[1] + `: "` + v + `"`
	}
	out := strings.Join(lines, "\n")
	return []byte(leadingTabs().ReplaceAllStringFunc(out, func(t string) string { return strings.Repeat("  ", len(t)) }))
}

// isList reports whether v alone is a YAML sequence.
func isList(v string) bool {
	root, err := document([]byte(v))
	return err == nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.SequenceNode
}

// hasDocumentMarker reports a line that starts or ends a YAML document:
// `---` or `...` at column 0, then a blank, a comment or the line's end.
func hasDocumentMarker(body []byte) bool {
	for line := range bytes.Lines(body) {
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) {
			if rest := line[3:]; len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n' {
				return true
			}
		}
	}
	return false
}

// find returns the YAML between an opening `---` line and the next `---`
// line. The opening one starts the file, after an optional BOM.
func find(data []byte) (body []byte, found, over bool) {
	limited := data[:min(len(data), Max)]
	rest := bytes.TrimPrefix(limited, []byte("\xef\xbb\xbf"))
	line, rest, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || string(bytes.TrimRight(line, " \t\r")) != "---" {
		return nil, false, false
	}
	start := len(limited) - len(rest)
	for off := start; off < len(limited); {
		line, _, ok := bytes.Cut(limited[off:], []byte("\n"))
		if string(bytes.TrimRight(line, " \t\r")) == "---" && (ok || len(limited) == len(data)) {
			return limited[start:off], true, false
		}
		if !ok {
			break
		}
		off += len(line) + 1
	}
	return nil, false, len(data) > Max
}

// converter turns yaml.v3 nodes into plain values. It follows aliases
// itself, so their expansion is counted and refused past maxAliasNodes.
type converter struct {
	maxDepth   int
	expanding  []*yaml.Node // alias targets being converted, outermost first
	aliasNodes int
	dup        bool
}

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	if depth > c.maxDepth {
		return nil, ErrDepth
	}
	if len(c.expanding) > 0 {
		if c.aliasNodes++; c.aliasNodes > maxAliasNodes {
			return nil, ErrAlias
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errShape
		}
		// An alias inside its own anchor would expand forever.
		if slices.Contains(c.expanding, n.Alias) {
			return nil, ErrAlias
		}
		c.expanding = append(c.expanding, n.Alias)
		defer func() { c.expanding = c.expanding[:len(c.expanding)-1] }()
		return c.value(n.Alias, depth+1)
	case yaml.MappingNode:
		m, merged := map[string]any{}, map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := c.member(m, merged, n.Content[i], n.Content[i+1], depth); err != nil {
				return nil, err
			}
		}
		return m, nil
	case yaml.SequenceNode:
		a := []any{}
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			return strings.EqualFold(n.Value, "true"), nil
		}
		// Numbers and other tags keep their source spelling: only strings matter here.
		return n.Value, nil
	}
	return nil, errShape
}

// member adds one key: value pair. A `<<` merge never overrides a key
// already present. A key written in the mapping overrides a merged one
// wherever it stands, as YAML merge keys do. merged records those keys.
func (c *converter) member(m map[string]any, merged map[string]bool, key, val *yaml.Node, depth int) error {
	v, err := c.value(val, depth+1)
	if err != nil {
		return err
	}
	if key.Kind == yaml.ScalarNode && key.Value == "<<" && key.ShortTag() == "!!merge" {
		srcs, ok := v.([]any)
		if !ok {
			srcs = []any{v}
		}
		for _, s := range srcs {
			sm, ok := s.(map[string]any)
			if !ok {
				return errShape
			}
			for k, sv := range sm {
				if _, ok := m[k]; !ok {
					m[k], merged[k] = sv, true
				}
			}
		}
		return nil
	}
	k, err := c.value(key, depth+1)
	if err != nil {
		return err
	}
	ks, ok := k.(string)
	if !ok {
		ks = keyText(k)
	}
	if _, ok := m[ks]; ok && !merged[ks] {
		c.dup = true
	}
	m[ks] = v
	delete(merged, ks)
	return nil
}

// keyText spells a key that is no string as its JSON. config's canonical
// form spells values so, and recorded forms depend on it.
func keyText(k any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(k); err != nil {
		// Keys are built from YAML scalars, lists and maps: none fails to encode.
		panic("frontmatter: key: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}
