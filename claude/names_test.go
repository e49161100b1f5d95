package claude

import (
	"strings"
	"testing"
)

// Each row is a spelling the real client was seen to resolve, or not. The
// e2e suite pins the same rows against the client.
func TestSkillNameResolvesAsTheClientDoes(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"evil", "evil"},
		{"/evil", "evil"},
		{" evil", "evil"},
		{"evil ", "evil"},
		{"\tevil\n", "evil"},
		{"evil\u00a0", "evil"},
		{"\u3000evil", "evil"},
		{"\ufeffevil", "evil"},
		{"//evil", "/evil"},          // one slash only: unknown to the client
		{"/ evil", " evil"},          // no trim after the slash
		{"/\tevil", "\tevil"},        //
		{"\u0085evil", "\u0085evil"}, // not JavaScript white space
		{"\u200bevil", "\u200bevil"},
		{"Evil", "Evil"}, // case is kept
		{"plug:ps", "plug:ps"},
		{"", ""},
		{"/", ""},
	} {
		if got := SkillName(tc.raw); got != tc.want {
			t.Errorf("SkillName(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestAgentKeyJoinsEverySpellingTheClientRuns(t *testing.T) {
	same := []string{"evilagent", "EvilAgent", "EVILAGENT", " evilagent", "evilagent ", "evilagent\n",
		"\u0085evilagent", "Evil-Agent", "evil_agent", "evil agent", "e-v-i-l-agent", "-evilagent",
		"evilagent-", "evil--agent", "ＥＶＩＬＡＧＥＮＴ", "evil\u2010agent", "evil\u2014agent"}
	for _, s := range same {
		if AgentKey(s) != AgentKey("evilagent") {
			t.Errorf("AgentKey(%q) = %q, not the key of evilagent", s, AgentKey(s))
		}
	}
	// Spellings the client does not run as evilagent. The key may still
	// join some of them, as a superset, but these it keeps apart.
	for _, s := range []string{"evil.agent", "evilagent.", "evilagent.md", "evil:agent", "ev1lagent", "user:evilagent", ""} {
		if AgentKey(s) == AgentKey("evilagent") {
			t.Errorf("AgentKey(%q) joins evilagent", s)
		}
	}
}

func FuzzAgentKeyIsIdempotent(f *testing.F) {
	for _, s := range []string{"EvilAgent", "ＥＶＩＬ", "a\u0301", "İ", "ß", "ﬁ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := AgentKey(s)
		if AgentKey(k) != k {
			t.Errorf("AgentKey(AgentKey(%q)) = %q, not %q", s, AgentKey(k), k)
		}
		// The client applies SkillName once: "/ x" is " x", unknown. So
		// it is not idempotent. It only ever removes a prefix and a
		// suffix.
		if n := SkillName(s); !strings.Contains(s, n) {
			t.Errorf("SkillName(%q) = %q, not a part of it", s, n)
		}
	})
}
