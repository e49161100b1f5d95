package config

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	yaml "go.yaml.in/yaml/v3"
)

// MaxFrontmatter bounds how much of a SKILL.md, agent or command file is
// searched for its YAML frontmatter; one that does not close within it is oversize.
const MaxFrontmatter = 64 << 10

// maxAliasNodes bounds the nodes that aliases may add when expanded: real
// frontmatter uses none, and a billion-laughs document needs millions.
const maxAliasNodes = 1000

var (
	errYAMLAlias = errors.New("aliases expand past the limit")
	errYAMLShape = errors.New("unexpected YAML shape")
)

// frontmatterKeys are the frontmatter fields that change what runs or what
// is allowed without asking; an agent's permissionMode, tools and
// disallowedTools widen what it may do; an agent's skills, and a skill's
// agent (with context: fork), load another candidate with it.
var frontmatterKeys = []string{"agent", "allowed-tools", "context", "disallowedTools", "hooks", "mcpServers", "name", "permissionMode", "skills", "tools"}

// toolKeys are the frontmatter lists (of tools, and an agent's preloaded
// skills), kept sorted whether written as a list or one string.
var toolKeys = []string{"allowed-tools", "disallowedTools", "skills", "tools"}

// AnomalyMultiDocument: the frontmatter holds more than one YAML document
// (a `---` or `...` line inside it): which one a reader takes is a guess,
// so it is not read at all.
const AnomalyMultiDocument Anomaly = "multidocument"

// Frontmatter extracts frontmatterKeys from the YAML frontmatter of a
// SKILL.md, agent or command file (data is the file's start; only
// MaxFrontmatter bytes are looked at). A file without frontmatter has the
// empty form `{}`. Tool lists are kept sorted whether written as a list or
// as one string.
//
// Frontmatter the client cannot read either (not YAML even after its own
// quoting of plain values, frontmatterQuoted) is no anomaly: the client
// loads such a file with no frontmatter at all. Its form is then
// unreadableForm, told as a fact (FactFrontmatterUnreadable); the digest
// still binds every byte of the file.
func Frontmatter(data []byte) Extract {
	m, dup, bad := frontmatterMap(data)
	if bad == AnomalyUnparsable {
		return Extract{Canonical: []byte(unreadableForm)}
	}
	if bad != "" {
		return Extract{Anomalies: []Anomaly{bad}}
	}
	kept := map[string]any{}
	for _, k := range frontmatterKeys {
		if v, ok := m[k]; ok {
			kept[k] = v
		}
	}
	for _, k := range toolKeys {
		if v, ok := kept[k]; ok {
			kept[k] = toolList(v)
		}
	}
	return extract(kept, dup)
}

// FrontmatterFields is Frontmatter keeping every key, each value as
// written (no list normalised): for comparing two versions key by key.
func FrontmatterFields(data []byte) Extract {
	m, dup, bad := frontmatterMap(data)
	if bad != "" {
		return Extract{Anomalies: []Anomaly{bad}}
	}
	if m == nil {
		m = map[string]any{}
	}
	return extract(m, dup)
}

func extract(m map[string]any, dup bool) Extract {
	ex := Extract{Canonical: canonicalJSON(m)}
	if dup {
		ex.Anomalies = []Anomaly{AnomalyDuplicateKey}
	}
	return ex
}

// frontmatterMap parses the frontmatter to a mapping (nil for none); bad
// is why it could not be read whole, dup that a key was given twice.
func frontmatterMap(data []byte) (m map[string]any, dup bool, bad Anomaly) {
	body, found, over := frontmatterBody(data)
	if over {
		return nil, false, AnomalyOversize
	}
	if !found {
		return nil, false, ""
	}
	if hasDocumentMarker(body) {
		return nil, false, AnomalyMultiDocument
	}
	// Parsed to nodes only: yaml.v3 keeps aliases as pointers, expanded by
	// yamlConverter under its limit. goccy/go-yaml was tried and takes seconds
	// on 60 KB of nested brackets, and has no alias limit of its own.
	root, bad := yamlDocument(body)
	if bad == AnomalyUnparsable {
		// The client's second try: plain values quoted, leading tabs
		// made spaces (frontmatterQuoted).
		root, bad = yamlDocument(frontmatterQuoted(body))
	}
	if bad != "" {
		return nil, false, bad
	}
	c := yamlConverter{}
	var doc any
	var err error
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		doc, err = c.value(root.Content[0], 0)
	}
	switch {
	case errors.Is(err, errYAMLAlias):
		return nil, false, AnomalyAlias
	case errors.Is(err, errConfigDepth):
		return nil, false, AnomalyDepth
	case err != nil:
		return nil, false, AnomalyUnparsable
	}
	m, ok := doc.(map[string]any)
	if !ok && doc != nil {
		return nil, false, AnomalyUnparsable
	}
	return m, c.dup, ""
}

// yamlDocument decodes body as exactly one YAML document, to nodes.
func yamlDocument(body []byte) (yaml.Node, Anomaly) {
	dec := yaml.NewDecoder(bytes.NewReader(body))
	var root, next yaml.Node
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return root, AnomalyUnparsable
	}
	// Unmarshal would read the first document and ignore the rest: a second
	// one is refused, never skipped.
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err == nil {
			return root, AnomalyMultiDocument
		}
		return root, AnomalyUnparsable
	}
	return root, ""
}

