package walker

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
)

// firstLine is a test Extract: the canonical form is the first line. A
// file starting "bad" fails with Unparsable. One starting "dup" keeps its
// first line and reports DuplicateKey.
func firstLine(_, data []byte) ([]byte, []anomaly.Reason) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	switch {
	case bytes.HasPrefix(data, []byte("bad")):
		return nil, []anomaly.Reason{anomaly.Unparsable}
	case bytes.HasPrefix(data, []byte("dup")):
		return line, []anomaly.Reason{anomaly.DuplicateKey}
	}
	return line, nil
}

func scanNamed(t *testing.T, dir string, names ...NameSpec) Root {
	t.Helper()
	return Scan(context.Background(), []RootSpec{{Path: dir, Names: names}}, DefaultConfig())[0]
}

func candidateNamed(r Root, name string) *Candidate {
	for i := range r.Candidates {
		if string(r.Candidates[i].Name) == name {
			return &r.Candidates[i]
		}
	}
	return nil
}

func TestNamedRootObservesOnlyItsNamesAndNeverListsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "CLAUDE.md=hello", "other.md=x", "skills/")
	r := scanNamed(t, dir, NameSpec{Name: "CLAUDE.md"}, NameSpec{Name: "absent.md"})
	var got []string
	for _, c := range r.Candidates {
		got = append(got, string(c.Name))
	}
	if !slices.Equal(got, []string{"CLAUDE.md"}) || r.Missing || len(r.Anomalies) > 0 {
		t.Fatalf("candidates %q missing %v anomalies %v", got, r.Missing, r.Anomalies)
	}
	if c := candidateNamed(r, "CLAUDE.md"); c.Kind != KindFile || c.Digest != digestOf(t, dir, "CLAUDE.md") {
		t.Errorf("a named file is observed as Observe does: kind %v", c.Kind)
	}
}

func TestNamedRootInAMissingDirectoryIsMissing(t *testing.T) {
	r := scanNamed(t, filepath.Join(t.TempDir(), "none"), NameSpec{Name: "CLAUDE.md"})
	if !r.Missing || len(r.Candidates) > 0 {
		t.Fatalf("missing %v candidates %d", r.Missing, len(r.Candidates))
	}
}

func TestExtractDigestCoversTheCanonicalFormOnly(t *testing.T) {
	spec := NameSpec{Name: "s.json", NoFollow: true, Extract: firstLine}
	digest := func(content string) *Candidate {
		dir := t.TempDir()
		testtree.Make(t, dir, "s.json="+content)
		return candidateNamed(scanNamed(t, dir, spec), "s.json")
	}
	a, noise, changed := digest("keep\nnoise 1"), digest("keep\nnoise 2"), digest("other\nnoise 1")
	if a.Digest != noise.Digest {
		t.Error("a change the extract drops changed the digest")
	}
	if a.Digest == changed.Digest {
		t.Error("a change of the canonical form kept the digest")
	}
	if string(a.Canonical) != "keep" || len(a.Anomalies()) > 0 || a.Kind != KindFile {
		t.Errorf("canonical %q anomalies %v", a.Canonical, reasonsOf(a.Anomalies()))
	}
}

func TestExtractFailureIsAnAnomalyAndBindsEveryByte(t *testing.T) {
	spec := NameSpec{Name: "s.json", Extract: firstLine}
	observe := func(content string) *Candidate {
		dir := t.TempDir()
		testtree.Make(t, dir, "s.json="+content)
		return candidateNamed(scanNamed(t, dir, spec), "s.json")
	}
	for _, tc := range []struct {
		name   string
		a, b   string
		reason anomaly.Reason
		canon  string
	}{
		{"unparsable", "bad\n1", "bad\n2", anomaly.Unparsable, ""},
		{"duplicatekey", "dup\n1", "dup\n2", anomaly.DuplicateKey, "dup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := observe(tc.a), observe(tc.b)
			if !hasAnomaly(a, tc.reason, "") {
				t.Fatalf("anomalies %v", reasonsOf(a.Anomalies()))
			}
			if a.Digest == b.Digest {
				t.Error("the raw bytes of a file the extract refused are not in the digest")
			}
			if string(a.Canonical) != tc.canon {
				t.Errorf("canonical %q", a.Canonical)
			}
		})
	}
}

