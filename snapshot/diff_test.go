package snapshot

import (
	"fmt"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
)

func changes(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %q", c.Type, c.Path))
	}
	return out
}

func withMode(e Entry, mode uint32) Entry { e.Mode = mode; return e }

func TestDiffTellsEveryKindOfChangeApart(t *testing.T) {
	base := manifest(dir(""), file("SKILL.md", "hello"), dir("lib"), file("lib/x.py", "print(1)"))
	cases := []struct {
		name     string
		old, new *Manifest
		want     []string
	}{
		{"identical", base, base, []string{}},
		{"added file", base,
			manifest(dir(""), file("SKILL.md", "hello"), dir("lib"), file("lib/x.py", "print(1)"), file("lib/y.py", "")),
			[]string{`added "lib/y.py"`}},
		{"removed file", base,
			manifest(dir(""), file("SKILL.md", "hello"), dir("lib")),
			[]string{`removed "lib/x.py"`}},
		{"same size other content", base,
			manifest(dir(""), file("SKILL.md", "hellO"), dir("lib"), file("lib/x.py", "print(1)")),
			[]string{`modified "SKILL.md"`}},
		{"mode only", base,
			manifest(dir(""), withMode(file("SKILL.md", "hello"), 0o755), dir("lib"), file("lib/x.py", "print(1)")),
			[]string{`mode "SKILL.md"`}},
		{"content and mode is modified", base,
			manifest(dir(""), withMode(file("SKILL.md", "bye"), 0o755), dir("lib"), file("lib/x.py", "print(1)")),
			[]string{`modified "SKILL.md"`}},
		{"directory mode", base,
			manifest(dir(""), file("SKILL.md", "hello"), withMode(dir("lib"), 0o700), file("lib/x.py", "print(1)")),
			[]string{`mode "lib"`}},
		{"file became a symlink", base,
			manifest(dir(""), Entry{Path: []byte("SKILL.md"), Kind: Symlink, Target: []byte("/etc/passwd")}, dir("lib"), file("lib/x.py", "print(1)")),
			[]string{`modified "SKILL.md"`}},
		{"file became unreadable", base,
			manifest(dir(""), Entry{Path: []byte("SKILL.md"), Kind: Anomaly, Reason: anomaly.Unreadable}, dir("lib"), file("lib/x.py", "print(1)")),
			[]string{`modified "SKILL.md"`}},
		{"directory replaced by a file", base,
			manifest(dir(""), file("SKILL.md", "hello"), file("lib", "")),
			[]string{`modified "lib"`, `removed "lib/x.py"`}},
		{"add, modify and remove at once", base,
			manifest(dir(""), file("NEW.md", ""), file("SKILL.md", "changed"), dir("lib")),
			[]string{`added "NEW.md"`, `modified "SKILL.md"`, `removed "lib/x.py"`}},
		{"candidate gone", base, nil,
			[]string{`removed ""`, `removed "SKILL.md"`, `removed "lib"`, `removed "lib/x.py"`}},
		{"candidate appeared", nil, manifest(dir(""), file("a", "")),
			[]string{`added ""`, `added "a"`}},
		// '/' sorts before every other byte. So "a/x" < "a.b" must not be
		// mistaken for a removal and an addition.
		{"component order", manifest(dir(""), dir("a"), file("a/x", ""), file("a.b", "")),
			manifest(dir(""), dir("a"), file("a/x", "1"), file("a.b", "")),
			[]string{`modified "a/x"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := changes(Diff(tc.old, tc.new)); !slices.Equal(got, tc.want) {
				t.Fatalf("Diff = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDiffSeesARetargetedTopLevelLinkAsAModifiedCandidate(t *testing.T) {
	a := &Manifest{ViaLink: true, Link: []byte("/checkout/a"), Entries: []Entry{dir(""), file("f", "x")}}
	b := &Manifest{ViaLink: true, Link: []byte("/checkout/b"), Entries: []Entry{dir(""), file("f", "x")}}
	if got, want := changes(Diff(a, b)), []string{`modified ""`}; !slices.Equal(got, want) {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
	plain := &Manifest{Entries: []Entry{dir(""), file("f", "x")}}
	if got, want := changes(Diff(plain, a)), []string{`modified ""`}; !slices.Equal(got, want) {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
}

func TestDiffPointsIntoBothManifests(t *testing.T) {
	old := manifest(dir(""), file("f", "one"))
	new := manifest(dir(""), file("f", "two"))
	cs := Diff(old, new)
	if len(cs) != 1 || cs[0].Old != &old.Entries[1] || cs[0].New != &new.Entries[1] {
		t.Fatalf("Diff = %+v", cs)
	}
	if string(cs[0].Path) != "f" {
		t.Fatalf("path %q", cs[0].Path)
	}
}

func TestChangeTypeNamesAreTheJSONContract(t *testing.T) {
	for typ, want := range map[ChangeType]string{Added: "added", Removed: "removed", Modified: "modified", ModeChanged: "mode"} {
		b, err := typ.MarshalText()
		if err != nil || string(b) != want {
			t.Fatalf("%d marshals as %q, %v; want %q", typ, b, err, want)
		}
	}
}

// Diff of random manifests agrees with a map-based reference.
func FuzzDiff(f *testing.F) {
	f.Add([]byte("a\x00b\x01c"), []byte("a\x01b"))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		mk := func(b []byte) *Manifest {
			m := &Manifest{}
			seen := map[string]bool{}
			for i := 0; i+1 < len(b); i += 2 {
				p := fmt.Sprintf("p%d", b[i]%8)
				if seen[p] {
					continue
				}
				seen[p] = true
				m.Entries = append(m.Entries, file(p, string(rune('a'+b[i+1]%3))))
				m.Entries[len(m.Entries)-1].Mode = 0o600 + uint32(b[i+1]/3%2)
			}
			slices.SortFunc(m.Entries, func(a, b Entry) int { return ComparePaths(a.Path, b.Path) })
			return m
		}
		old, new := mk(x), mk(y)
		want := map[string]ChangeType{}
		om := map[string]Entry{}
		for _, e := range old.Entries {
			om[string(e.Path)] = e
		}
		for _, e := range new.Entries {
			o, ok := om[string(e.Path)]
			delete(om, string(e.Path))
			switch {
			case !ok:
				want[string(e.Path)] = Added
			case o.Hash != e.Hash || o.Size != e.Size:
				want[string(e.Path)] = Modified
			case o.Mode != e.Mode:
				want[string(e.Path)] = ModeChanged
			}
		}
		for p := range om {
			want[p] = Removed
		}
		got := map[string]ChangeType{}
		for _, c := range Diff(old, new) {
			got[string(c.Path)] = c.Type
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Diff = %v, want %v", got, want)
		}
	})
}
