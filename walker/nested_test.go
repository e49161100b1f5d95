package walker

import (
	"context"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
)

func scanNested(t *testing.T, dir string) Root {
	t.Helper()
	return Scan(context.Background(), []RootSpec{{Path: dir, Depth: 2, InnerLinks: true}}, DefaultConfig())[0]
}

func TestNestedCandidatesAreTheDirectoriesAtTheirDepth(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	testtree.Make(t, dir, "acme/fmt/1.2.0/plugin.json=a", "acme/fmt/1.3.0/x=b", "acme/lint/0.1/y=c",
		"acme/README=not a candidate", "acme/fmt/notes.txt=not a candidate",
		"evil -> "+outside, "acme/fifo|")
	r := scanNested(t, dir)
	var got []string
	for _, c := range r.Candidates {
		got = append(got, string(c.Name)+" "+c.Kind.String()+" "+string(anomalyNames(&c)))
	}
	want := []string{"acme/fifo other special", "acme/fmt/1.2.0 dir ", "acme/fmt/1.3.0 dir ", "acme/lint/0.1 dir ", "evil other symlink"}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n%q\nwant\n%q", got, want)
	}
	// The one candidate alone, as the daemon walks it, is the same.
	for _, c := range r.Candidates {
		one := ObserveIn(context.Background(), r.Spec, c.Name, DefaultConfig())
		if one.Digest != c.Digest {
			t.Errorf("%s: ObserveIn differs from Scan", c.Name)
		}
	}
}

// A skipped folder above nested candidates is never listed: the client
// loads that plugin elsewhere, so its copies are none of the root's.
func TestASkippedFolderAboveNestedCandidatesIsNotListed(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "acme/fmt/1.2.0/plugin.json=a", "acme/fmt/1.3.0/x=b", "acme/lint/0.1/y=c", "other/fmt/1.0/z=d")
	r := Scan(context.Background(), []RootSpec{{Path: dir, Depth: 2, Skip: []string{"acme/fmt"}}}, DefaultConfig())[0]
	var got []string
	for _, c := range r.Candidates {
		got = append(got, string(c.Name))
	}
	if want := []string{"acme/lint/0.1", "other/fmt/1.0"}; !slices.Equal(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if slices.ContainsFunc(r.Dirs, func(d []byte) bool { return string(d) == "acme/fmt" }) {
		t.Errorf("dirs %q list the skipped folder", r.Dirs)
	}
}

func anomalyNames(c *Candidate) []byte {
	var out []byte
	for i, r := range Reasons(c.Anomalies()) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r.String()...)
	}
	return out
}

func TestObserveInNeverFollowsALinkOnTheWayToANestedCandidate(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	testtree.Make(t, outside, "p/1.0/f=x")
	testtree.Make(t, dir, "m -> "+outside)
	c := ObserveIn(context.Background(), RootSpec{Path: dir, Depth: 2}, []byte("m/p/1.0"), DefaultConfig())
	if !hasAnomaly(&c, anomaly.Swapped, "") || len(c.Manifest.Entries) != 1 {
		t.Errorf("entries %v", entryPaths(&c.Manifest))
	}
}

func TestALinkThatStaysInsideAPluginIsContentNotAnAnomaly(t *testing.T) {
	for _, tc := range []struct {
		link, target string
		inner        bool
	}{
		{"node_modules/.bin/x", "../pkg/bin/x", true},
		{"a/b/c", "../../d", true},
		{"a/l", "./x/y", true},
		{"l", "x", true},
		{"l", "../x", false},
		{"a/b/c", "../../../x", false},
		{"a/l", "x/../../y", false},
		{"a/l", "b/../y", false}, // b may itself be a link: never climb after descending
		{"a/l", "/etc/passwd", false},
	} {
		t.Run(tc.link+" -> "+tc.target, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, "m/p/1.0/"+tc.link+" -> "+tc.target)
			r := scanNested(t, dir)
			c := &r.Candidates[0]
			if got := !hasAnomaly(c, anomaly.Symlink, tc.link); got != tc.inner {
				t.Errorf("inner %v, want %v", got, tc.inner)
			}
		})
	}
	// Bound into the digest all the same.
	a, b := t.TempDir(), t.TempDir()
	testtree.Make(t, a, "m/p/1.0/l -> x")
	testtree.Make(t, b, "m/p/1.0/l -> y")
	if scanNested(t, a).Candidates[0].Digest == scanNested(t, b).Candidates[0].Digest {
		t.Error("a retargeted inner link kept the digest")
	}
}

func TestEveryComponentOfANestedNameIsGated(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "m/p/1.0/f", "m/p\x1b[31m/1.0/f")
	r := scanNested(t, dir)
	for _, c := range r.Candidates {
		bad := hasAnomaly(&c, anomaly.Badname, "")
		if want := string(c.Name) != "m/p/1.0"; bad != want {
			t.Errorf("%q: badname %v", c.Name, bad)
		}
	}
}
