//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude"
)

// listing is the names of a "- name: description" listing that follows
// heading. It is read from the first main request the client sent.
func listing(t *testing.T, m *Model, heading string) []string {
	t.Helper()
	for _, r := range m.Requests() {
		if !r.Main {
			continue
		}
		var text strings.Builder
		msgs, _ := r.Body["messages"].([]any)
		for _, mm := range msgs {
			b, _ := json.Marshal(mm)
			var v struct{ Content any }
			_ = json.Unmarshal(b, &v)
			text.WriteString(textOf(v.Content))
			if s, ok := v.Content.(string); ok {
				text.WriteString(s)
			}
		}
		s := text.String()
		i := strings.Index(s, heading)
		if i < 0 {
			continue
		}
		block := s[i+len(heading):]
		if j := strings.Index(block, "\n\n\n"); j >= 0 {
			block = block[:j]
		}
		var out []string
		for _, m := range regexp.MustCompile(`(?m)^- ([^:\s]+): `).FindAllStringSubmatch(block, -1) {
			out = append(out, m[1])
		}
		return out
	}
	t.Fatalf("no request lists %q", heading)
	return nil
}

// The client's own skills and agents are exactly the ones skillwire treats as
// built-in. No file provides them (claude.BuiltinSkills, BuiltinAgents). A
// new client version that adds one fails here. Otherwise the gate would judge
// a name of it as unknown.
func TestTheClientsBuiltInsAreTheOnesSkillwireKnows(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	m := model(t, nil)
	w.Claude(m, Run{Prompt: "hello"})
	skills := listing(t, m, "The following skills are available for use with the Skill tool:")
	agents := listing(t, m, "Available agent types for the Agent tool:")
	slices.Sort(skills)
	want := slices.Clone(claude.BuiltinSkills)
	slices.Sort(want)
	if !slices.Equal(skills, want) {
		t.Errorf("the client's own skills are %q; skillwire knows %q", skills, want)
	}
	var wantAgents []string
	for _, a := range claude.BuiltinAgents {
		if a != "fork" { // the Agent tool's own type, described in the tool, not listed
			wantAgents = append(wantAgents, a)
		}
	}
	// The agent listing goes on with the skills an agent may preload; the
	// agents come first.
	if len(agents) < len(wantAgents) || !slices.Equal(agents[:len(wantAgents)], wantAgents) {
		t.Errorf("the client's own agents are %q; skillwire knows %q", agents, wantAgents)
	}
}

// Unknown is not clean. A skill from an --add-dir folder that arrived after
// the first run is new and never reviewed. It is asked, and in -p the client
// then denies it. Control: with the hooks uninstalled it loads.
func TestANameOfNoObservedCandidateIsAsked(t *testing.T) {
	t.Parallel()
	bothWays(t, "gated", "control: hooks uninstalled", func(t *testing.T, uninstall bool) {
		w := NewWorld(t)
		w.Install()
		w.Claude(model(t, nil), Run{Prompt: "hello"})
		w.Skill("other/.claude/skills", "added", "ADDED-7c1 from a folder skillwire does not watch")
		if uninstall {
			w.MustSkillwire(nil, "hook", "uninstall", "--yes")
		}
		m := model(t, []Reply{Skill("added")})
		r := w.Claude(m, Run{Prompt: "go", Args: []string{"--add-dir", filepath.Join(w.Root, "other")}})
		if got := m.Sent("ADDED-7c1"); got != uninstall {
			t.Errorf("the unwatched skill loaded: %v, want %v (%q)", got, uninstall, m.ToolResults())
		}
		if !uninstall && !slicesContains(r.Denials(), "Skill") {
			t.Errorf("not asked: denials %v", r.Denials())
		}
	})
}
