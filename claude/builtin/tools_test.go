package builtin

import "testing"

// Each tool is named once, in order, and says how the gate judges it or
// why it needs no gate.
func TestToolsAreNamedOnceAndEachSaysWhy(t *testing.T) {
	for i, tl := range Tools {
		if tl.Name == "" || tl.Why == "" {
			t.Errorf("tool %d (%q) has no name or no reason", i, tl.Name)
		}
		if i > 0 && Tools[i-1].Name >= tl.Name {
			t.Errorf("%q comes after %q: the table is not in order", tl.Name, Tools[i-1].Name)
		}
	}
}
