package lockfile

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
)

// The JSON shape of a lock. Optional fields are pointers. A lock never holds
// null, and a present-but-empty field differs from an absent one.
type lockJSON struct {
	Version int      `json:"version"`
	Roots   []string `json:"roots"`
	// Config are the folders of configuration files (version 2 on).
	Config     *[]string       `json:"config,omitempty"`
	Candidates []candidateJSON `json:"candidates"`
}

type candidateJSON struct {
	Root    string  `json:"root"`
	Name    *string `json:"name,omitempty"`
	NameHex *string `json:"name_hex,omitempty"`
	Kind    string  `json:"kind"`
	Link    *string `json:"link,omitempty"`
	LinkHex *string `json:"link_hex,omitempty"`
	Digest  string  `json:"digest"`
	Verdict *string `json:"verdict,omitempty"`
	// Canonical is a settings or MCP file's canonical form (version 2 on).
	Canonical *string     `json:"canonical,omitempty"`
	Files     []entryJSON `json:"files"`
}

type entryJSON struct {
	Path    *string `json:"path,omitempty"`
	PathHex *string `json:"path_hex,omitempty"`
	Kind    string  `json:"kind"`
	Mode    string  `json:"mode"`
	Size    *int64  `json:"size,omitempty"`
	Hash    *string `json:"hash,omitempty"`
}

// Marshal returns the canonical bytes of l: sorted, ASCII, one file entry per
// line. So a change reads as a one-line diff in review. It refuses a Lock
// that does not validate rather than write one Parse would reject.
func (l *Lock) Marshal() ([]byte, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	var dirs, config []string
	for _, r := range l.Roots {
		if r.Kind == claude.Config {
			config = append(config, r.Path)
		} else {
			dirs = append(dirs, r.Path)
		}
	}
	fmt.Fprintf(&b, "{\n  \"version\": %d,\n", Version)
	for _, list := range []struct {
		key   string
		paths []string
	}{{"roots", dirs}, {"config", config}} {
		fmt.Fprintf(&b, "  %q: [", list.key)
		for i, p := range list.paths {
			b.WriteString(sep(i) + "\n    ")
			writeJSON(&b, p)
		}
		b.WriteString(closing(len(list.paths), "  ]") + ",\n")
	}
	b.WriteString("  \"candidates\": [")
	for i := range l.Candidates {
		b.WriteString(sep(i) + "\n    {\n")
		writeCandidate(&b, candidateToJSON(&l.Candidates[i]))
		b.WriteString("    }")
	}
	b.WriteString(closing(len(l.Candidates), "  ]") + "\n}\n")
	return b.Bytes(), nil
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

// closing ends a list: "]" directly after "[" when it is empty.
func closing(n int, s string) string {
	if n == 0 {
		return "]"
	}
	return "\n" + s
}

func writeCandidate(b *bytes.Buffer, c candidateJSON) {
	field := func(k string, v any) {
		b.WriteString("      ")
		writeJSON(b, k)
		b.WriteString(": ")
		writeJSON(b, v)
		b.WriteString(",\n")
	}
	field("root", c.Root)
	if c.Name != nil {
		field("name", *c.Name)
	} else {
		field("name_hex", *c.NameHex)
	}
	field("kind", c.Kind)
	if c.Link != nil {
		field("link", *c.Link)
	}
	if c.LinkHex != nil {
		field("link_hex", *c.LinkHex)
	}
	field("digest", c.Digest)
	if c.Verdict != nil {
		field("verdict", *c.Verdict)
	}
	if c.Canonical != nil {
		b.WriteString("      \"canonical\": " + asciiJSON(*c.Canonical) + ",\n")
	}
	b.WriteString("      \"files\": [")
	for i, e := range c.Files {
		b.WriteString(sep(i) + "\n        ")
		writeJSON(b, e)
	}
	b.WriteString(closing(len(c.Files), "      ]") + "\n")
}

// writeJSON encodes values that cannot fail to encode: strings and the
// entry struct. Every string in a lock is printable ASCII by construction.
func writeJSON(b *bytes.Buffer, v any) { b.Write(mustJSON(v)) }

// asciiJSON is the JSON string of s with every non-ASCII character escaped.
// It uses \uXXXX, a surrogate pair above U+FFFF. A lock is pure ASCII, and a
// canonical form may quote any text. s is valid UTF-8 (Validate).
func asciiJSON(s string) string {
	var b strings.Builder
	for _, c := range string(mustJSON(s)) {
		switch {
		case c < utf8.RuneSelf:
			b.WriteRune(c)
		case c > 0xFFFF:
			r1, r2 := utf16.EncodeRune(c)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", c)
		}
	}
	return b.String()
}

func mustJSON(v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		panic("lockfile: " + err.Error())
	}
	return out
}

func candidateToJSON(c *Candidate) candidateJSON {
	cj := candidateJSON{Root: c.Root, Kind: c.Kind.String(), Digest: c.Digest.String()}
	cj.Name, cj.NameHex = encodeBytes(c.Name, plainName(c.Root, c.Name))
	if c.Manifest.ViaLink {
		cj.Link, cj.LinkHex = encodeBytes(c.Manifest.Link, plainLink(c.Manifest.Link))
	}
	if c.Verdict != None {
		v := string(c.Verdict)
		cj.Verdict = &v
	}
	if c.Canonical != nil {
		v := string(c.Canonical)
		cj.Canonical = &v
	}
	cj.Files = make([]entryJSON, len(c.Manifest.Entries))
	for i := range c.Manifest.Entries {
		cj.Files[i] = entryToJSON(&c.Manifest.Entries[i])
	}
	return cj
}

func entryToJSON(e *snapshot.Entry) entryJSON {
	ej := entryJSON{Kind: e.Kind.String(), Mode: formatMode(e.Mode)}
	ej.Path, ej.PathHex = encodeBytes(e.Path, plainPath(e.Path))
	if e.Kind == snapshot.File {
		size, hash := e.Size, e.Hash.String()
		ej.Size, ej.Hash = &size, &hash
	}
	return ej
}

// encodeBytes sets exactly one of the plain and the hex spelling.
func encodeBytes(b []byte, plain bool) (*string, *string) {
	if plain {
		s := string(b)
		return &s, nil
	}
	s := hex.EncodeToString(b)
	return nil, &s
}

// formatMode spells permission bits as four octal digits, as chmod takes
// them.
func formatMode(m uint32) string { return fmt.Sprintf("%04o", m) }

func parseMode(s string) (uint32, bool) {
	if len(s) != 4 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return 0, false
		}
	}
	m, err := strconv.ParseUint(s, 8, 32)
	return uint32(m), err == nil
}
