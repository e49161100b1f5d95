package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/zeebo/blake3"
)

func file(path, content string) Entry {
	return Entry{Path: []byte(path), Kind: File, Size: int64(len(content)), Mode: 0o644, Hash: Hash(sum(content))}
}

func sum(s string) [32]byte {
	var h [32]byte
	copy(h[:], s) // a stand-in content hash: distinct contents, distinct values
	h[31] = byte(len(s))
	return h
}

func dir(path string) Entry { return Entry{Path: []byte(path), Kind: Dir, Mode: 0o755} }

func manifest(es ...Entry) *Manifest { return &Manifest{Entries: es} }

func digest(t *testing.T, m *Manifest) Hash {
	t.Helper()
	d, err := m.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestEncodingIsInjectiveOnCraftedPairs(t *testing.T) {
	pairs := []struct {
		name string
		a, b *Manifest
	}{
		{"a/bc vs ab/c",
			manifest(dir(""), dir("a"), file("a/bc", "")),
			manifest(dir(""), dir("ab"), file("ab/c", ""))},
		{"x holding y vs empty xy",
			manifest(dir(""), file("x", "y")),
			manifest(dir(""), file("xy", ""))},
		{"unreadable x vs link x whose target is the reason's name",
			manifest(dir(""), Entry{Path: []byte("x"), Kind: Anomaly, Reason: anomaly.Unreadable}),
			manifest(dir(""), Entry{Path: []byte("x"), Kind: Symlink, Target: []byte("unreadable")})},
		{"anomaly vs file named like it",
			manifest(dir(""), Entry{Path: []byte("x"), Kind: Anomaly, Reason: anomaly.Special}),
			manifest(dir(""), file("x", "special"))},
		{"newline in a name vs two entries",
			manifest(dir(""), file("a\nb", "")),
			manifest(dir(""), file("a", ""), file("b", ""))},
		{"partial vs complete",
			&Manifest{Entries: []Entry{dir("")}, Partial: true},
			manifest(dir(""))},
		{"via link vs not",
			&Manifest{Entries: []Entry{dir("")}, ViaLink: true, Link: []byte("../x")},
			manifest(dir(""))},
		{"link text vs first path",
			&Manifest{Entries: []Entry{dir("")}, ViaLink: true, Link: []byte("")},
			manifest(dir(""))},
		{"mode",
			manifest(Entry{Kind: Dir, Mode: 0o755}),
			manifest(Entry{Kind: Dir, Mode: 0o750})},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			ea, err := p.a.AppendEncoding(nil)
			if err != nil {
				t.Fatal(err)
			}
			eb, err := p.b.AppendEncoding(nil)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(ea, eb) || digest(t, p.a) == digest(t, p.b) {
				t.Fatal("two different manifests share an encoding")
			}
		})
	}
}