// unreadableForm is the form of frontmatter that cannot be read: its
// unreadableKey is one no frontmatter can give (only frontmatterKeys are
// kept), and its name is no string, so whoever resolves names takes it to
// be any (a YAML reader other than the client's may read one).
const (
	unreadableKey  = "unreadable"
	unreadableForm = `{"name":{"unreadable":true},"unreadable":true}`
)

// plainLine and plainSpecial are Claude Code's (2.1.328) test for a line
// it quotes when its frontmatter is not YAML: `key: value` with a key of
// letters, '_' and '-', and a value holding a YAML indicator or ": ". In
// JavaScript '.' stops at \r, U+2028 and U+2029, so such a line is left.
var (
	plainLine    = regexp.MustCompile(`^([a-zA-Z_-]+):\s+(\S[^\r\x{2028}\x{2029}]*)$`)
	plainSpecial = regexp.MustCompile("[{}\\[\\]*&#!|>%@`]|: ")
	leadingTabs  = regexp.MustCompile(`(?m)^\t+`)
)

// frontmatterQuoted is the frontmatter as Claude Code rewrites it when it
// is not YAML, to parse it once more: each plain line whose value is not
// already quoted or a flow list and holds an indicator becomes
// `key: "value"` (backslash and '"' escaped), then each leading tab is two
// spaces. Eleven of 150 agent and skill files in Anthropic's own plugin
// repositories need it (a one-line description holding ": " and
// <example> blocks).
func frontmatterQuoted(body []byte) []byte {
	lines := strings.Split(string(body), "\n")
	for i, l := range lines {
		m := plainLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := m[2]
		switch {
		case v[0] == '"' && v[len(v)-1] == '"', v[0] == '\'' && v[len(v)-1] == '\'':
			continue
		case v[0] == '[' && v[len(v)-1] == ']' && isYAMLList(v):
			continue
		case !plainSpecial.MatchString(v):
			continue
		}
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
		lines[i] = m[1] + `: "` + v + `"`
	}
	out := strings.Join(lines, "\n")
	return []byte(leadingTabs.ReplaceAllStringFunc(out, func(t string) string { return strings.Repeat("  ", len(t)) }))
}

// isYAMLList reports whether v alone is a YAML sequence.
func isYAMLList(v string) bool {
	root, bad := yamlDocument([]byte(v))
	return bad == "" && root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.SequenceNode
}

// hasDocumentMarker reports a line that starts or ends a YAML document
// (`---` or `...` at column 0, then a blank, a comment or the line's end).
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

// frontmatterBody finds the YAML between an opening `---` line at the very
// start (after an optional BOM) and the next `---` line.
func frontmatterBody(data []byte) (body []byte, found, over bool) {
	limited := data[:min(len(data), MaxFrontmatter)]
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
	return nil, false, len(data) > MaxFrontmatter
}

// toolList reads allowed-tools: a list, or one string of tools separated by
// commas or spaces outside parentheses (`Bash(git add:*), Read`).
func toolList(v any) []string {
	var tools []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			tools = append(tools, s)
		}
	}
	switch v := v.(type) {
	case string:
		depth, start := 0, 0
		for i, r := range v {
			switch {
			case r == '(':
				depth++
			case r == ')' && depth > 0:
				depth--
			case depth == 0 && (r == ',' || unicode.IsSpace(r)):
				add(v[start:i])
				start = i + 1
			}
		}
		add(v[start:])
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				add(s)
			} else {
				add(string(canonicalJSON(e)))
			}
		}
	default:
		add(string(canonicalJSON(v)))
	}
	slices.Sort(tools)
	return slices.Compact(tools)
}

// yamlConverter turns yaml.v3 nodes into map[string]any, []any, string,
// bool and nil, following aliases itself so that their expansion is counted
// and refused past maxAliasNodes, never performed.
type yamlConverter struct {
	expanding  []*yaml.Node // alias targets being converted, outermost first
	aliasNodes int
	dup        bool
}

func (c *yamlConverter) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxConfigDepth {
		return nil, errConfigDepth
	}
	if len(c.expanding) > 0 {
		if c.aliasNodes++; c.aliasNodes > maxAliasNodes {
			return nil, errYAMLAlias
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errYAMLShape
		}
		// An alias inside its own anchor would expand forever.
		if slices.Contains(c.expanding, n.Alias) {
			return nil, errYAMLAlias
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
	return nil, errYAMLShape
}

// member adds one key: value pair. `<<` merges mappings without overriding
// keys already present, and a key written in the mapping overrides a merged
// one wherever it stands, as YAML merge keys do; merged records those keys.
func (c *yamlConverter) member(m map[string]any, merged map[string]bool, key, val *yaml.Node, depth int) error {
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
				return errYAMLShape
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
		ks = string(canonicalJSON(k))
	}
	if _, ok := m[ks]; ok && !merged[ks] {
		c.dup = true
	}
	m[ks] = v
	delete(merged, ks)
	return nil
}
