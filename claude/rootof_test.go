package claude

import "testing"

func TestRootOfObservesACandidateAsScanDoes(t *testing.T) {
	p := Places{Config: "/h/.claude", Project: "/w", Home: "/h"}
	for _, tc := range []struct {
		dir, name string
		kind      Kind
		cand      string
		ok        bool
	}{
		{"/h/.claude/skills", "pdf", Skills, "pdf", true},
		{"/h/.claude", "settings.json", Config, "settings.json", true},
		{"/w", ".mcp.json", Config, ".mcp.json", true},
		{"/h/.claude/plugins/cache/m/p", "1.0", Plugins, "m/p/1.0", true},
		{"/h/.claude/plugins/cache", "m", "", "", false}, // a marketplace is no candidate
		{"/elsewhere", "settings.json", Config, "settings.json", true},
		{"/elsewhere", "tool", "", "", false},
	} {
		r, cand, ok := p.RootOf(tc.dir, tc.name)
		if ok != tc.ok || ok && (r.Kind != tc.kind || cand != tc.cand) {
			t.Errorf("RootOf(%s, %s) = %v %q %v, want %v %q %v", tc.dir, tc.name, r.Kind, cand, ok, tc.kind, tc.cand, tc.ok)
		}
	}
}
