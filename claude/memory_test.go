package claude

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/memkey"
)

func TestTheMemoryFolderIsKeyedByTheRepositorysTopElseTheProject(t *testing.T) {
	for _, tc := range []struct {
		p    Places
		want []string
	}{
		{Places{Config: "/h/.claude", Project: "/r/p/sub", top: "/r/p"}, []string{"/h/.claude/projects/-r-p/memory"}},
		{Places{Config: "/h/.claude", Project: "/r/p/sub"}, []string{"/h/.claude/projects/-r-p-sub/memory"}},
		{Places{Config: "/h/.claude", Project: "/p", MemoryEnv: memkey.Env{Remote: "/rm"}}, []string{"/h/.claude/projects/-p/memory", "/rm/projects/-p/memory"}},
		{Places{Config: "/h/.claude"}, nil},
		{Places{Project: "/p"}, nil},
	} {
		if got := tc.p.MemoryDirs(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: memory folder %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestMemoryMDIsAnInstructionCandidateOfTheProjectsMemoryFolderAlone(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", Home: "/h", Above: []string{"/"}}
	for _, tc := range []struct {
		dir, name, kind string
	}{
		{"/h/.claude/projects/-p/memory", "MEMORY.md", KindInstructions},
		// Sent only when the model reads them, as any file.
		{"/h/.claude/projects/-p/memory", "notes.md", ""},
		// Another project's memory is not this session's.
		{"/h/.claude/projects/-q/memory", "MEMORY.md", ""},
		{"/p", "MEMORY.md", ""},
		{"/p/.claude", "MEMORY.md", ""},
		{"/h/.claude", "MEMORY.md", ""},
	} {
		if kind, ok := candidateOf(p, tc.dir, tc.name); ok != (tc.kind != "") || kind != tc.kind {
			t.Errorf("%s/%s: candidate %v of kind %q, want %q", tc.dir, tc.name, ok, kind, tc.kind)
		}
	}
}

// TestAnAgentsMemoryMDIsAnInstructionCandidate: each agent memory folder
// Discover found holds MEMORY.md as an instruction file, its other files
// not (the agent reads them as any file).
func TestAnAgentsMemoryMDIsAnInstructionCandidate(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p", AgentMemory: []memkey.Folder{{Path: "/h/.claude/agent-memory/memo"}, {Path: "/p/.claude/agent-memory/rev", Project: true}}}
	for _, tc := range []struct{ dir, name, kind string }{
		{"/h/.claude/agent-memory/memo", "MEMORY.md", KindInstructions},
		{"/p/.claude/agent-memory/rev", "MEMORY.md", KindInstructions},
		{"/p/.claude/agent-memory/rev", "topic.md", ""},
		{"/p/.claude/agent-memory/other", "MEMORY.md", ""},
	} {
		if kind, ok := candidateOf(p, tc.dir, tc.name); ok != (tc.kind != "") || kind != tc.kind {
			t.Errorf("%s/%s: candidate %v of kind %q, want %q", tc.dir, tc.name, ok, kind, tc.kind)
		}
	}
}

// TestASettingsFileOfTheCommandLineIsASettingsCandidateAlone: a --settings
// file is a settings candidate of scope Added; its folder's other files
// are not candidates.
func TestASettingsFileOfTheCommandLineIsASettingsCandidateAlone(t *testing.T) {
	p := Places{Config: "/h/.claude", Flags: []string{"/team/flag.json", "/x.json"}}
	for _, tc := range []struct{ dir, name, kind string }{
		{"/team", "flag.json", KindSettings},
		{"/", "x.json", KindSettings},
		{"/team", "other.json", ""},
		{"/team", "settings.json", ""},
	} {
		if kind, ok := candidateOf(p, tc.dir, tc.name); ok != (tc.kind != "") || kind != tc.kind {
			t.Errorf("%s/%s: candidate %v of kind %q, want %q", tc.dir, tc.name, ok, kind, tc.kind)
		}
	}
	for _, r := range p.Roots() {
		if r.Kind == FlagSettings && r.Scope != Added {
			t.Errorf("%s: scope %s, want added", r.Path, r.Scope)
		}
	}
}

// TestAnMCPFileOfTheCommandLineIsAnMCPCandidateAlone: a --mcp-config file
// is an MCP candidate of scope Added, its canonical form the servers it
// names, beside a --settings file of the same folder; the folder's other
// files are not candidates.
func TestAnMCPFileOfTheCommandLineIsAnMCPCandidateAlone(t *testing.T) {
	p := Places{Config: "/h/.claude", Flags: []string{"/team/flag.json"}, FlagsMCP: []string{"/team/mcp.json", "/team/more.json"}}
	for _, tc := range []struct{ dir, name, kind string }{
		{"/team", "mcp.json", KindMCP},
		{"/team", "more.json", KindMCP},
		{"/team", "flag.json", KindSettings},
		{"/team", ".mcp.json", ""},
		{"/team", "other.json", ""},
	} {
		if kind, ok := candidateOf(p, tc.dir, tc.name); ok != (tc.kind != "") || kind != tc.kind {
			t.Errorf("%s/%s: candidate %v of kind %q, want %q", tc.dir, tc.name, ok, kind, tc.kind)
		}
	}
	n := 0
	for _, r := range p.Roots() {
		if r.Kind != FlagMCP {
			continue
		}
		n++
		if r.Scope != Added || !r.Kind.Valid() || !r.Holds([]byte("mcp.json")) || r.Holds([]byte("flag.json")) {
			t.Errorf("%+v: want one added root holding its two names alone", r)
		}
		spec := r.Spec()
		if len(spec.Names) != 2 || spec.Names[0].Extract == nil {
			t.Fatalf("spec names %+v", spec.Names)
		}
		canon, rs := spec.Names[0].Extract(nil, []byte(`{"mcpServers":{"s":{"command":"/bin/sh","args":["x"]}},"other":1}`))
		if len(rs) != 0 || !strings.Contains(string(canon), `"command":"/bin/sh"`) || strings.Contains(string(canon), "other") {
			t.Errorf("canonical %s %v: want the servers alone", canon, rs)
		}
	}
	if n != 1 {
		t.Errorf("%d --mcp-config roots, want one", n)
	}
}

// TestAPromptFileOfTheCommandLineIsAnInstructionsCandidate: a system
// prompt file is an instruction candidate of scope Added, its whole text
// its form.
func TestAPromptFileOfTheCommandLineIsAnInstructionsCandidate(t *testing.T) {
	p := Places{Config: "/h/.claude", FlagsPrompt: []string{"/team/prompt.md"}}
	if kind, ok := candidateOf(p, "/team", "prompt.md"); !ok || kind != KindInstructions {
		t.Errorf("prompt.md: candidate %v of kind %q", ok, kind)
	}
	if _, ok := candidateOf(p, "/team", "CLAUDE.md"); ok {
		t.Error("the prompt file's folder's CLAUDE.md is a candidate")
	}
	for _, r := range p.Roots() {
		if r.Kind == FlagPrompt {
			canon, rs := r.Spec().Names[0].Extract(nil, []byte("@x.md \x1b text"))
			if r.Scope != Added || string(canon) != "@x.md \x1b text" || len(rs) != 0 {
				t.Errorf("%+v: form %q %v", r, canon, rs)
			}
		}
	}
}

// TestAFileOfTheCommandLineAnotherRootHoldsIsWatchedThereOnce: a flag's
// file that is the project's settings, an agent or another flag's file is
// one candidate, of the root that holds it; one no other root holds is
// the flag's. Two candidates of one path would share an id.
func TestAFileOfTheCommandLineAnotherRootHoldsIsWatchedThereOnce(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/p",
		Flags:       []string{"/p/.claude/settings.json", "/t/both.json", "/p/.claude/skills/x.json"},
		FlagsMCP:    []string{"/p/.mcp.json", "/t/both.json", "/t/m.json"},
		FlagsPrompt: []string{"/p/.claude/agents/a.md", "/p/CLAUDE.md", "/t/both.json"}}
	holders := map[string][]Kind{}
	for _, r := range p.Roots() {
		for _, n := range []string{"settings.json", "both.json", "x.json", ".mcp.json", "m.json", "a.md", "CLAUDE.md"} {
			if r.Holds([]byte(n)) && (r.Kind.Named() || r.Kind == Agents) && slices.Contains([]string{"/p/.claude", "/t", "/p/.claude/skills", "/p", "/p/.claude/agents"}, r.Path) {
				holders[r.Path+"/"+n] = append(holders[r.Path+"/"+n], r.Kind)
			}
		}
	}
	for path, want := range map[string]Kind{"/p/.claude/settings.json": Config, "/t/both.json": FlagSettings, "/p/.claude/skills/x.json": FlagSettings,
		"/p/.mcp.json": Config, "/t/m.json": FlagMCP, "/p/.claude/agents/a.md": Agents, "/p/CLAUDE.md": Config} {
		if got := holders[path]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: held by %v, want %s alone", path, got, want)
		}
	}
}
