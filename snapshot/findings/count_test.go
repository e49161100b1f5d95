package findings

import "testing"

func TestCountsCountTheLinesCutAtMaxPerKind(t *testing.T) {
	var fs []Finding
	for range MaxPerKind {
		fs = append(fs, Finding{Kind: Bidi, Line: 3, Text: `"x"`})
	}
	fs = append(fs, Finding{Kind: Bidi, Text: `"5 more in this file"`},
		Finding{Kind: Unscanned, Text: `"its content was not read"`},
		Finding{Kind: InvisibleUnicode, Line: 1, Text: `"y"`})
	got := CountText(Counts(fs))
	if want := "27 content findings (1 invisible-unicode, 25 bidi, 1 unscanned)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := CountText(Counts(fs[:1])); got != "1 content finding (1 bidi)" {
		t.Errorf("one: got %q", got)
	}
	if CountText(nil) != "" {
		t.Error("no findings: want no text")
	}
}
