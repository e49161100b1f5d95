package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

func file(path string, mode uint32, content string) snapshot.Entry {
	return snapshot.Entry{Path: []byte(path), Kind: snapshot.File, Mode: mode, Size: int64(len(content)), Hash: blake3.Sum256([]byte(content))}
}

func dir(path string) snapshot.Entry {
	return snapshot.Entry{Path: []byte(path), Kind: snapshot.Dir, Mode: 0o755}
}

func candidate(t testing.TB, root, name string, kind walker.Kind, link string, entries ...snapshot.Entry) Candidate {
	m := snapshot.Manifest{Entries: entries}
	if link != "" {
		m.ViaLink, m.Link = true, []byte(link)
	}
	d, err := m.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return Candidate{Root: root, Name: []byte(name), Kind: kind, Manifest: m, Digest: d}
}

// sampleLock is a small lock by hand. It holds an agent observed through a
// link and a skill with a script. It holds a skill with a path a shell would
// act on.
func sampleLock(t testing.TB) *Lock {
	roots := DefaultRoots()
	return &Lock{Roots: roots, Candidates: []Candidate{
		candidate(t, ".claude/agents", "reviewer.md", walker.KindFile, "../../shared/reviewer.md", file("", 0o644, "You review.\n")),
		candidate(t, ".claude/skills", "pdf", walker.KindDir, "",
			dir(""), file("SKILL.md", 0o644, "hi\n"), dir("scripts"), file("scripts/run.sh", 0o755, "echo\n")),
		candidate(t, ".claude/skills", "web", walker.KindDir, "",
			dir(""), file("$(rm -rf ~)\n\xff", 0o644, "x")),
	}}
}

func sampleText(t testing.TB) string { return string(mustMarshal(t, sampleLock(t))) }

func TestParseRoundTrip(t *testing.T) {
	l := sampleLock(t)
	l.Candidates[1].Verdict = Verdict(verdict.Safe)
	data := mustMarshal(t, l)
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, data)
	}
	again := mustMarshal(t, back)
	if !bytes.Equal(data, again) {
		t.Errorf("Marshal(Parse(b)) != b:\n%s\n---\n%s", again, data)
	}
	for i := range l.Candidates {
		a, b := &l.Candidates[i], &back.Candidates[i]
		if a.Root != b.Root || !bytes.Equal(a.Name, b.Name) || a.Kind != b.Kind || a.Digest != b.Digest ||
			a.Verdict != b.Verdict || !a.Manifest.Equal(&b.Manifest) {
			t.Errorf("candidate %d did not round-trip: %+v, want %+v", i, b, a)
		}
	}
	for _, want := range []string{
		`"link": "../../shared/reviewer.md"`, // a plain link text stays readable
		`"verdict": "SAFE-TO-PROPOSE"`,
		`{"path":"scripts/run.sh","kind":"file","mode":"0755","size":5,"hash":"blake3:`,
		`{"path_hex":"` + fmt.Sprintf("%x", "$(rm -rf ~)\n\xff") + `","kind":"file"`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("lock lacks %s:\n%s", want, data)
		}
	}
}

