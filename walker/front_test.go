package walker

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
)

func TestFrontGivesTheCandidateAFormWhileTheDigestCoversTheBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tree  []string
		files bool
		front string
		canon string
	}{
		{"the named file of a directory", []string{"pdf/SKILL.md=head\nbody"}, false, "SKILL.md", "head"},
		{"a file candidate itself", []string{"a.md=head\nbody"}, true, "", "head"},
		{"a directory without the named file", []string{"pdf/other.md=head"}, false, "SKILL.md", ""},
		{"a named file that is a link", []string{"pdf/real=head", "pdf/SKILL.md -> real"}, false, "SKILL.md", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.tree...)
			spec := RootSpec{Path: dir, Files: tc.files, Each: &NameSpec{Front: firstLine, FrontFile: tc.front}}
			r := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0]
			c := &r.Candidates[0]
			if string(c.Canonical) != tc.canon {
				t.Errorf("canonical %q, want %q", c.Canonical, tc.canon)
			}
			plain := Scan(context.Background(), []RootSpec{{Path: dir, Files: tc.files}}, DefaultConfig())[0]
			if plain.Candidates[0].Digest != c.Digest {
				t.Error("Front changed the digest")
			}
		})
	}
}

func TestFrontReasonsAreAnomaliesAtTheirFile(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pdf/SKILL.md=bad yaml")
	spec := RootSpec{Path: dir, Each: &NameSpec{Front: firstLine, FrontFile: "SKILL.md"}}
	c := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0].Candidates[0]
	if !hasAnomaly(&c, anomaly.Unparsable, "SKILL.md") {
		t.Errorf("anomalies %v", reasonsOf(c.Anomalies()))
	}
}

func TestAFileTooLargeToReadForItsFrontHasNoForm(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pdf/SKILL.md=head\n"+strings.Repeat("x", maxFrontRead))
	spec := RootSpec{Path: dir, Each: &NameSpec{Front: firstLine, FrontFile: "SKILL.md"}}
	c := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0].Candidates[0]
	if c.Canonical != nil || len(c.Anomalies()) > 0 {
		t.Errorf("canonical %q anomalies %v", c.Canonical, reasonsOf(c.Anomalies()))
	}
}

func TestAFrontOfBytesTheWalkDidNotHashIsDropped(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "pdf/SKILL.md=head\nbody")
	// The file changes after Front read it and before the walk hashed it.
	testHookFronts = func() { testtree.Make(t, dir, "pdf/SKILL.md=other\nbody") }
	defer func() { testHookFronts = nil }()
	spec := RootSpec{Path: dir, Each: &NameSpec{Front: firstLine, FrontFile: "SKILL.md"}}
	c := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0].Candidates[0]
	if c.Canonical != nil {
		t.Errorf("canonical %q kept though the file changed between the reads", c.Canonical)
	}
}

func TestAFrontFileBelowTheCandidateIsNeverReachedThroughALink(t *testing.T) {
	outside := t.TempDir()
	testtree.Make(t, outside, "hooks.json=head")
	for _, tc := range []struct {
		name  string
		tree  []string
		canon string
	}{
		{"a real directory", []string{"p/hooks/hooks.json=head\nx"}, "head"},
		{"a linked directory", []string{"p/hooks -> " + outside}, ""},
		{"a linked file", []string{"p/hooks/hooks.json -> " + outside + "/hooks.json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.tree...)
			spec := RootSpec{Path: dir, Each: &NameSpec{Front: firstLine, FrontFile: "hooks/hooks.json"}}
			c := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0].Candidates[0]
			if string(c.Canonical) != tc.canon {
				t.Errorf("canonical %q, want %q", c.Canonical, tc.canon)
			}
		})
	}
}

// TestAFrontFileTheListingDoesNotHoldIsNotRead: the candidate's listing
// answers whether a front file is there. Issue 23: a skill without hooks/
// or .claude-plugin/ cost a failed open of each. One created after the
// listing is not read. The form never says more than the manifest.
func TestAFrontFileTheListingDoesNotHoldIsNotRead(t *testing.T) {
	for _, tc := range []struct {
		name, front string
		more        []string
		late        string // made after the candidate was listed
		read        []string
	}{
		{"the named file", "SKILL.md", nil, "pdf/SKILL.md=late", nil},
		{"a file below a folder made late", "SKILL.md", []string{"hooks/hooks.json"}, "pdf/hooks/hooks.json=late", []string{"SKILL.md"}},
		{"a late file beside listed ones", "SKILL.md", []string{".mcp.json"}, "pdf/.mcp.json=late", []string{"SKILL.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, "pdf/x.md=x")
			if tc.front == "SKILL.md" && tc.late != "pdf/SKILL.md=late" {
				testtree.Make(t, dir, "pdf/SKILL.md=head")
			}
			testHookListed = func(path []byte) {
				if len(path) == 0 {
					testtree.Make(t, dir, tc.late)
				}
			}
			defer func() { testHookListed = nil }()
			var read []string
			front := func(path, data []byte) ([]byte, []anomaly.Reason) {
				read = append(read, string(path))
				return firstLine(path, data)
			}
			spec := RootSpec{Path: dir, Each: &NameSpec{Front: front, FrontFile: tc.front, FrontMore: tc.more}}
			c := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0].Candidates[0]
			if strings.Join(read, ",") != strings.Join(tc.read, ",") {
				t.Errorf("read %q, want %q", read, tc.read)
			}
			late, _, _ := strings.Cut(strings.TrimPrefix(tc.late, "pdf/"), "=")
			for _, e := range c.Manifest.Entries {
				if string(e.Path) == late {
					t.Errorf("the late file %q is in the manifest", e.Path)
				}
			}
		})
	}
}

func TestListedAnswersByFirstComponent(t *testing.T) {
	ents := []dirent{{name: znameOf([]byte(".claude-plugin"))}, {name: znameOf([]byte("SKILL.md"))}, {name: znameOf([]byte("hooks"))}}
	for p, want := range map[string]bool{
		"SKILL.md": true, "hooks/hooks.json": true, ".claude-plugin/plugin.json": true, "hooks": true,
		".mcp.json": false, "SKILL": false, "SKILL.md/x": true, "": false, "/hooks": false, "hooks\x00": false, "\xff/x": false,
	} {
		if got := listed(ents, p); got != want {
			t.Errorf("listed(%q) = %v, want %v", p, got, want)
		}
	}
	if listed(nil, "SKILL.md") {
		t.Error("an empty listing holds SKILL.md")
	}
}

// A noise path below a candidate's top is left out of its manifest; the
// same name elsewhere is content.
func TestNoisePathsBelowTheTopAreLeftOut(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "p/tsconfig.json", "p/.claude-plugin/types/tsconfig.json", "p/.claude-plugin/plugin.json", "p/hooks/tsconfig.json", "p/types/tsconfig.json")
	spec := RootSpec{Path: dir, Each: &NameSpec{Noise: []string{"tsconfig.json", ".claude-plugin/types/tsconfig.json"}}}
	w := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0]
	var got []string
	for _, e := range w.Candidates[0].Manifest.Entries {
		if e.Kind == snapshot.File {
			got = append(got, string(e.Path))
		}
	}
	if want := []string{".claude-plugin/plugin.json", "hooks/tsconfig.json", "types/tsconfig.json"}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}
