package walker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
)

// A file outside a directory candidate that the client reads as part of
// it is bound into the candidate's digest. An example is a plugin's
// marketplace.json entry. An edit of it alone changes the candidate (issue
// #22).
func TestAnOutsideFileIsBoundIntoADirectoryCandidate(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "m/.claude-plugin/marketplace.json={}", "m/plug/a=x", "m/other/b=y")
	bound := filepath.Join(dir, "m/.claude-plugin/marketplace.json")
	var asked []string
	spec := NameSpec{Name: "plug", Outside: func(name []byte) []string {
		asked = append(asked, string(name))
		return []string{bound, filepath.Join(dir, "m/absent.json")}
	}}
	scan := func() *Candidate {
		t.Helper()
		c := candidateNamed(scanNamed(t, filepath.Join(dir, "m"), spec, NameSpec{Name: "other"}), "plug")
		if err := c.Manifest.Validate(); err != nil || c.Partial() || len(c.Anomalies()) > 0 {
			t.Fatalf("manifest %v partial %v anomalies %v", err, c.Partial(), reasonsOf(c.Anomalies()))
		}
		return c
	}
	before := scan()
	if strings.Join(asked, ",") != "plug" {
		t.Errorf("Outside was asked for %q, want the candidate's own name only", asked)
	}
	testtree.Make(t, dir, "m/other/b=changed")
	if again := scan(); again.Digest != before.Digest {
		t.Error("a sibling's edit moved the digest")
	}
	if err := os.WriteFile(bound, []byte(`{"plugins":[{"name":"plug","hooks":{}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if after := scan(); after.Digest == before.Digest {
		t.Error("an edit of the bound file did not change the candidate's digest")
	}
}

// A name of the tree that is the manifest path of a bound file cannot
// stand for it, nor hide it. Both give way to a badname anomaly.
func TestATreeEntryPosingAsAnOutsideFileIsAnAnomaly(t *testing.T) {
	dir := t.TempDir()
	bound := filepath.Join(dir, "marketplace.json")
	testtree.Make(t, dir, "marketplace.json={}", "root/plug/"+string(ScriptEntry(bound))+"=posing")
	spec := NameSpec{Name: "plug", Outside: func([]byte) []string { return []string{bound} }}
	c := candidateNamed(scanNamed(t, filepath.Join(dir, "root"), spec), "plug")
	if !hasAnomaly(c, anomaly.Badname, string(ScriptEntry(bound))) {
		t.Errorf("anomalies %v", reasonsOf(c.Anomalies()))
	}
	if err := c.Manifest.Validate(); err != nil {
		t.Errorf("manifest: %v", err)
	}
}

// An outside path that is not a regular file, a directory or a FIFO, is
// an anomaly of the candidate. It is never read and never silence.
func TestAnOutsideFileThatIsNotRegularIsAnAnomaly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "d/", "root/plug/a=x")
	bound := filepath.Join(dir, "d")
	spec := NameSpec{Name: "plug", Outside: func([]byte) []string { return []string{bound} }}
	c := candidateNamed(scanNamed(t, filepath.Join(dir, "root"), spec), "plug")
	if !hasAnomaly(c, anomaly.Special, string(ScriptEntry(bound))) {
		t.Errorf("anomalies %v", reasonsOf(c.Anomalies()))
	}
}

// A bound file whose folder is a file is nothing there, as for the
// client: no entry and no anomaly. A url marketplace's install location is
// its downloaded marketplace file, not a folder holding
// .claude-plugin/marketplace.json. When the folder appears, the digest
// changes.
func TestAnOutsideFileUnderAFileIsNothingThere(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "mkt=a downloaded marketplace", "root/plug/a=x")
	bound := filepath.Join(dir, "mkt", ".claude-plugin", "marketplace.json")
	spec := NameSpec{Name: "plug", Outside: func([]byte) []string { return []string{bound} }}
	c := candidateNamed(scanNamed(t, filepath.Join(dir, "root"), spec), "plug")
	if len(c.Anomalies()) > 0 || c.Partial() {
		t.Fatalf("anomalies %v, partial %v: a file where a folder would be is nothing there", reasonsOf(c.Anomalies()), c.Partial())
	}
	testtree.Must(t, os.Remove(filepath.Join(dir, "mkt")))
	testtree.Make(t, dir, "mkt/.claude-plugin/marketplace.json={}")
	if d := candidateNamed(scanNamed(t, filepath.Join(dir, "root"), spec), "plug"); d.Digest == c.Digest {
		t.Error("the bound file appeared and the digest did not move")
	}
}
