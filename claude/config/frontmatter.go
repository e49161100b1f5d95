package config

import (
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/skillwire/skillwire/claude/config/frontmatter"
	"github.com/skillwire/skillwire/claude/config/jsonread"
)

// frontmatterKeys are the frontmatter fields that change what runs or what
// is allowed without asking. An agent's permissionMode, tools and
// disallowedTools widen what it may do. An agent's skills, and a skill's
// agent (with context: fork), load another candidate with it.
var frontmatterKeys = []string{"agent", "allowed-tools", "context", "disallowedTools", "hooks", "mcpServers", "name", "permissionMode", "skills", "tools"}

// toolKeys are the frontmatter lists of tools, and an agent's preloaded
// skills. They are kept sorted, whether written as a list or one string.
var toolKeys = []string{"allowed-tools", "disallowedTools", "skills", "tools"}

// AnomalyMultiDocument: the frontmatter holds more than one YAML document,
// with a `---` or `...` line inside it. Which one a reader takes is a
// guess, so it is not read at all.
const AnomalyMultiDocument Anomaly = "multidocument"

// Frontmatter extracts frontmatterKeys from the YAML frontmatter of a
// SKILL.md, agent or command file. data is the file's start; only
// frontmatter.Max bytes are looked at. A file without frontmatter has the
// empty form `{}`. Tool lists are kept sorted, written as a list or as
// one string.
//
// Frontmatter the client cannot read either is no anomaly. It is not YAML
// even after the client quotes its plain values (frontmatter.ErrUnreadable).
// The client loads such a file with no frontmatter at all. Its form is
// then unreadableForm, told as a fact (FactFrontmatterUnreadable). The
// digest still binds every byte of the file.
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
// written, no list normalised. It is for comparing two versions key by
// key.
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

// frontmatterMap parses the frontmatter to a mapping, nil for none. bad is
// why it could not be read whole. dup says a key was given twice.
func frontmatterMap(data []byte) (m map[string]any, dup bool, bad Anomaly) {
	m, dup, err := frontmatter.Read(data, jsonread.MaxDepth)
	switch {
	case err == nil:
		return m, dup, ""
	case errors.Is(err, frontmatter.ErrOversize):
		return nil, false, AnomalyOversize
	case errors.Is(err, frontmatter.ErrMultiDocument):
		return nil, false, AnomalyMultiDocument
	case errors.Is(err, frontmatter.ErrAlias):
		return nil, false, AnomalyAlias
	case errors.Is(err, frontmatter.ErrDepth):
		return nil, false, AnomalyDepth
	}
	return nil, false, AnomalyUnparsable
}

// unreadableForm is the form of frontmatter that cannot be read. Its
// unreadableKey is one no frontmatter can give, since only frontmatterKeys
// are kept. Its name is no string, so whoever resolves names takes it to
// be any. A YAML reader other than the client's may read one.
const (
	unreadableKey  = "unreadable"
	unreadableForm = `{"name":{"unreadable":true},"unreadable":true}`
)

// toolList reads allowed-tools: a list, or one string of tools. The string
// splits at commas or spaces outside parentheses (`Bash(git add:*), Read`).
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
