package anomaly

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/zeebo/blake3"
)

func TestReasonNamesRoundTripAndAreTheContractsSet(t *testing.T) {
	want := []string{"symlink", "special", "unreadable", "oversize", "unstable", "swapped", "depth", "fanout", "badname", "root", "budget", "unparsable", "duplicatekey", "alias", "multidocument"}
	if int(maxReason)-1 != len(want) {
		t.Fatalf("%d reasons", maxReason-1)
	}
	for i := range want {
		r := Reason(i + 1)
		if r.String() != want[i] {
			t.Errorf("reason %d = %s, want %s", r, r, want[i])
		}
		text, err := r.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Reason
		if err := back.UnmarshalText(text); err != nil || back != r {
			t.Errorf("%s round trip: %v %v", r, back, err)
		}
	}
	if _, err := Reason(0).MarshalText(); err == nil {
		t.Error("zero reason marshalled")
	}
	var r Reason
	if r.UnmarshalText([]byte("Symlink")) == nil {
		t.Error("parse is case-insensitive")
	}
}

func TestDisplayGate(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"my-skill", true},
		{"A", true},
		{"v1.2_beta", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{".hidden", false},
		{"-flag", false},
		{"_x", false},
		{"has space", false},
		{"$(rm -rf ~)", false},
		{"`id`", false},
		{"a\nb", false},
		{"\x1b[31mred", false},
		{"caf\xc3\xa9", false},
		{"\xff", false},
		{"evil\u202etxt.md", false},
		{"a/b", false},
		{"swabcdefghijklmn", false}, // shaped like a minted id
		{"SWABCDEFGHIJKLMN", false},
		{"swabcdefghijklm", true}, // one short of the id shape
		{"swabcdefghijklmno", true},
		{"swift", true},
		{"sw0bcdefghijklmn", true}, // 0 is not in the id alphabet
	}
	for _, c := range cases {
		if got := Gate([]byte(c.name)); got != c.ok {
			t.Errorf("Gate(%q) = %v, want %v", c.name, got, c.ok)
		}
	}
}

var idRE = regexp.MustCompile(`^sw[a-z2-7]{14}$`)

func TestMintedIDsHaveOneShapeAndDependOnKeyRootAndName(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, KeySize), bytes.Repeat([]byte{2}, KeySize)
	id := func(k []byte, root, name string) string {
		m, err := NewMinter(k)
		if err != nil {
			t.Fatal(err)
		}
		s := m.ID(root, []byte(name))
		if !idRE.MatchString(s) || !IsID(s) {
			t.Fatalf("id %q has the wrong shape", s)
		}
		if Gate([]byte(s)) {
			t.Fatalf("the gate lets the id %q pass as a name", s)
		}
		return s
	}
	a := id(k1, "/r", "skill")
	if a != id(k1, "/r", "skill") {
		t.Fatal("not stable")
	}
	for _, other := range []string{id(k2, "/r", "skill"), id(k1, "/r2", "skill"), id(k1, "/r", "skill2"), id(k1, "/rs", "kill")} {
		if other == a {
			t.Fatal("id does not depend on key, root and name (with boundaries)")
		}
	}
	if _, err := NewMinter([]byte("short")); err != ErrKey {
		t.Fatalf("short key: %v", err)
	}
	if !IsIDPrefix(a[:6]) || IsIDPrefix(a[:5]) || IsIDPrefix("sw$(x)") || IsIDPrefix(a+"a") {
		t.Fatal("IsIDPrefix")
	}
}

func TestPathLabelNeverShowsPathBytes(t *testing.T) {
	if PathLabel(nil) != "<root>" {
		t.Fatal("root label")
	}
	re := regexp.MustCompile(`^depth([0-9]+)/[0-9a-f]{16}$`)
	for path, depth := range map[string]string{"a": "1", "a/b": "2", "$(x)/`y`/\n": "3"} {
		l := PathLabel([]byte(path))
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != depth {
			t.Errorf("PathLabel(%q) = %q", path, l)
		}
	}
	if PathLabel([]byte("a/b")) == PathLabel([]byte("a/c")) {
		t.Fatal("labels collide")
	}
}

func FuzzGate(f *testing.F) {
	for _, s := range []string{"ok", "$(x)", "a\nb", "swabcdefghijklmn", strings.Repeat("z", 64)} {
		f.Add([]byte(s))
	}
	shown := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	f.Fuzz(func(t *testing.T, name []byte) {
		if Gate(name) {
			if !shown.Match(name) || IsID(strings.ToLower(string(name))) {
				t.Fatalf("gate passed %q", name)
			}
		} else if shown.Match(name) && !IsID(strings.ToLower(string(name))) {
			t.Fatalf("gate refused %q", name)
		}
	})
}

