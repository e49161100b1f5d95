package claude

import (
	"strings"
	"unicode"

	"github.com/skillwire/skillwire/claude/jstext"
	"golang.org/x/text/unicode/norm"
)

// The client resolves the names a model writes more loosely than it
// spells them. These rules are the client's, as of 2.1.328. The e2e cases
// TestSpellingsTheClientAcceptsAreHeld and their controls pin them. The
// gate resolves every name through them. So a spelling the client accepts
// is never one the gate does not know.

// SkillName is the name the client looks a Skill tool call's skill up by.
// It is trimmed as JavaScript trims, then one leading "/" is dropped.
// "/evil" and " evil" load evil; "//evil" and "/ evil" load nothing. Case
// is kept: "Evil" loads nothing.
func SkillName(raw string) string {
	s := strings.TrimFunc(raw, jstext.Space)
	return strings.TrimPrefix(s, "/")
}

// AgentKey is the form in which two agent names are the same agent to the
// client. The client folds compatibility forms and case. It drops spaces,
// dashes and underscores. "EvilAgent", "evil_agent", "ＥＶＩＬＡＧＥＮＴ" and
// "evil—agent" all run evilagent; "evil.agent" does not. The key drops
// every rune but letters, digits, "." and ":". That is a superset of what
// the client drops. A key may join names the client keeps apart, never
// the reverse. So the gate judges at least every agent a name can run.
func AgentKey(name string) string {
	// Lowering can leave a string that NFKC changes again (U+03D4). NFKC
	// can leave one that lowering changes. So fold until neither does,
	// and a key is its own key.
	k := name
	for range 4 {
		next := agentFold(k)
		if next == k {
			break
		}
		k = next
	}
	return k
}

func agentFold(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(name) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsNumber(r), r == '.', r == ':':
			b.WriteRune(r)
		}
	}
	return b.String()
}
