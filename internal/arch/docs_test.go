package arch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// read returns a file of the module, relative to its root.
func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// packageRow is one row of the package table: a folder in backquotes.
var packageRow = regexp.MustCompile("^\\| `([^`]+)` \\|")

// packageTable reads the folders named by the table under "## Packages"
// in docs/reference.md.
func packageTable(t *testing.T) []string {
	t.Helper()
	var out []string
	in := false
	for _, line := range strings.Split(read(t, "docs/reference.md"), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages"
			continue
		}
		if m := packageRow.FindStringSubmatch(line); in && m != nil {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 {
		t.Fatal(`docs/reference.md has no package table under "## Packages"`)
	}
	return out
}

// TestThePackageTableMatchesTheTree: the docs name every package folder
// once, and no folder the tree does not hold.
func TestThePackageTableMatchesTheTree(t *testing.T) {
	table := packageTable(t)
	var tree []string
	for _, p := range packages(t) {
		tree = append(tree, p.rel)
	}
	for _, rel := range tree {
		if !slices.Contains(table, rel) {
			t.Errorf("%s is a package folder missing from the table in docs/reference.md", rel)
		}
	}
	seen := map[string]bool{}
	for _, rel := range table {
		if !slices.Contains(tree, rel) {
			t.Errorf("docs/reference.md names %s, which is no package folder of the tree", rel)
		}
		if seen[rel] {
			t.Errorf("docs/reference.md names %s twice", rel)
		}
		seen[rel] = true
	}
}

func TestTheReadmeIsAtMost200Lines(t *testing.T) {
	if n := lines(t, filepath.Join(root(t), "README.md")); n > 200 {
		t.Errorf("README.md has %d lines, want at most 200", n)
	}
}

// TestTheReadmeStartsWithMakeRunAndMakeTest: the first thing a reader
// runs is the main job, then the tests.
func TestTheReadmeStartsWithMakeRunAndMakeTest(t *testing.T) {
	var cmds []string
	for _, line := range strings.Split(read(t, "README.md"), "\n") {
		if strings.HasPrefix(line, "make ") {
			cmds = append(cmds, strings.Fields(line)[1])
		}
		if len(cmds) == 2 {
			break
		}
	}
	if !slices.Equal(cmds, []string{"run", "test"}) {
		t.Errorf("README.md's first commands are make %v, want make run, then make test", cmds)
	}
}

func TestTheReadmeGetsStartedWithinItsFirst40Lines(t *testing.T) {
	all := strings.Split(read(t, "README.md"), "\n")
	if i := slices.Index(all, "## Getting started"); i < 0 || i >= 40 {
		t.Errorf(`README.md's "## Getting started" is at line %d, want one of the first 40`, i+1)
	}
}

func TestNoReadmeLineIsOver400Characters(t *testing.T) {
	for i, line := range strings.Split(read(t, "README.md"), "\n") {
		if n := utf8.RuneCountInString(line); n > 400 {
			t.Errorf("README.md:%d has %d characters, want at most 400", i+1, n)
		}
	}
}

func TestPerformanceIsAtMost200Lines(t *testing.T) {
	if n := lines(t, filepath.Join(root(t), "docs/performance.md")); n > 200 {
		t.Errorf("docs/performance.md has %d lines, want at most 200", n)
	}
}

// link is a Markdown link's target.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestEveryRelativeLinkInTheDocsPointsToAFile: a link to a moved file
// or a renamed heading fails here.
func TestEveryRelativeLinkInTheDocsPointsToAFile(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(root(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(docs, filepath.Join(root(t), "README.md")) {
		rel, _ := filepath.Rel(root(t), path)
		for _, target := range links(read(t, rel)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), file)
			}
			b, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s links to %s: %v", rel, target, err)
				continue
			}
			if frag != "" && !slices.Contains(anchors(string(b)), frag) {
				t.Errorf("%s links to %s: no such heading", rel, target)
			}
		}
	}
}

// links lists the link targets of a Markdown text, outside code fences.
func links(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors lists the heading anchors of a Markdown text, as GitHub makes
// them. A repeated heading gets a numbered suffix.
func anchors(md string) []string {
	var out []string
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		text := strings.TrimLeft(line, "#")
		if fenced || text == line || !strings.HasPrefix(text, " ") {
			continue
		}
		a := slug(strings.TrimSpace(text))
		if n := count[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		count[a]++
	}
	return out
}

// slug is a heading's anchor: lower case, spaces as hyphens, no
// punctuation but hyphens and underscores.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"The gate":                   "the-gate",
		"`agent`, `command`":         "agent-command",
		"How a change is told":       "how-a-change-is-told",
		"`make bench` (issues 2, 4)": "make-bench-issues-2-4",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}
