package pluginrecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// clientCopy is a folder the pinned client installed and the copyHash it
// recorded for it. Its bookkeeping file .links_materialized is included.
// It is TestTheClientsCopyHashIsRecomputedAndAMismatchIsTold's world, kept
// once.
var clientCopy = struct {
	files                            []string
	userID, source, digest, copyHash string
}{
	files: []string{
		`.claude-plugin/plugin.json={"name":"plug","version":"1.0.0"}`,
		"skills/ps/SKILL.md=---\nname: ps\ndescription: a plugin skill\n---\nthe plugin body\n",
		`.links_materialized={"at":"2026-12-01T12:15:57.240Z","cli":"2.1.328","screen":2,"materialized":0,"removed":0,"failed":0}`,
		".in_use/8008=",
	},
	userID:   "48e494fa47a041ecda2bb6b4e052763045ea8c25785c43d389d27b2a2486c3bc",
	source:   `{"url":"https://127.0.0.1:43887/marketplace.json","source":"url"}`,
	digest:   "sha256-iNdlBQiyvsjy2Uoh1ZrGJDuRZz9yVjxhU5fo0TvJrfc=",
	copyHash: "Jp44ERCzHKHaSsUAtctBEgfGyXWW9Dz6DUus8SeBlWA=",
}

func TestCopyHashIsTheClientsOwn(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, clientCopy.files...)
	d, err := CopyDigest(dir)
	if err != nil || d != clientCopy.digest {
		t.Fatalf("CopyDigest = %q, %v; the client's is %q", d, err, clientCopy.digest)
	}
	h, err := CopyHash(clientCopy.userID, "plug@mkt", []byte(clientCopy.source), d)
	if err != nil || h != clientCopy.copyHash {
		t.Fatalf("CopyHash = %q, %v; the client wrote %q", h, err, clientCopy.copyHash)
	}
	// The plugin id is folded, as the client folds it.
	if h2, _ := CopyHash(clientCopy.userID, "Plug@MKT", []byte(clientCopy.source), d); h2 != h {
		t.Errorf("a plugin id in capitals hashes otherwise: %q", h2)
	}
}

func TestAnyByteOfTheCopyMovesTheHash(t *testing.T) {
	base := t.TempDir()
	testtree.Make(t, base, clientCopy.files...)
	want, _ := CopyDigest(base)
	for name, extra := range map[string][]string{
		"a byte changed":          {"skills/ps/SKILL.md=---\nname: ps\ndescription: a plugin skill\n---\nthe plugin body!\n"},
		"a file added":            {"skills/ps/run.sh=echo"},
		"an empty file added":     {"x="},
		"a noise name below root": {"skills/.in_use="},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, append(append([]string{}, clientCopy.files...), extra...)...)
			if got, err := CopyDigest(dir); err != nil || got == want {
				t.Errorf("CopyDigest = %q, %v: unmoved", got, err)
			}
		})
	}
}

func TestCopyDigestRefusesWhatTheClientRefuses(t *testing.T) {
	for name, specs := range map[string][]string{
		"a link outside node_modules": {"a -> /etc/passwd"},
		"a FIFO":                      {"p|"},
		"a name not UTF-8":            {"\xff\xfe=x"},
		"more than 4096 files":        manyFiles("f", copyMaxFiles+1),
		"over 32 MiB":                 {"big=" + strings.Repeat("x", copyMaxBytes+1)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, specs...)
			if d, err := CopyDigest(dir); err == nil {
				t.Errorf("CopyDigest = %q, want a refusal", d)
			}
		})
	}
	if _, err := CopyDigest(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing folder was digested")
	}
}

func manyFiles(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%05d=", prefix, i)
	}
	return out
}

// A link inside node_modules is hashed as its target text, an "l" entry.
func TestALinkInNodeModulesIsHashedAsItsTarget(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "node_modules/a -> b", "node_modules/b=x")
	got, err := CopyDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := copyDigest([]walker.TreeFile{{Path: "node_modules/b", Data: []byte("x")}, {Path: "node_modules/a", Data: []byte("b"), Link: true}})
	if got != want {
		t.Errorf("CopyDigest = %q, want %q", got, want)
	}
}