// A reused Minter gives every id exactly as a fresh keyed BLAKE3 of the
// length-prefixed fields would. It does so in any order, from any
// goroutine.
func TestMinterReuseGivesTheKeyedHashOfEachCandidate(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	want := func(root string, name []byte) string {
		h, err := blake3.NewKeyed(key)
		if err != nil {
			t.Fatal(err)
		}
		msg := binary.AppendUvarint(nil, uint64(len(root)))
		msg = append(msg, root...)
		msg = binary.AppendUvarint(msg, uint64(len(name)))
		msg = append(msg, name...)
		h.Write(msg)
		return IDPrefix + idEncoding.EncodeToString(h.Sum(nil)[:9])[:IDLen-len(IDPrefix)]
	}
	m, err := NewMinter(key)
	if err != nil {
		t.Fatal(err)
	}
	names := [][]byte{[]byte("alpha"), []byte("a\nb"), {0xff}, bytes.Repeat([]byte("x"), 300)}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := names[(g+i)%len(names)]
				if got, w := m.ID("skills", name), want("skills", name); got != w {
					t.Errorf("%q: %s, want %s", name, got, w)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := NewMinter(key[:31]); err != ErrKey {
		t.Fatalf("short key: %v", err)
	}
}

func TestGatePathPassesOnlyWhenEveryComponentPasses(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"", true},
		{"SKILL.md", true},
		{"lib/x.py", true},
		{"lib/$(x)", false},
		{"a\nb/c", false},
		{"lib//x.py", false},
		{"lib/", false},
		{"./x", false},
		{"sw" + strings.Repeat("a", 14) + "/x", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := GatePath([]byte(tc.path)); got != tc.want {
				t.Fatalf("GatePath(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// Readable paths, one way everywhere (issue 23). A component that passes
// the display rules is shown as is, a leading dot included. Only a failing
// component, "." and ".." too, is shown by its hash.
func TestReadablePathsOneWayEverywhere(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{".claude-plugin/plugin.json", ".claude-plugin/plugin.json"},
		{".hidden/notes.md", ".hidden/notes.md"},
		{"node_modules/@scope/pkg/index.js", "node_modules/@scope/pkg/index.js"},
		{"a/../b", "a/#" + NameHash([]byte("..")) + "/b"},
		{"scripts/$(touch pwned)\n", "scripts/#" + NameHash([]byte("$(touch pwned)\n"))},
		{"x/\u202eevil", "x/#" + NameHash([]byte("\u202eevil"))},
		{"", "<root>"},
	} {
		if got := ShowPath([]byte(tc.in)); got != tc.want {
			t.Errorf("ShowPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := ShowPath([]byte(strings.Repeat("a/", 100) + "b")); !strings.HasPrefix(got, "depth101/") {
		t.Errorf("a path past MaxPathShown is %q, want its label", got)
	}
}

// A file outside the candidate is shown under skillwire's anchor, as its
// configuration spells it (issue #23). "." and ".." are shown as written.
// Every other component that fails the display rules is shown by its hash:
// a control byte, bytes that are not UTF-8, a bidi override, shell syntax,
// one past MaxNameLen. Past MaxPathShown it is not shown at all (ok
// false).
func TestShowOutsideHidesEveryFailingComponent(t *testing.T) {
	for _, tc := range []struct{ anchor, rel, want string }{
		{"~/", ".claude/hooks/format.sh", "~/.claude/hooks/format.sh"},
		{"$CLAUDE_PROJECT_DIR/", "./hooks/../x.sh", "$CLAUDE_PROJECT_DIR/./hooks/../x.sh"},
		{"/", "opt/x\x1b[31m.sh", "/opt/#" + NameHash([]byte("x\x1b[31m.sh"))},
		{"/", "opt/\xff\xfe.sh", "/opt/#" + NameHash([]byte("\xff\xfe.sh"))},
		{"~/", "\u202eevil.sh", "~/#" + NameHash([]byte("\u202eevil.sh"))},
		{"~/", "$(curl x)/y.sh", "~/#" + NameHash([]byte("$(curl x)")) + "/y.sh"},
		{"~/", "a//b", "~/a/#" + NameHash(nil) + "/b"},
		{"~/", strings.Repeat("y", MaxNameLen+1), "~/#" + NameHash([]byte(strings.Repeat("y", MaxNameLen+1)))},
	} {
		got, ok := ShowOutside(tc.anchor, []byte(tc.rel))
		if !ok || got != tc.want {
			t.Errorf("ShowOutside(%q, %q) = %q %v, want %q", tc.anchor, tc.rel, got, ok, tc.want)
		}
	}
	if _, ok := ShowOutside("~/", []byte(strings.Repeat("d/", 80)+"x.sh")); ok {
		t.Error("a path past MaxPathShown is shown")
	}
	// Control: inside a candidate, "." and ".." are still hidden.
	if got := ShowPath([]byte("a/../b")); strings.Contains(got, "..") {
		t.Errorf("ShowPath shows %q", got)
	}
	// A Names shows what it holds, and everything else by ShowPath.
	n := Names{"scripts/00": "~/x.sh"}
	if n.Show([]byte("scripts/00")) != "~/x.sh" || n.Show([]byte("scripts/01")) != "scripts/01" || Names(nil).Show(nil) != "<root>" {
		t.Error("Names.Show")
	}
}

// No shown path holds a byte outside [A-Za-z0-9._@+/#-] past its anchor,
// whatever the input. The one exception is the candidate's label, "<root>".
func FuzzShowPaths(f *testing.F) {
	for _, s := range []string{"a/b", "a/../b", "x\x1b[31m", "\xff/\u202e", strings.Repeat("z/", 90)} {
		f.Add([]byte(s))
	}
	shown := regexp.MustCompile(`^[A-Za-z0-9._@+/#-]*$`)
	f.Fuzz(func(t *testing.T, path []byte) {
		for _, s := range []string{ShowPath(path), func() string { s, _ := ShowOutside("~/", path); return s[2:] }()} {
			if !shown.MatchString(s) && s != "<root>" {
				t.Fatalf("%q is shown as %q", path, s)
			}
		}
		if s, ok := ShowOutside("~/", path); ok && len(s) > MaxPathShown {
			t.Fatalf("%q is shown past MaxPathShown: %d bytes", path, len(s))
		}
	})
}
