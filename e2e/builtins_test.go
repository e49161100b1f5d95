//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/builtin"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/settings"
)

// sentBlock is the text that follows heading in the first main request
// the client sent, up to the next blank line after its first line.
func sentBlock(t *testing.T, m *Model, heading string) string {
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
		return s[i+len(heading):]
	}
	t.Fatalf("no request lists %q", heading)
	return ""
}

// listing is the names of a "- name: description" listing that follows
// heading. It is read from the first main request the client sent.
func listing(t *testing.T, m *Model, heading string) []string {
	t.Helper()
	block := sentBlock(t, m, heading)
	if j := strings.Index(block, "\n\n\n"); j >= 0 {
		block = block[:j]
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^- ([^:\s]+): `).FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	return out
}

// The client's own skills and agents are exactly the ones skillwire treats as
// built-in. No file provides them (builtin.Skills, BuiltinAgents). A
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
	want := slices.Clone(builtin.Skills)
	slices.Sort(want)
	if !slices.Equal(skills, want) {
		t.Errorf("the client's own skills are %q; skillwire knows %q", skills, want)
	}
	var wantAgents []string
	for _, a := range builtin.Agents {
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

// offeredTools are the tools the first main request offers: its tools
// array, and the deferred tools it names for ToolSearch to load.
func offeredTools(t *testing.T, m *Model) []string {
	t.Helper()
	var out []string
	for _, r := range m.Requests() {
		if !r.Main {
			continue
		}
		tools, _ := r.Body["tools"].([]any)
		for _, tl := range tools {
			tm, _ := tl.(map[string]any)
			name, _ := tm["name"].(string)
			out = append(out, name)
		}
		break
	}
	// The heading's sentence goes on to the end of its line. One name a
	// line follows, up to a blank line.
	block := sentBlock(t, m, "The following deferred tools are now available via ToolSearch.")
	_, names, _ := strings.Cut(block, "\n")
	for _, line := range strings.Split(names, "\n") {
		if line == "" {
			break
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// The client's own tools are exactly builtin.Tools. A tool on one side only
// fails, named. Each one the table says the gate sees is matched by the
// PreToolUse matcher `hook install` writes. Each other one is not, and
// says why it needs no gate.
func TestTheClientsToolsAreTheOnesSkillwireKnows(t *testing.T) {
	t.Parallel()
	w := NewWorld(t)
	m := model(t, nil)
	w.Claude(m, Run{Prompt: "hello"})
	offered := offeredTools(t, m)
	known := map[string]builtin.Tool{}
	for _, tl := range builtin.Tools {
		known[tl.Name] = tl
	}
	for _, name := range offered {
		if _, ok := known[name]; !ok {
			t.Errorf("the client offers the tool %q; builtin.Tools does not know it", name)
		}
	}
	for _, tl := range builtin.Tools {
		if !slices.Contains(offered, tl.Name) {
			t.Errorf("builtin.Tools knows the tool %q; the client does not offer it (offered %q)", tl.Name, offered)
		}
	}
	matcher := preToolUseMatcher(t)
	for _, tl := range builtin.Tools {
		switch {
		case tl.Hook != "" && !matcher.MatchString(tl.Hook):
			t.Errorf("builtin.Tools says the gate sees %q as %q; the PreToolUse matcher %q does not match it", tl.Name, tl.Hook, matcher)
		case tl.Hook == "" && matcher.MatchString(tl.Name):
			t.Errorf("the PreToolUse matcher %q matches %q; builtin.Tools says the gate does not see it", matcher, tl.Name)
		case tl.Why == "":
			t.Errorf("builtin.Tools gives no reason for %q", tl.Name)
		}
	}
}

// preToolUseMatcher is the matcher `hook install` writes for PreToolUse.
func preToolUseMatcher(t *testing.T) *regexp.Regexp {
	t.Helper()
	for _, h := range settings.HookSpecs {
		if h.Event == hookio.EventPreToolUse {
			return regexp.MustCompile(h.Matcher)
		}
	}
	t.Fatal("hook install writes no PreToolUse hook")
	return nil
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
