package claude

import (
	"slices"
	"strings"
	"testing"
)

// The client reads a switch trimmed as JavaScript trims and lower-cased;
// anything else, garbage and control bytes included, is off.
func TestAnEnvSwitchIsOnOnlyAsTheClientReadsIt(t *testing.T) {
	for _, c := range []struct {
		v  string
		on bool
	}{
		{"1", true}, {"true", true}, {"TRUE", true}, {" Yes ", true}, {"on", true}, {"\t\n\v\f\ron\r\n", true},
		{"\u00a0yes\u3000", true}, {"\ufefftrue", true},
		{"", false}, {"0", false}, {"false", false}, {"no", false}, {"off", false}, {"2", false}, {"y", false},
		{"\u200btrue", false}, {"true\u0085", false}, {"tr\x00ue", false}, {"1\x00", false}, {"\x1b[1mon", false},
		{"\xff1", false}, {"ｏｎ", false}, {"o\u0301n", false}, {"\u212aon", false},
		{strings.Repeat(" ", 1<<20) + "1", true}, {strings.Repeat("1", 1<<20), false},
	} {
		if got := EnvOn(c.v); got != c.on {
			t.Errorf("EnvOn(%q) = %v, want %v", c.v, got, c.on)
		}
	}
}

// With AddedInstructions, each added folder's instruction files are roots
// of scope Added, after every other root. Only the names the client reads
// there are listed. Claude Code 2.1.328 reads CLAUDE.md and
// CLAUDE.local.md of the folder, .claude/CLAUDE.md and every rule of
// .claude/rules (those without paths: at the start). It never reads
// AGENTS.md there, only around the project; pinned by
// e2e/addedcfg_test.go. It ignores settings and .mcp.json in an added
// folder. Off, none is listed.
func TestAnAddedFoldersInstructionsAreRootsOnlyWhenTheClientReadsThem(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", Home: "/h", Added: []string{"/x"}}
	off := p.Roots()
	p.AddedInstructions = true
	on := p.Roots()
	if !slices.EqualFunc(off, on[:len(off)], Root.Same) {
		t.Fatal("the roots before the added folders' instructions moved")
	}
	var got []string
	for _, r := range on[len(off):] {
		if r.Scope != Added || r.Home != "/h" && r.Kind == Config {
			t.Errorf("root %s: scope %s, home %q", r.Path, r.Scope, r.Home)
		}
		got = append(got, string(r.Kind)+" "+r.Path+" "+strings.Join(r.Names, ","))
	}
	want := []string{"config /x CLAUDE.local.md,CLAUDE.md", "config /x/.claude CLAUDE.md", "rules /x/.claude/rules "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("added instruction roots %q, want %q", got, want)
	}
	for _, r := range off {
		if r.Scope == Added && r.Kind != Skills && r.Kind != Agents && r.Kind != Commands {
			t.Errorf("off, %s %s is listed", r.Kind, r.Path)
		}
	}
}

// A folder /add-dir adds is given the roots of a session given it with
// --add-dir, home and all. One file has one id and one digest, whichever
// way the folder came.
func TestAFolderAddedMidSessionHasTheRootsOfOneGivenAtTheStart(t *testing.T) {
	for _, on := range []bool{false, true} {
		p := Places{Config: "/h/.claude", Project: "/p", Home: "/h", Added: []string{"/x"}, AddedInstructions: on}
		var given []Root
		for _, r := range p.Roots() {
			if r.Scope == Added {
				given = append(given, r)
			}
		}
		got := AddedRoots([]string{"/x"}, on, "/h")
		if !slices.EqualFunc(got, given, func(a, b Root) bool { return a.Same(b) && a.Home == b.Home && slices.Equal(a.Names, b.Names) }) {
			t.Errorf("instructions %v: roots %+v, want %+v", on, got, given)
		}
	}
}
