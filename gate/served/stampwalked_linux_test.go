package served

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/walker"
)

// walked walks the skills folder root with a hash cache at cache, keeping
// identities as the session start does.
func walked(t *testing.T, root, cache string, idents bool) []walker.Candidate {
	t.Helper()
	cfg := walker.DefaultConfig()
	cfg.Reuse, cfg.Idents = walker.LoadHashes(cache), idents
	rs := walker.Scan(context.Background(), []walker.RootSpec{{Path: root}}, cfg)
	if err := cfg.Reuse.Save(); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || len(rs[0].Anomalies) > 0 {
		t.Fatalf("walk of %s: %+v", root, rs)
	}
	return rs[0].Candidates
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The session start stamps its served copies from what its walk stated
// (issue 34: 2,100 lstat and 100 statfs of a 2,000-file start). That
// stamp must be the very one a use's Stamp makes of the same files, or
// every use would be asked; and a write since, bytes put back, must set
// them apart, or the put-back route of issue 31 opens again.
func TestAStampOfTheWalkIsTheStampOfTheFilesItWalked(t *testing.T) {
	dir := t.TempDir()
	root, cache := filepath.Join(dir, "skills"), filepath.Join(dir, "hashes")
	write(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\n---\nbody\n")
	write(t, filepath.Join(root, "a", "ref", "deep", "x.md"), "x\n")
	write(t, filepath.Join(root, "b", "SKILL.md"), "b\n")
	if err := os.Symlink("SKILL.md", filepath.Join(root, "b", "link")); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	check := func(when string, cs []walker.Candidate) {
		t.Helper()
		for i := range cs {
			c := &cs[i]
			fresh, _, freshOK := Stamp(root, c.Name, &c.Manifest, now)
			got, _, ok := StampWalked(c, now)
			switch string(c.Name) {
			case "a":
				if !ok || !freshOK || got != fresh {
					t.Errorf("%s: the walk's stamp of a (ok %v) is not the files' (ok %v)", when, ok, freshOK)
				}
			case "b":
				if ok {
					t.Errorf("%s: b holds a link the walk did not state, yet its walk stamped it", when)
				}
			}
		}
	}
	// The first walk reads every file: identities from the fstat after
	// each read. The second, past the racy window, reuses every hash:
	// identities from the cache's statx.
	check("read", walked(t, root, cache, true))
	time.Sleep(walker.RacyWindow + 100*time.Millisecond)
	check("read, past the window", walked(t, root, cache, true))
	cs := walked(t, root, cache, true)
	check("reused", cs)

	for _, c := range walked(t, root, cache, false) {
		if _, _, ok := StampWalked(&c, now); ok {
			t.Errorf("a walk that kept no identities stamped %s", c.Name)
		}
	}

	// A write since the walk, its bytes put back: the walk's stamp and
	// the files' differ.
	var a *walker.Candidate
	for i := range cs {
		if string(cs[i].Name) == "a" {
			a = &cs[i]
		}
	}
	before, _, _ := StampWalked(a, now)
	p := filepath.Join(root, "a", "ref", "deep", "x.md")
	write(t, p, "y\n")
	write(t, p, "x\n")
	after, _, ok := Stamp(root, a.Name, &a.Manifest, now)
	if !ok || after == before {
		t.Errorf("a file written and put back after the walk keeps the walk's stamp (ok %v)", ok)
	}
}

// A candidate linked from elsewhere is stated through its link by the
// walk, and by Stamp as the link: the walk's identities cannot stamp it.
func TestALinkedCandidateIsNotStampedFromItsWalk(t *testing.T) {
	dir := t.TempDir()
	root, cache := filepath.Join(dir, "skills"), filepath.Join(dir, "hashes")
	write(t, filepath.Join(dir, "checkout", "c", "SKILL.md"), "c\n")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "checkout", "c"), filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	cs := walked(t, root, cache, true)
	if len(cs) != 1 || !cs[0].Manifest.ViaLink {
		t.Fatalf("the linked skill: %+v", cs)
	}
	if _, _, ok := StampWalked(&cs[0], time.Now()); ok {
		t.Error("a linked candidate was stamped from its walk")
	}
}

// With the daemon, a session start serves its copies from the daemon's
// cached walk. Stated at the start, a stamp would pair a write the daemon
// has not walked yet (it waits out its debounce) with the digest from
// before it: the use would find the disk as stamped and judge bytes the
// client never read. Stamped from the daemon's walk (walker.Identities),
// the write sets the stamp and the disk apart.
func TestACopyServedFromTheDaemonsWalkIsStampedAsThatWalkRead(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	p := filepath.Join(root, "a", "SKILL.md")
	write(t, p, "---\nname: a\n---\nreviewed\n")
	cfg := walker.DefaultConfig()
	cfg.Reuse, cfg.Idents = walker.Identities(), true // the daemon's (monitor.walkConfig)
	rs := walker.Scan(context.Background(), []walker.RootSpec{{Path: root}}, cfg)
	if len(rs) != 1 || len(rs[0].Candidates) != 1 {
		t.Fatalf("walk: %+v", rs)
	}
	c := &rs[0].Candidates[0]
	now := time.Now()
	if got, _, ok := StampWalked(c, now); !ok {
		t.Fatal("the daemon's walk kept no identities to stamp from")
	} else if disk, _, _ := Stamp(root, c.Name, &c.Manifest, now); got != disk {
		t.Fatal("nothing written, yet the walk's stamp is not the disk's")
	}

	write(t, p, "---\nname: a\n---\nrun curl | sh\n") // after the walk, before the start
	sk, ok := stamped(root, c, now)
	if !ok || sk.Unstamped {
		t.Fatalf("the served copy was not stamped (ok %v)", ok)
	}
	if disk, _, _ := Stamp(root, c.Name, &c.Manifest, now); sk.Stamp == disk {
		t.Error("the copy served from the walk before a write is stamped as the disk after it")
	}
}
