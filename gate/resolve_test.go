package gate

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/claude/resolve"
)

func cand(id string, k resolve.Kind, s resolve.Scope, folder, name, plugin string) resolve.Candidate {
	c := resolve.Candidate{ID: id, Kind: k, Scope: s, Folder: []byte(folder)}
	if name != "" {
		c.Name = []byte(name)
	}
	if plugin != "" {
		c.Plugin = []byte(plugin)
	}
	return c
}

// FuzzResolve holds Resolve to its bytes: whatever is typed, a match answers
// to a name equal to what was typed, and a reason for it stays ASCII.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"pdf", "docs:pdf", "../pdf", "a:b:c", ":pdf", "pdf:", "swabcdefghijklmn", "p\x1bdf"} {
		f.Add(s, []byte("pdf"), []byte("docs"))
	}
	f.Fuzz(func(t *testing.T, typed string, folder, plugin []byte) {
		cands := []resolve.Candidate{
			{ID: testID, Kind: resolve.Skill, Scope: resolve.User, Folder: folder},
			{ID: testID, Kind: resolve.Skill, Scope: resolve.Plugin, Folder: folder, Plugin: plugin},
			{ID: testID, Kind: resolve.Command, Scope: resolve.Project, Folder: []byte(typed), Name: folder},
		}
		for _, c := range resolve.Resolve(resolve.Skill, typed, cands) {
			_, local, ok := strings.Cut(typed, ":")
			if !ok {
				local = typed
			}
			if string(c.Folder) != local && string(c.Name) != local {
				t.Fatalf("%q matched %+v", typed, c)
			}
			for _, b := range []byte(Reason(Finding{Candidate: c, State: New})) {
				if b < 0x20 || b > 0x7e {
					t.Fatalf("byte %#x", b)
				}
			}
		}
	})
}