func TestCopyHashRefusesWhatItCannotReproduce(t *testing.T) {
	for name, tc := range map[string]struct{ plugin, source string }{
		"a plugin name not ASCII": {"plüg@mkt", `{"source":"url"}`},
		"a number in the source":  {"plug@mkt", `{"source":"url","n":1}`},
		"a source not JSON":       {"plug@mkt", `{"source":`},
		"a source of NUL bytes":   {"plug@mkt", "\x00\x00"},
	} {
		t.Run(name, func(t *testing.T) {
			if h, err := CopyHash(clientCopy.userID, tc.plugin, []byte(tc.source), "sha256-x"); !errors.Is(err, ErrNotHashable) {
				t.Errorf("CopyHash = %q, %v; want ErrNotHashable", h, err)
			}
		})
	}
}

func TestJSStringIsJSONStringify(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        `"plain"`,
		`q"b\`:         `"q\"b\\"`,
		"\b\f\n\r\t":   `"\b\f\n\r\t"`,
		"\x00\x01\x1f": `"\u0000\u0001\u001f"`,
		"\x7f<>&":      "\"\x7f<>&\"",
		"\u2028\u2029": "\"\u2028\u2029\"",
		"é😀":           "\"é😀\"",
	} {
		var b bytes.Buffer
		jsString(&b, in)
		if b.String() != want {
			t.Errorf("jsString(%q) = %s, want %s", in, b.String(), want)
		}
	}
}

// JavaScript sorts by UTF-16 code unit. So a character past U+FFFF (a
// surrogate pair, from U+D800) sorts below U+E000..U+FFFF.
func TestJSCompareIsUTF16Order(t *testing.T) {
	if jsCompare("\U0001F600", "\uFFFD") >= 0 {
		t.Error("U+1F600 does not sort below U+FFFD")
	}
	if jsCompare("a-c", "a/b") >= 0 || jsCompare("a", "a/b") >= 0 {
		t.Error("paths do not sort as whole strings")
	}
}

func FuzzJSString(f *testing.F) {
	for _, s := range []string{"", "a", "\x00", "\u2028", "\"\\", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		var b bytes.Buffer
		jsString(&b, s)
		var back string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back != s {
			t.Fatalf("jsString(%q) = %q reads back as %q, %v", s, b.String(), back, err)
		}
		for _, c := range b.Bytes() {
			if c < 0x20 {
				t.Fatalf("jsString(%q) holds control byte %#x", s, c)
			}
		}
	})
}

// The client deletes every __pycache__ directory of a cached copy before
// it digests it. So a plugin whose Python hook ran still matches its
// install, though its byte-code cache was written. A file of that name, or
// a look-alike directory, is content.
func TestPythonByteCodeCachesAreNotPartOfTheCopy(t *testing.T) {
	base := t.TempDir()
	testtree.Make(t, base, clientCopy.files...)
	want, _ := CopyDigest(base)
	for name, c := range map[string]struct {
		extra []string
		same  bool
	}{
		"a hook's __pycache__":            {[]string{"hooks/__pycache__/lib.cpython-312.pyc=\x00\x01"}, true},
		"a __pycache__ at the root":       {[]string{"__pycache__/x.pyc=b"}, true},
		"deep in node_modules":            {[]string{"node_modules/a/__pycache__/y.pyc=c"}, true},
		"a file named __pycache__":        {[]string{"hooks/__pycache__=not a directory"}, false},
		"a look-alike directory":          {[]string{"hooks/__pycache__x/lib.pyc=d"}, false},
		"a file beside the cache, edited": {[]string{"hooks/__pycache__/a.pyc=e", "hooks/lib.py=print(1)"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, append(append([]string{}, clientCopy.files...), c.extra...)...)
			got, err := CopyDigest(dir)
			if err != nil || (got == want) != c.same {
				t.Errorf("CopyDigest = %q, %v; the same as the install's: %v, want %v", got, err, got == want, c.same)
			}
		})
	}
}