func TestExtractRefusesLinksFIFOsAndOversizeFiles(t *testing.T) {
	outside := t.TempDir()
	testtree.Make(t, outside, "real.json=keep")
	for _, tc := range []struct {
		name   string
		tree   []string
		spec   NameSpec
		reason anomaly.Reason
	}{
		{"link out of the directory", []string{"s.json -> " + outside + "/real.json"}, NameSpec{Name: "s.json", NoFollow: true, Extract: firstLine}, anomaly.Symlink},
		{"link inside the directory", []string{"real=keep", "s.json -> real"}, NameSpec{Name: "s.json", NoFollow: true, Extract: firstLine}, anomaly.Symlink},
		{"FIFO", []string{"s.json|"}, NameSpec{Name: "s.json", NoFollow: true, Extract: firstLine}, anomaly.Special},
		{"over the limit", []string{"s.json=0123456789"}, NameSpec{Name: "s.json", Extract: firstLine, Limit: 9}, anomaly.Oversize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, tc.tree...)
			c := candidateNamed(scanNamed(t, dir, tc.spec), "s.json")
			if c == nil || !hasAnomaly(c, tc.reason, "") || c.Canonical != nil {
				t.Fatalf("candidate %+v", c)
			}
		})
	}
}

func TestEachAppliesToEveryCandidateOfAListedRoot(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "a.json=one\nx", "b.json=bad")
	r := Scan(context.Background(), []RootSpec{{Path: dir, Files: true, Each: &NameSpec{Extract: firstLine}}}, DefaultConfig())[0]
	if a := candidateNamed(r, "a.json"); a == nil || string(a.Canonical) != "one" {
		t.Fatalf("a.json: %+v", a)
	}
	if b := candidateNamed(r, "b.json"); b == nil || !hasAnomaly(b, anomaly.Unparsable, "") {
		t.Fatalf("b.json: %+v", b)
	}
}

func TestScriptsPastTheLimitAreAFanoutAnomaly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s.json=x")
	var paths []string
	for i := range MaxScripts + 1 {
		paths = append(paths, filepath.Join(dir, "bin", string(rune('a'+i%26))+strings.Repeat("x", i/26)))
	}
	testtree.Make(t, dir, "bin/"+filepath.Base(paths[0])+"=run")
	spec := NameSpec{Name: "s.json", Extract: firstLine, Scripts: func([]byte) []string { return paths }}
	c := candidateNamed(scanNamed(t, dir, spec), "s.json")
	if !hasAnomaly(c, anomaly.Fanout, ScriptsPath) {
		t.Errorf("anomalies %v", reasonsOf(c.Anomalies()))
	}
	if !slices.ContainsFunc(c.Manifest.Entries, func(e snapshot.Entry) bool {
		return bytes.Equal(e.Path, ScriptEntry(paths[0])) && e.Kind == snapshot.File
	}) {
		t.Error("the one script that exists is not bound")
	}
	if err := c.Manifest.Validate(); err != nil {
		t.Errorf("manifest: %v", err)
	}
}

// A configuration candidate's one file entry is its canonical form. That
// form is what is kept, so a restore can write it back (issue #23).
func TestAnExtractsCanonicalFormIsKeptAsItsEntrysContent(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s.json=keep\nnoise", "t.json=dup\nx")
	cfg, k := keeping(DefaultConfig())
	r := Scan(context.Background(), []RootSpec{{Path: dir, Names: []NameSpec{{Name: "s.json", Extract: firstLine}, {Name: "t.json", Extract: firstLine}}}}, cfg)[0]
	c := candidateNamed(r, "s.json")
	e := c.Manifest.Entries[0]
	if got, ok := k.byKey[e.Hash]; !ok || string(got) != "keep" {
		t.Fatalf("the entry's content was not kept as the canonical form: %q %v", got, ok)
	}
	if d := candidateNamed(r, "t.json"); k.calls != 1 || d == nil {
		t.Errorf("%d Keep calls: a form with an anomaly (its raw bytes are the digest's) is not kept as a form", k.calls)
	}
}
