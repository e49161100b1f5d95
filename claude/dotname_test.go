package claude

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// A skill folder ".hidden-tools", which the client lists, is shown by
// skillwire as a hidden badname (issue 32). The client loads it under its
// name, so it passes. A name spelled as the client's own files does not.
func TestADotLeadingSkillTheClientLoadsIsShown(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		name string
		ok   bool
	}{
		{Skills, ".hidden-tools", true},
		{Agents, ".xag.md", true},
		{Commands, ".ycmd.md", true},
		{Skills, "plain", false}, // no dot: the display gate's own case
		// Controls: names that pose as the client's files or fail the gate.
		{Skills, ".mcp.json", false},
		{Skills, ".claude", false},
		{Skills, ".Claude-plugin", false},
		{Skills, ".claude.json", false},
		{Skills, ".git", false},
		{Skills, ".github", false},
		{Skills, ".settings.json", false},
		{Skills, ".SETTINGS.JSON", false},
		{Skills, ".json", false}, // found by FuzzDisplayAndSplit
		{Skills, ".", false},
		{Skills, "..", false},
		{Skills, "..x", false},
		{Skills, ".-x", false},
		{Skills, ". x", false},
		{Skills, ".\x1b[31m", false},
		{Skills, ".swabcdefghijklmn", false}, // poses as an id behind its dot
		{Config, ".hidden-tools", false},
		{Plugins, ".hidden-tools", false},
		{Rules, ".hidden.md", false},
	} {
		if got := DotName(tc.k, []byte(tc.name)); got != tc.ok {
			t.Errorf("DotName(%s, %q) = %v, want %v", tc.k, tc.name, got, tc.ok)
		}
		if _, shown := Display(tc.k, []byte(tc.name)); tc.k == Skills && shown != (tc.ok || tc.name == "plain") {
			t.Errorf("Display(%s, %q) shown %v, want %v", tc.k, tc.name, shown, tc.ok)
		}
	}
}

// The walk of a skills root agrees: ".hidden-tools" has no badname
// anomaly. Control: ".mcp.json" and ".git" in the same root keep theirs.
func TestADotLeadingSkillHasNoBadnameAnomaly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, ".hidden-tools/SKILL.md=x", ".mcp.json/SKILL.md=x", ".git/SKILL.md=x")
	w := walker.Scan(context.Background(), []walker.RootSpec{(Root{Path: dir, Kind: Skills}).Spec()}, walker.DefaultConfig())[0]
	got := map[string]bool{}
	for _, c := range w.Candidates {
		got[string(c.Name)] = slices.Contains(walker.Reasons(c.Anomalies()), anomaly.Badname)
	}
	if want := map[string]bool{".hidden-tools": false, ".mcp.json": true, ".git": true}; !maps.Equal(got, want) {
		t.Errorf("badname %v, want %v", got, want)
	}
}
