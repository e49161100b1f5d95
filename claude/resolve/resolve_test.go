package resolve

import (
	"bytes"
	"slices"
	"testing"
)

func cand(id string, k Kind, s Scope, folder, name, plugin string) Candidate {
	c := Candidate{ID: id, Kind: k, Scope: s, Folder: []byte(folder)}
	if name != "" {
		c.Name = []byte(name)
	}
	if plugin != "" {
		c.Plugin = []byte(plugin)
	}
	return c
}

func ids(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// TestResolve pins precedence as Claude Code documents it.
//   - Skills: "enterprise > personal > project". Plugin skills are
//     namespaced as plugin-name:skill-name. Source: "Extend Claude with
//     skills", https://code.claude.com/docs/en/skills, "Where skills live".
//   - "If a skill and a command share the same name, the skill takes
//     precedence". Source: the same page, where commands merged into skills.
//   - Agents: managed, then project (.claude/agents/, "highest"), then user
//     (~/.claude/agents/), then plugin. Source: "Subagents",
//     https://docs.claude.com/en/docs/claude-code/sub-agents, "File
//     locations".
//
// Built-in agents have no candidate: general-purpose, Explore, Plan,
// statusline-setup and claude-code-guide. They resolve to nothing unless a
// custom agent takes the same name. A candidate whose name fails the
// display gate still matches. It is then judged anomalous for its name.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  Kind
		typed string
		cands []Candidate
		want  []string
	}{
		{"a skill by folder", Skill, "pdf",
			[]Candidate{cand("a", Skill, User, "pdf", "", ""), cand("b", Skill, User, "doc", "", "")}, []string{"a"}},
		{"a skill by frontmatter name", Skill, "pdf",
			[]Candidate{cand("a", Skill, User, "pdf-v2", "pdf", "")}, []string{"a"}},
		{"managed shadows user shadows project", Skill, "pdf",
			[]Candidate{cand("p", Skill, Project, "pdf", "", ""), cand("u", Skill, User, "pdf", "", ""), cand("m", Skill, Managed, "pdf", "", "")},
			[]string{"m"}},
		{"user skill shadows the project's of the same name", Skill, "pdf",
			[]Candidate{cand("p", Skill, Project, "pdf", "", ""), cand("u", Skill, User, "pdf", "", "")}, []string{"u"}},
		{"a skill shadows a command of the same name and scope", Command, "deploy",
			[]Candidate{cand("c", Command, User, "deploy", "", ""), cand("s", Skill, User, "deploy", "", "")}, []string{"s"}},
		{"the Skill tool reaches commands", Skill, "deploy",
			[]Candidate{cand("c", Command, Project, "deploy", "", "")}, []string{"c"}},
		{"a user command and a project skill may either win: both", Command, "deploy",
			[]Candidate{cand("c", Command, User, "deploy", "", ""), cand("s", Skill, Project, "deploy", "", "")}, []string{"c", "s"}},
		{"two skills in one scope answering to one name: both", Skill, "pdf",
			[]Candidate{cand("a", Skill, User, "pdf", "", ""), cand("b", Skill, User, "other", "pdf", "")}, []string{"a", "b"}},
		{"folder and frontmatter readings pick different winners: both", Skill, "pdf",
			[]Candidate{cand("u", Skill, User, "x", "pdf", ""), cand("p", Skill, Project, "pdf", "y", "")}, []string{"u", "p"}},
		{"a plugin skill answers only to plugin:skill", Skill, "docs:pdf",
			[]Candidate{cand("g", Skill, Plugin, "pdf", "", "docs"), cand("u", Skill, User, "pdf", "", ""), cand("o", Skill, Plugin, "pdf", "", "other")},
			[]string{"g"}},
		{"a plugin skill never answers to its bare name", Skill, "pdf",
			[]Candidate{cand("g", Skill, Plugin, "pdf", "", "docs")}, nil},
		{"a namespaced name never reaches a candidate outside a plugin", Skill, "docs:pdf",
			[]Candidate{cand("u", Skill, User, "pdf", "", "")}, nil},
		{"a plugin skill by frontmatter name", Skill, "docs:pdf",
			[]Candidate{cand("g", Skill, Plugin, "pdf-skill", "pdf", "docs")}, []string{"g"}},
		{"agents: project over user", Agent, "reviewer",
			[]Candidate{cand("u", Agent, User, "reviewer", "reviewer", ""), cand("p", Agent, Project, "reviewer", "reviewer", "")}, []string{"p"}},
		{"agents: managed over project", Agent, "reviewer",
			[]Candidate{cand("p", Agent, Project, "reviewer", "", ""), cand("m", Agent, Managed, "reviewer", "", "")}, []string{"m"}},
		{"the Agent tool reaches no skill", Agent, "pdf",
			[]Candidate{cand("s", Skill, Managed, "pdf", "", "")}, nil},
		{"the Skill tool reaches no agent", Skill, "reviewer",
			[]Candidate{cand("a", Agent, Managed, "reviewer", "", "")}, nil},
		{"a built-in agent resolves to nothing", Agent, "general-purpose",
			[]Candidate{cand("a", Agent, User, "reviewer", "", "")}, nil},
		{"a custom agent that takes a built-in's name is judged", Agent, "Explore",
			[]Candidate{cand("a", Agent, Project, "explore", "Explore", "")}, []string{"a"}},
		{"a traversal name never reaches a file of a folder", Skill, "../pdf",
			[]Candidate{cand("a", Skill, User, "pdf", "", "")}, nil},
		{"a candidate named with a control byte is what loads under that name", Skill, "pdf\x1b",
			[]Candidate{cand("a", Skill, User, "pdf\x1b", "", "")}, []string{"a"}},
		{"an id-shaped candidate name is what loads under it", Skill, "swabcdefghijklmn",
			[]Candidate{cand("a", Skill, User, "swabcdefghijklmn", "", "")}, []string{"a"}},
		{"a look-alike candidate that fails the display gate is what loads under its own bytes", Skill, "\u0435vil",
			[]Candidate{cand("a", Skill, Project, "\u0435vil", "", "")}, []string{"a"}},
		{"a look-alike candidate is not the one a differing name loads", Skill, "evil",
			[]Candidate{cand("a", Skill, Project, "\u0435vil", "", "")}, nil},
		{"an empty name matches nothing", Skill, "",
			[]Candidate{cand("a", Skill, User, "", "", "")}, nil},
		{"an ungated frontmatter name falls back to no match, the folder still matches", Skill, "pdf",
			[]Candidate{cand("a", Skill, User, "pdf", "pdf\u202e", "")}, []string{"a"}},
		{"an ungated plugin is matched by its bytes", Skill, "do cs:pdf",
			[]Candidate{cand("g", Skill, Plugin, "pdf", "", "do cs")}, []string{"g"}},
		{"matching is exact in case", Skill, "PDF",
			[]Candidate{cand("a", Skill, User, "pdf", "", "")}, nil},
		{"an unknown scope is never shadowed", Skill, "pdf",
			[]Candidate{cand("m", Skill, Managed, "pdf", "", ""), cand("x", Skill, 0, "pdf", "", "")}, []string{"m", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(Resolve(tc.kind, tc.typed, tc.cands)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestKindOfTool(t *testing.T) {
	for tool, want := range map[string]Kind{"Skill": Skill, "Agent": Agent, "Task": Agent} {
		if k, ok := KindOfTool(tool); !ok || k != want {
			t.Errorf("%s: %v, %v", tool, k, ok)
		}
	}
	for _, tool := range []string{"Bash", "skill", "Read", "mcp__x__Skill", ""} {
		if _, ok := KindOfTool(tool); ok {
			t.Errorf("%q names a candidate", tool)
		}
	}
}

// An agent answers to every spelling the client runs it under: its folded
// key. A Skill tool's name reaches the gate as the client looks it up.
func TestResolveAgentsByTheClientsFoldedName(t *testing.T) {
	evil := cand("e", Agent, User, "evilagent", "", "")
	for _, typed := range []string{"evilagent", "EvilAgent", "evil-agent", "evil_agent", " evilagent ", "ＥＶＩＬＡＧＥＮＴ"} {
		if got := ids(Resolve(Agent, typed, []Candidate{evil})); !slices.Equal(got, []string{"e"}) {
			t.Errorf("Agent %q resolves to %v, want the BLOCKable evilagent", typed, got)
		}
	}
	for _, typed := range []string{"evil.agent", "evilagent.md", "x:evilagent"} {
		if got := Resolve(Agent, typed, []Candidate{evil}); len(got) != 0 {
			t.Errorf("Agent %q resolves to %v; the client runs nothing under it", typed, ids(got))
		}
	}
	// Two spellings of one key: the client may pick either. So a project
	// agent does not shadow a user one it only folds to.
	proj := cand("p", Agent, Project, "Evil-Agent", "", "")
	if got := ids(Resolve(Agent, "evilagent", []Candidate{proj, evil})); !slices.Equal(got, []string{"p", "e"}) {
		t.Errorf("folded spellings across scopes resolve to %v, want both", got)
	}
	same := cand("q", Agent, Project, "evilagent", "", "")
	if got := ids(Resolve(Agent, "evilagent", []Candidate{same, evil})); !slices.Equal(got, []string{"q"}) {
		t.Errorf("the same spelling in project scope resolves to %v, want the project's alone", got)
	}
}

func TestASkillToolNameIsSpelledAsTheClientLooksItUp(t *testing.T) {
	for raw, want := range map[string]string{"/evil": "evil", " evil": "evil", "evil\n": "evil", "//evil": "/evil", "Evil": "Evil"} {
		if got := Spelled(Skill, raw); got != want {
			t.Errorf("Spelled(Skill, %q) = %q, want %q", raw, got, want)
		}
	}
	if got := Spelled(Agent, " EvilAgent"); got != " EvilAgent" {
		t.Errorf("an agent's name is kept for AgentKey: %q", got)
	}
}

// canonicalName reads a canonical form that spells no "name" without a
// decoder. Whatever the bytes, it answers as the decoder does.
func FuzzCanonicalNameAnswersAsTheDecoder(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"description":"d"}`, `{"name":"pdf"}`, `{"na\u006de":"pdf"}`, `{"x":"name"}`,
		`{"x":["a","b"]}`, `{`, `{"x":1}}`, `[]`, `null`, `"name"`, `{"x":"\xff"}`, `{"name":7}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		name, ok := canonicalName(c)
		dname, dok := decodedName(c)
		if ok != dok || !bytes.Equal(name, dname) || (name == nil) != (dname == nil) {
			t.Errorf("canonicalName(%q) = %q %v; the decoder reads %q %v", c, name, ok, dname, dok)
		}
	})
}
