package claude

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
)

// FuzzWholeJSON: a plugin registry is either refused with one reason or
// kept in a canonical form that is its own canonical form.
func FuzzDisplayAndSplit(f *testing.F) {
	for _, s := range []string{"acme/fmt/1.0", "pdf", ".mcp.json", "a/b", "a/b/c/d", "x\x1b/y/z", "a//b", ".hidden-tools", ".claude", ".git", "..x", ".json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, k := range []Kind{Skills, Config, Plugins} {
			if shown, ok := Display(k, []byte(name)); ok {
				for _, c := range strings.FieldsFunc(shown, func(r rune) bool { return r == '@' || r == '/' }) {
					// A skill shown under its leading dot: one dot, then a gated
					// name, and never a configuration file's (DotName).
					dotted := k == Skills && shown == name && c[0] == '.' && anomaly.Gate([]byte(c[1:])) &&
						CandidateKind(Config, []byte(c)) == "" && !strings.HasSuffix(strings.ToLower(c), ".json")
					if !anomaly.Gate([]byte(c)) && !(k == Config && shown == name) && !dotted {
						t.Fatalf("%s %q shown as %q", k, name, shown)
					}
				}
			}
			if cand, nested, ok := (Root{Kind: k}).Split(name); ok && (!strings.HasPrefix(name, cand) || nested != (len(name) > len(cand))) {
				t.Fatalf("%s %q split as %q nested %v", k, name, cand, nested)
			}
		}
	})
}

// FuzzClaudeJSONServers: ~/.claude.json is refused with one reason or kept
// in a form that decodes. That form has no key but the two it keeps.
