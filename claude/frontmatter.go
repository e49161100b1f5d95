package claude

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
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
// is allowed without asking.
var frontmatterKeys = []string{"allowed-tools", "hooks", "mcpServers", "name"}

// Frontmatter extracts `name`, `hooks`, `mcpServers` and `allowed-tools`
// from the YAML frontmatter of a SKILL.md, agent or command file (data is
// the file's start; only MaxFrontmatter bytes are looked at). A file without
// frontmatter has the empty form `{}`. `allowed-tools` is kept as a sorted
// list whether it was written as a list or as one string.
func Frontmatter(data []byte) Extract {
	body, found, over := frontmatterBody(data)
	if over {
		return Extract{Anomalies: []ConfigAnomaly{AnomalyOversize}}
	}
	if !found {
		return Extract{Canonical: []byte("{}")}
	}
	// Duplicate keys are parsed (the last one kept) so they can be reported, not hidden.
	f, err := yamlparser.ParseBytes(body, 0, yamlparser.AllowDuplicateMapKey())
	if err != nil {
		return Extract{Anomalies: []ConfigAnomaly{AnomalyUnparsable}}
	}
	c := yamlConverter{anchors: map[string]ast.Node{}}
	var doc any
	if len(f.Docs) > 0 && f.Docs[0].Body != nil {
		doc, err = c.value(f.Docs[0].Body, 0)
	}
	switch {
	case errors.Is(err, errYAMLAlias):
		return Extract{Anomalies: []ConfigAnomaly{AnomalyAlias}}
	case errors.Is(err, errConfigDepth):
		return Extract{Anomalies: []ConfigAnomaly{AnomalyDepth}}
	case err != nil || len(f.Docs) > 1:
		return Extract{Anomalies: []ConfigAnomaly{AnomalyUnparsable}}
	}
	m, ok := doc.(map[string]any)
	if !ok && doc != nil {
		return Extract{Anomalies: []ConfigAnomaly{AnomalyUnparsable}}
	}
	kept := map[string]any{}
	for _, k := range frontmatterKeys {
		if v, ok := m[k]; ok {
			kept[k] = v
		}
	}
	if v, ok := kept["allowed-tools"]; ok {
		kept["allowed-tools"] = toolList(v)
	}
	var ex Extract
	ex.Canonical = canonicalJSON(kept)
	if c.dup {
		ex.Anomalies = []ConfigAnomaly{AnomalyDuplicateKey}
	}
	return ex
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

// yamlConverter turns a goccy AST into map[string]any, []any, string, bool
// and nil, resolving aliases itself so that their expansion is counted and
// refused past maxAliasNodes, never performed.
type yamlConverter struct {
	anchors    map[string]ast.Node
	aliasDepth int // > 0 while converting the target of an alias
	aliasNodes int
	dup        bool
}

func (c *yamlConverter) value(n ast.Node, depth int) (any, error) {
	if depth > maxConfigDepth {
		return nil, errConfigDepth
	}
	if c.aliasDepth > 0 {
		if c.aliasNodes++; c.aliasNodes > maxAliasNodes {
			return nil, errYAMLAlias
		}
	}
	switch n := n.(type) {
	case *ast.AnchorNode:
		v, err := c.value(n.Value, depth+1)
		// Registered once converted: an alias inside its own anchor stays unknown.
		c.anchors[n.Name.GetToken().Value] = n.Value
		return v, err
	case *ast.AliasNode:
		target, ok := c.anchors[n.Value.GetToken().Value]
		if !ok {
			return nil, errYAMLShape
		}
		c.aliasDepth++
		defer func() { c.aliasDepth-- }()
		return c.value(target, depth+1)
	case *ast.TagNode:
		return c.value(n.Value, depth+1)
	case *ast.MappingNode:
		m, merged := map[string]any{}, map[string]bool{}
		for _, mv := range n.Values {
			if err := c.member(m, merged, mv, depth); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *ast.MappingValueNode:
		m := map[string]any{}
		return m, c.member(m, map[string]bool{}, n, depth)
	case *ast.SequenceNode:
		a := []any{}
		for _, e := range n.Values {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case *ast.StringNode:
		return n.Value, nil
	case *ast.LiteralNode:
		return n.Value.Value, nil
	case *ast.BoolNode:
		return n.Value, nil
	case *ast.NullNode:
		return nil, nil
	case ast.ScalarNode:
		// Numbers, infinities and NaN keep their source spelling: only strings matter here.
		return n.GetToken().Value, nil
	}
	return nil, errYAMLShape
}

// member adds one key: value pair. `<<` merges mappings without overriding
// keys already present, and a key written in the mapping overrides a merged
// one wherever it stands, as YAML merge keys do; merged records those keys.
func (c *yamlConverter) member(m map[string]any, merged map[string]bool, mv *ast.MappingValueNode, depth int) error {
	v, err := c.value(mv.Value, depth+1)
	if err != nil {
		return err
	}
	if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
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
	k, err := c.value(mv.Key, depth+1)
	if err != nil {
		return err
	}
	ks, ok := k.(string)
	if !ok {
		if k == nil {
			ks = "null"
		} else {
			ks = string(canonicalJSON(k))
		}
	}
	if _, ok := m[ks]; ok && !merged[ks] {
		c.dup = true
	}
	m[ks] = v
	delete(merged, ks)
	return nil
}
