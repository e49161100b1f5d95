package verdict

import "testing"

// TestSpellingIsExactAndOnlySafeDoesNotWarn: a verdict is recognised only as
// spelled, never normalized. Every valid verdict but Safe warns.
func TestSpellingIsExactAndOnlySafeDoesNotWarn(t *testing.T) {
	for _, c := range []struct {
		v              string
		valid, adverse bool
	}{
		{Safe, true, false},
		{Suspect, true, true},
		{Block, true, true},
		{"", false, false},
		{"block", false, false},
		{"SAFE", false, false},
		{"BLOCK ", false, false},
	} {
		if Valid(c.v) != c.valid || Adverse(c.v) != c.adverse {
			t.Errorf("%q: Valid %v, Adverse %v; want %v, %v", c.v, Valid(c.v), Adverse(c.v), c.valid, c.adverse)
		}
	}
}