func TestDecodeIsTheLeftInverseOfEncode(t *testing.T) {
	m := &Manifest{ViaLink: true, Link: []byte("../checkout/s"), Partial: true, Entries: []Entry{
		dir(""), file("a", "x"), dir("a b"), {Path: []byte("a b/l"), Kind: Symlink, Target: []byte("/etc\n")},
		{Path: []byte("z\xff"), Kind: Anomaly, Reason: anomaly.Swapped},
	}}
	enc, err := m.AppendEncoding(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(m) {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestNonCanonicalManifestsAreRefusedNotFixed(t *testing.T) {
	cases := map[string]*Manifest{
		"unsorted":         manifest(file("b", ""), file("a", "")),
		"duplicate":        manifest(file("a", ""), file("a", "x")),
		"empty component":  manifest(file("a//b", "")),
		"dot":              manifest(file("./a", "")),
		"dotdot":           manifest(file("a/..", "")),
		"NUL":              manifest(file("a\x00", "")),
		"trailing slash":   manifest(file("a/", "")),
		"leading slash":    manifest(file("/a", "")),
		"mode bits":        manifest(Entry{Path: []byte("a"), Kind: Dir, Mode: 0o40755}),
		"unknown kind":     manifest(Entry{Path: []byte("a"), Kind: 9}),
		"unknown reason":   manifest(Entry{Path: []byte("a"), Kind: Anomaly, Reason: 200}),
		"symlink no text":  manifest(Entry{Path: []byte("a"), Kind: Symlink}),
		"link without via": {Link: []byte("x")},
		"negative size":    manifest(Entry{Path: []byte("a"), Kind: File, Size: -1}),
	}
	for name, m := range cases {
		if _, err := m.AppendEncoding(nil); !errors.Is(err, ErrNotCanonical) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := m.Digest(); err == nil {
			t.Errorf("%s: digest of a non-canonical manifest", name)
		}
	}
}

func TestDecodeRejectsEveryOtherByteString(t *testing.T) {
	m := manifest(dir(""), file("a", "x"))
	enc, _ := m.AppendEncoding(nil)
	bad := map[string][]byte{
		"empty":          nil,
		"version 2":      append([]byte{2}, enc[1:]...),
		"trailing":       append(bytes.Clone(enc), 0),
		"truncated":      enc[:len(enc)-1],
		"overlong count": append([]byte{1, 0, 0x82, 0x00}, enc[3:]...),
		"unknown flag":   append([]byte{1, 4}, enc[2:]...),
		"huge count":     {1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
	}
	for name, b := range bad {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestComparePathsIsDepthFirstOrder(t *testing.T) {
	paths := []string{"a.b", "", "a/x", "a", "b", "a/x/y", "a-", "a/x.z"}
	slices.SortFunc(paths, func(a, b string) int { return ComparePaths([]byte(a), []byte(b)) })
	want := []string{"", "a", "a/x", "a/x/y", "a/x.z", "a-", "a.b", "b"}
	if !slices.Equal(paths, want) {
		t.Fatalf("got %q want %q", paths, want)
	}
}

func TestHashTextIsTaggedAndStrict(t *testing.T) {
	var h Hash
	h[0], h[31] = 0xab, 0x01
	s := h.String()
	if !strings.HasPrefix(s, "blake3:ab") || len(s) != len("blake3:")+64 {
		t.Fatalf("%s", s)
	}
	if p, err := ParseHash(s); err != nil || p != h {
		t.Fatalf("round trip: %v %v", p, err)
	}
	for _, bad := range []string{"", s[7:], "sha256:" + s[7:], strings.ToUpper(s), s + " ", s[:len(s)-1], "blake3:" + strings.Repeat("g", 64)} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestAnomaliesIncludeSymlinksAndBudget(t *testing.T) {
	m := &Manifest{Partial: true, Entries: []Entry{
		dir(""), {Path: []byte("l"), Kind: Symlink, Target: []byte("x")},
		{Path: []byte("p"), Kind: Anomaly, Reason: anomaly.Special},
	}}
	var got []string
	for _, f := range m.Anomalies() {
		got = append(got, f.Reason.String()+"@"+string(f.Path))
	}
	if want := []string{"symlink@l", "special@p", "budget@"}; !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

// The streamed digest is the derive-key hash of exactly the encoding.
func TestDigestIsTheDeriveKeyHashOfTheEncoding(t *testing.T) {
	m := &Manifest{Entries: []Entry{dir("")}}
	for i := range 3000 { // enough to span several streamed chunks
		m.Entries = append(m.Entries, file(fmt.Sprintf("f%05d-%s", i, strings.Repeat("x", 40)), "c"))
	}
	enc, err := m.AppendEncoding(nil)
	if err != nil {
		t.Fatal(err)
	}
	var want Hash
	blake3.DeriveKey(digestContext, enc, want[:])
	if got := digest(t, m); got != want {
		t.Fatalf("streamed %v, whole %v", got, want)
	}
}

// Digest reuses its hasher and buffer. Every call, in any order and from
// any goroutine, must equal a fresh derive-key hash of the encoding.
func TestDigestIsTheDeriveKeyHashOfTheEncodingOnEveryReuse(t *testing.T) {
	var ms []Manifest
	for n := range 6 {
		var m Manifest
		m.Entries = append(m.Entries, Entry{Path: []byte{}, Kind: Dir, Mode: 0o755})
		for i := range n * 700 { // past the 48 KiB flush, for the larger ones
			m.Entries = append(m.Entries, Entry{Path: fmt.Appendf(nil, "f%05d", i), Kind: File, Size: int64(i), Mode: 0o644})
		}
		m.Partial = n%2 == 1
		ms = append(ms, m)
	}
	want := make([]Hash, len(ms))
	for i := range ms {
		enc, err := ms[i].AppendEncoding(nil)
		if err != nil {
			t.Fatal(err)
		}
		h := blake3.NewDeriveKey(digestContext)
		h.Write(enc)
		h.Sum(want[i][:0])
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(ms)
				if got, err := ms[i].Digest(); err != nil || got != want[i] {
					t.Errorf("manifest %d: %v %v, want %v", i, got, err, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
