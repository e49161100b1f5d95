package findings

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/claude/config/frontmatter"
)

// Of reports the findings of a candidate's files cur, against the
// version prev a person last saw. With prev nil (never reviewed) every
// host, tool and executable is new. Files are taken in path order, at
// most MaxFiles of them; past that an unscanned finding says so.
func Of(prev, cur []File) []Finding {
	cur = sorted(cur)
	var out []Finding
	if len(cur) > MaxFiles {
		out = append(out, Finding{Kind: Unscanned, File: ".", Text: fmt.Sprintf("%q", fmt.Sprintf("only %d of %d files were scanned", MaxFiles, len(cur)))})
		cur = cur[:MaxFiles]
	}
	before := map[string]*File{}
	for i := range prev {
		before[string(prev[i].Path)] = &prev[i]
	}
	oldHosts := map[string]bool{}
	for _, f := range prev {
		for h := range Hosts(f.Data) {
			oldHosts[h] = true
		}
	}
	for _, f := range cur {
		fs := Scan(f)
		fs = append(fs, newHosts(f, oldHosts)...)
		fs = append(fs, widened(before[string(f.Path)], f)...)
		if runs(f) && (before[string(f.Path)] == nil || !runs(*before[string(f.Path)])) && Count(fs, NewExecutable) == 0 {
			fs = append(fs, Finding{Kind: NewExecutable, File: anomaly.Escape(f.Path), Line: 1, Text: anomaly.Quote(firstLine(f.Data), shown)})
		}
		slices.SortStableFunc(fs, func(a, b Finding) int { return slices.Index(Kinds, a.Kind) - slices.Index(Kinds, b.Kind) })
		out = append(out, fs...)
	}
	return out
}

func sorted(fs []File) []File {
	out := slices.Clone(fs)
	slices.SortFunc(out, func(a, b File) int { return bytes.Compare(a.Path, b.Path) })
	return out
}

// Count is how many of fs are of kind.
func Count(fs []Finding, kind string) int {
	n := 0
	for _, f := range fs {
		if f.Kind == kind {
			n++
		}
	}
	return n
}

// runs: the file can be run, by its mode or its #! line.
func runs(f File) bool { return f.Exec || bytes.HasPrefix(f.Data, []byte("#!")) }

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(b[:min(len(b), MaxLineBytes)])
}

// newHosts are the hosts f names that no file of the previous version did.
func newHosts(f File, old map[string]bool) []Finding {
	hs := Hosts(f.Data)
	names := make([]string, 0, len(hs))
	for h := range hs {
		if !old[h] {
			names = append(names, h)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		return hs[names[i]] < hs[names[j]] || hs[names[i]] == hs[names[j]] && names[i] < names[j]
	})
	var out []Finding
	for i, h := range names {
		if i == MaxPerKind {
			out = append(out, Finding{Kind: NewHost, File: anomaly.Escape(f.Path), Text: fmt.Sprintf("%q", fmt.Sprintf("%d more in this file", len(names)-i))})
			break
		}
		out = append(out, Finding{Kind: NewHost, File: anomaly.Escape(f.Path), Line: hs[h], Text: anomaly.Quote(h, shown)})
	}
	return out
}

// widened reports the allowed-tools entries of f's frontmatter that its
// previous version did not grant: each runs without the person's ask.
func widened(prev *File, f File) []Finding {
	now, line := allowedTools(f.Data)
	if len(now) == 0 {
		return nil
	}
	var was []string
	if prev != nil {
		was, _ = allowedTools(prev.Data)
	}
	var added []string
	for _, t := range now {
		if !slices.Contains(was, t) {
			added = append(added, t)
		}
	}
	if len(added) == 0 {
		return nil
	}
	return []Finding{{Kind: ToolsWidened, File: anomaly.Escape(f.Path), Line: line, Text: anomaly.Quote(strings.Join(added, ", "), shown)}}
}

// allowedTools are the entries of the frontmatter's allowed-tools, and
// the line of the key. A list or a string of entries split on commas and
// spaces outside parentheses ("Bash(git add:*), Read").
func allowedTools(data []byte) ([]string, int) {
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, 0
	}
	data = data[:min(len(data), 64<<10)]
	if !frontmatter.MaySpell(data, "allowed-tools") {
		return nil, 0 // no parse gives the key: not parsed
	}
	m, _, err := frontmatter.Read(data, 8)
	if err != nil || m == nil {
		return nil, 0
	}
	var out []string
	switch v := m["allowed-tools"].(type) {
	case string:
		out = splitTools(v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, splitTools(s)...)
			}
		}
	default:
		return nil, 0
	}
	line := 0
	for n, l := range lines(data) {
		if bytes.HasPrefix(l, []byte("allowed-tools")) {
			line = n
			break
		}
	}
	return out, line
}

func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
		start = end + 1
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',', ' ', '\t':
			if depth == 0 {
				flush(i)
			}
		}
	}
	flush(len(s))
	return out
}