func TestParseRoundTripsHostileNames(t *testing.T) {
	names := []string{"a\nb", "$(touch pwned)", "`id`", "\xff\xfe", "\x1b]0;title\x07", "swabcdefghijklmn", "..."}
	l := &Lock{Roots: DefaultRoots()}
	for _, n := range names {
		c := candidate(t, ".claude/skills", n, walker.KindDir, "\n$(x)", dir(""), file(n, 0o644, n))
		l.Candidates = append(l.Candidates, c)
	}
	l.Candidates = sortedCandidates(l.Candidates)
	data := mustMarshal(t, l)
	for _, n := range names {
		for _, raw := range []string{n, strings.Trim(fmt.Sprintf("%q", n), `"`)} {
			if bytes.Contains(data, []byte(raw)) {
				t.Errorf("lock holds %q raw or JSON-escaped", raw)
			}
		}
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range back.Candidates {
		want := &l.Candidates[i]
		if !bytes.Equal(c.Name, want.Name) || !bytes.Equal(c.Manifest.Link, want.Manifest.Link) ||
			!bytes.Equal(c.Manifest.Entries[1].Path, want.Manifest.Entries[1].Path) {
			t.Errorf("candidate %q did not round-trip: %q", want.Name, c.Name)
		}
	}
}

func sortedCandidates(cs []Candidate) []Candidate {
	slices.SortFunc(cs, func(a, b Candidate) int { return compareCandidates(&a, &b) })
	return cs
}

func TestParseRejects(t *testing.T) {
	base := sampleText(t)
	pdfHash := fmt.Sprintf("%x", blake3.Sum256([]byte("hi\n")))
	otherHash := fmt.Sprintf("%x", blake3.Sum256([]byte("ho\n")))
	pdfBlock := base[strings.Index(base, "    {\n      \"root\": \".claude/skills\",\n      \"name\": \"pdf\""):strings.Index(base, "    {\n      \"root\": \".claude/skills\",\n      \"name\": \"web\"")]
	for _, tc := range []struct {
		name     string
		old, new string // replaced once; old "" means new is the whole input
		want     error
	}{
		{"version 3", `"version": 2`, `"version": 3`, ErrVersion},
		{"version 0", `"version": 2`, `"version": 0`, ErrVersion},
		{"version as a string", `"version": 2`, `"version": "2"`, ErrVersion},
		{"version 2.0", `"version": 2`, `"version": 2.0`, ErrVersion},
		{"no version", `"version": 2,`, ``, ErrVersion},
		{"config in a version 1 lock", `"version": 2`, `"version": 1`, ErrMalformed},
		{"no config in a version 2 lock", "  \"config\": [],\n", "", ErrMalformed},
		{"a path both a root and a config folder", `"config": []`, `"config": [".claude/agents"]`, ErrMalformed},
		{"a config folder spelled with ./", `"config": []`, `"config": ["./x"]`, ErrMalformed},
		{"empty input", "", " ", ErrMalformed},
		{"truncated", "", base[:len(base)/2], ErrMalformed},
		{"not an object", "", "[1]", ErrMalformed},
		{"data after the lock", "", base + "{}", ErrMalformed},
		{"unknown field", `"version": 2,`, `"version": 2, "generated": "today",`, ErrMalformed},
		{"a field in another case", `"roots":`, `"Roots":`, ErrMalformed},
		{"a field given twice", `"version": 2,`, `"version": 2, "version": 2,`, ErrMalformed},
		{"null", `"name": "pdf",`, `"name": "pdf", "verdict": null,`, ErrMalformed},
		{"roots missing", `"roots": [`, `"rootz": [`, ErrMalformed},
		{"non-ASCII", `"name": "pdf"`, "\"name\": \"pdf\u00e9\"", ErrMalformed},
		{"invalid UTF-8", `"name": "pdf"`, "\"name\": \"pdf\xff\"", ErrMalformed},
		{"an escaped byte that fails the gate", `"name": "pdf"`, `"name": "pd\nf"`, ErrMalformed},
		{"nested 100,000 deep", "", `{"version":2,"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}", ErrMalformed},
		{"digest in upper case", `"digest": "blake3:`, `"digest": "BLAKE3:`, ErrMalformed},
		{"digest of another algorithm", `"digest": "blake3:`, `"digest": "sha256:`, ErrMalformed},
		{"a file hash edited without its digest", pdfHash, otherHash, ErrDigest},
		{"a size edited without its digest", `"size":3,`, `"size":4,`, ErrDigest},
		{"a mode edited without its digest", `"path":"scripts/run.sh","kind":"file","mode":"0755"`, `"path":"scripts/run.sh","kind":"file","mode":"0644"`, ErrDigest},
		{"duplicate candidate", pdfBlock, pdfBlock + pdfBlock, ErrDuplicate},
		{"candidates out of order", `"name": "web"`, `"name": "aaa"`, ErrMalformed},
		{"roots out of order", "\".claude/agents\",\n    \".claude/commands\"", "\".claude/commands\",\n    \".claude/agents\"", ErrMalformed},
		{"a candidate's root not listed", "    \".claude/agents\",\n", "", ErrMalformed},
		{"an absolute root", `".claude/agents"`, `"/home/u/repo/.claude/agents"`, ErrMalformed},
		{"a root of unknown kind", `".claude/commands"`, `".claude/tools"`, ErrMalformed},
		{"a plain name that fails the gate", `"name": "pdf"`, `"name": "-pdf"`, ErrMalformed},
		{"name_hex for a name that passes the gate", `"name": "pdf"`, `"name_hex": "706466"`, ErrMalformed},
		{"both name and name_hex", `"name": "pdf"`, `"name": "pdf", "name_hex": "706466"`, ErrMalformed},
		{"upper-case hex", fmt.Sprintf("%x", "$(rm -rf ~)\n\xff"), strings.ToUpper(fmt.Sprintf("%x", "$(rm -rf ~)\n\xff")), ErrMalformed},
		{"path_hex of an empty path", `{"path":"","kind":"dir"`, `{"path_hex":"","kind":"dir"`, ErrMalformed},
		{"link text that needs hex", `"link": "../../shared/reviewer.md"`, `"link": "../$(x)"`, ErrMalformed},
		{"a symlink entry", `{"path":"scripts","kind":"dir","mode":"0755"}`, `{"path":"scripts","kind":"symlink","mode":"0755"}`, ErrMalformed},
		{"a negative size", `"size":3,`, `"size":-3,`, ErrMalformed},
		{"a fractional size", `"size":3,`, `"size":3.0,`, ErrMalformed},
		{"a mode only this umask gives", `"path":"SKILL.md","kind":"file","mode":"0644"`, `"path":"SKILL.md","kind":"file","mode":"0664"`, ErrMalformed},
		{"a mode in three digits", `"path":"SKILL.md","kind":"file","mode":"0644"`, `"path":"SKILL.md","kind":"file","mode":"644"`, ErrMalformed},
		{"a hash on a dir", `{"path":"scripts","kind":"dir","mode":"0755"}`, `{"path":"scripts","kind":"dir","mode":"0755","hash":"blake3:` + pdfHash + `"}`, ErrMalformed},
		{"a file without a hash", `"size":3,"hash":"blake3:` + pdfHash + `"`, `"size":3`, ErrMalformed},
		{"an unknown verdict", `"name": "pdf",`, `"name": "pdf", "verdict": "OK",`, ErrMalformed},
		{"an empty verdict", `"name": "pdf",`, `"name": "pdf", "verdict": "",`, ErrMalformed},
		{"a candidate kind its entries deny", `"name": "pdf",` + "\n" + `      "kind": "dir"`, `"name": "pdf",` + "\n" + `      "kind": "file"`, ErrMalformed},
		{"files missing", `"files": [`, `"filez": [`, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.new
			if tc.old != "" {
				if !strings.Contains(base, tc.old) {
					t.Fatalf("the sample lock lacks %q", tc.old)
				}
				in = strings.Replace(base, tc.old, tc.new, 1)
			}
			l, err := Parse([]byte(in))
			if err == nil {
				t.Fatalf("accepted:\n%s", in)
			}
			if l != nil {
				t.Errorf("a Lock came back with the error")
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseRefusesEveryNonASCIIByte(t *testing.T) {
	// Every string of a lock is checked against an ASCII set anyway. The byte
	// check up front names the offset, and covers fields to come.
	base := sampleText(t)
	for _, b := range []string{"\u00e9", "\xff", "\u202e"} {
		in := strings.Replace(base, "\n  \"roots\"", "\n"+b+" \"roots\"", 1)
		_, err := Parse([]byte(in))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "non-ASCII byte at offset 18") {
			t.Errorf("%q between fields: error %v", b, err)
		}
	}
}

func TestParseAcceptsHandEdits(t *testing.T) {
	base := sampleText(t)
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(base)); err != nil {
		t.Fatal(err)
	}
	l, err := Parse(compact.Bytes())
	if err != nil {
		t.Fatalf("a reformatted lock: %v", err)
	}
	if got := mustMarshal(t, l); string(got) != base {
		t.Errorf("a reformatted lock marshals differently:\n%s", got)
	}

	// A reviewer adds a verdict by hand; a re-lock writes it in its place.
	edited := strings.Replace(base, `"name": "pdf",`, `"name": "pdf",    "verdict":"BLOCK",`, 1)
	l, err = Parse([]byte(edited))
	if err != nil {
		t.Fatalf("a lock with a verdict added by hand: %v", err)
	}
	if l.Candidates[1].Verdict != Verdict(verdict.Block) {
		t.Errorf("verdict %q, want BLOCK", l.Candidates[1].Verdict)
	}
	if got := string(mustMarshal(t, l)); !strings.Contains(got, "\"digest\": \""+l.Candidates[1].Digest.String()+"\",\n      \"verdict\": \"BLOCK\",\n") {
		t.Errorf("verdict not written after the digest:\n%s", got)
	}
}

func TestAHandForgedLockStillFailsVerify(t *testing.T) {
	// An edit that keeps the lock consistent (file hash and digest both
	// changed) parses. It then vouches for bytes the tree does not hold.
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	lock, _ := lockRepo(t, dir, walker.DefaultConfig())
	c := &lock.Candidates[2] // .claude/skills/pdf
	if string(c.Name) != "pdf" || string(c.Manifest.Entries[1].Path) != "SKILL.md" {
		t.Fatalf("unexpected sample layout: %s %s", c.Name, c.Manifest.Entries[1].Path)
	}
	c.Manifest.Entries[1].Hash = blake3.Sum256([]byte("what the attacker wants reviewed"))
	var err error
	if c.Digest, err = c.Manifest.Digest(); err != nil {
		t.Fatal(err)
	}
	forged, err := Parse(mustMarshal(t, lock))
	if err != nil {
		t.Fatalf("a consistent edit should parse: %v", err)
	}
	r := verifyRepo(t, dir, forged, walker.DefaultConfig())
	if got, want := strings.Join(summary(r), "; "), "changed .claude/skills/pdf: modified SKILL.md"; got != want {
		t.Errorf("report %q, want %q", got, want)
	}
}

func TestMarshalRefusesWhatParseWouldReject(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(l *Lock)
	}{
		{"a partial manifest", func(l *Lock) { l.Candidates[1].Manifest.Partial = true }},
		{"a stale digest", func(l *Lock) { l.Candidates[1].Digest[0] ^= 1 }},
		{"a file candidate in a skills root", func(l *Lock) {
			l.Candidates[1] = candidate(t, ".claude/skills", "pdf", walker.KindFile, "", file("", 0o644, "x"))
		}},
		{"an anomaly entry", func(l *Lock) {
			l.Candidates[1] = candidate(t, ".claude/skills", "pdf", walker.KindDir, "", dir(""),
				snapshot.Entry{Path: []byte("p"), Kind: snapshot.Anomaly, Reason: 2})
		}},
		{"a nested symlink", func(l *Lock) {
			l.Candidates[1] = candidate(t, ".claude/skills", "pdf", walker.KindDir, "", dir(""),
				snapshot.Entry{Path: []byte("l"), Kind: snapshot.Symlink, Target: []byte("/etc")})
		}},
		{"a raw umask mode", func(l *Lock) {
			l.Candidates[1] = candidate(t, ".claude/skills", "pdf", walker.KindDir, "", dir(""), file("f", 0o664, "x"))
		}},
		{"a name with a slash", func(l *Lock) { l.Candidates[2].Name = []byte("we/b") }},
		{"an unlisted root", func(l *Lock) { l.Roots = l.Roots[1:] }},
		{"duplicate roots", func(l *Lock) { l.Roots = append(l.Roots, l.Roots[2]) }},
		{"a verdict of another tool", func(l *Lock) { l.Candidates[0].Verdict = "APPROVED" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := sampleLock(t)
			tc.edit(l)
			if b, err := l.Marshal(); err == nil {
				t.Errorf("marshalled:\n%s", b)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	base := sampleText(f)
	f.Add([]byte(base))
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(base)); err != nil {
		f.Fatal(err)
	}
	f.Add(compact.Bytes())
	f.Add([]byte(`{"version":1,"roots":[],"candidates":[]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"roots":[".claude/skills"],"candidates":[{"root":".claude/skills","name_hex":"0a","kind":"dir","digest":"blake3:00","files":[]}]}`))
	f.Add([]byte(`{"version":1,"roots":[".claude/skills"],"candidates":[{"root":".claude/skills","name_hex":"2e68696464656e","kind":"dir","digest":"blake3:00","files":[]}]}`)) // a dot name as locked before it was plain
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			if l != nil {
				t.Fatal("a Lock with an error")
			}
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error outside the contract: %v", err)
			}
			return
		}
		out, err := l.Marshal()
		if err != nil {
			t.Fatalf("Parse accepted what Marshal refuses: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse rejects Marshal's output: %v\n%s", err, out)
		}
		again, err := back.Marshal()
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("Marshal is not a fixed point: %v\n%s\n---\n%s", err, out, again)
		}
		for _, c := range out {
			if c >= 0x80 || c < 0x20 && c != '\n' {
				t.Fatalf("Marshal wrote byte %#x", c)
			}
		}
	})
}
