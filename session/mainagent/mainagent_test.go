package mainagent

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

func plugin(root claude.Root, name string) *baseline.Standing {
	return &baseline.Standing{ID: "swplugin", Root: root, Name: []byte(name), Observed: &walker.Candidate{Name: []byte(name),
		Manifest: snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.Dir},
			{Path: []byte("agents/pagent.md"), Kind: snapshot.File},
			{Path: []byte("agents/deep/inner.md"), Kind: snapshot.File},
			{Path: []byte("skills/sk/SKILL.md"), Kind: snapshot.File}}}}}
}

// A settings "agent" naming a plugin's agent is not matched for the
// main-agent line (issue 32). A plugin answers by one of its agents/*.md,
// bare or as "plugin:agent", folded as the client folds agent names.
// Controls: another plugin's name, a nested file, a skill, no such agent.
func TestAPluginsAgentAnswersAsTheMainAgent(t *testing.T) {
	cached := plugin(claude.Root{Path: "/cache", Scope: claude.Global, Kind: claude.Plugins}, "mkt/plug/1.0.0")
	nameless := plugin(claude.Root{Path: "/market", Scope: claude.Global, Kind: claude.PluginSources, Sources: map[string]string{}}, "plug")
	for _, tc := range []struct {
		st   *baseline.Standing
		name string
		want bool
		why  string
	}{
		{cached, "plug:pagent", true, "by plugin:agent"},
		{cached, "pagent", true, "by its bare name"},
		{cached, "PAgent", true, "folded"},
		{cached, "other:pagent", false, "another plugin's"},
		{cached, "plug:inner", false, "a nested file is no agent"},
		{cached, "plug:sk", false, "a skill"},
		{cached, "plug:ghost", false, "no such agent"},
		{nameless, "any:pagent", true, "a plugin whose name is unread answers to any"},
	} {
		if got := AnswersAs(tc.st, tc.name); got != tc.want {
			t.Errorf("%s %q: %v, want %v (%s)", tc.st.Name, tc.name, got, tc.want, tc.why)
		}
	}
}

// A name no observed agent answers to is unknown. Controls: a built-in's
// name, and the plugin's own agent.
func TestAMainAgentNoObservedAgentAnswersToIsUnknown(t *testing.T) {
	cfg := baseline.Standing{Root: claude.Root{Path: "/proj/.claude", Scope: claude.Project, Kind: claude.Config}, Name: []byte("settings.json")}
	for name, want := range map[string]bool{"plug:ghost": true, "ghost": true, "general-purpose": false, "plug:pagent": false} {
		c := cfg
		c.Observed = &walker.Candidate{Name: c.Name, Canonical: []byte(`{"agent":"` + name + `"}`)}
		ms := Of([]baseline.Standing{c, *plugin(claude.Root{Path: "/cache", Scope: claude.Global, Kind: claude.Plugins}, "mkt/plug/1.0.0")})
		if len(ms) != 1 || ms[0].Unknown() != want {
			t.Errorf("%q: %+v, want one match, unknown %v", name, ms, want)
		}
	}
	if s := Shown("a\x1b[31m"); !strings.HasPrefix(s, "an agent whose name is hidden (#") || strings.ContainsRune(s, 0x1b) {
		t.Errorf("an ungated name shown as %q", s)
	}
	if s := Shown("plug:pagent"); s != `agent "plug:pagent"` {
		t.Errorf("a plugin's agent shown as %q", s)
	}
}
