package claude

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/pathname"
)

// maxImports bounds the @path imports read from one instruction file; the
// walker bounds what it binds of them again (its script cap).
const maxImports = 32

// importRE is Claude Code 2.1.328's own: an @ at the start of a line or
// after white space, then a path in which "\ " is a space.
var importRE = regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`)

// Imports lists the @path imports of an instruction file as written, in
// order, without duplicates: outside fenced code blocks, code spans and
// HTML comments (the client reads none there), with "\ " unescaped and a
// #fragment cut. A path must start as a file name, "./", "~/" or "/" does.
func Imports(data []byte) []string {
	var out []string
	for _, text := range prose(data) {
		for _, m := range importRE.FindAllSubmatch(text, -1) {
			p := strings.ReplaceAll(string(m[1]), `\ `, " ")
			if i := strings.IndexByte(p, '#'); i >= 0 {
				p = p[:i]
			}
			if !importable(p) || slices.Contains(out, p) {
				continue
			}
			if out = append(out, p); len(out) == maxImports {
				return out
			}
		}
	}
	return out
}

func importable(p string) bool {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	c := p[0]
	return c == '/' || c == '~' && strings.HasPrefix(p, "~/") ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// prose is data without its fenced code blocks, code spans and HTML
// comments, as the runs of text between them.
func prose(data []byte) [][]byte {
	var out [][]byte
	fence := ""
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := strings.TrimLeft(string(line), " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		out = append(out, line)
	}
	text := bytes.Join(out, nil)
	out = out[:0]
	for len(text) > 0 {
		i := bytes.IndexAny(text, "`<")
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i])
		text = text[i:]
		switch {
		case text[0] == '`':
			n := len(text) - len(bytes.TrimLeft(text, "`"))
			end := bytes.Index(text[n:], text[:n])
			if end < 0 {
				text = text[n:]
				continue
			}
			text = text[n+end+n:]
		case bytes.HasPrefix(text, []byte("<!--")):
			end := bytes.Index(text, []byte("-->"))
			if end < 0 {
				return out
			}
			text = text[end+3:]
		default:
			out = append(out, text[:1])
			text = text[1:]
		}
	}
	return out
}

// importPaths resolves the imports of an instruction file of directory
// dir: relative to the importing file, ~/ under home (unbound without
// one), absolute as written; never cleaned, so "docs/../x.md" is reached
// as written.
func importPaths(dir, home string, data []byte) []string {
	var out []string
	for _, p := range Imports(data) {
		switch {
		case strings.HasPrefix(p, "/"):
			out = append(out, p)
		case strings.HasPrefix(p, "~/"):
			if home != "" {
				out = append(out, pathname.Join(home, p[2:]))
			}
		default:
			out = append(out, pathname.Join(dir, strings.TrimPrefix(p, "./")))
		}
	}
	return out
}
