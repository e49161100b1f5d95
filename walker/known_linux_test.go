package walker

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

// scanCached scans spec with the caches of state, saves them, and returns
// the root and how many files were read (hashed) and fronts parsed.
func scanCached(t *testing.T, state string, spec RootSpec, reads, parses *atomic.Int64) (Root, int64, int64) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Reuse = LoadHashes(filepath.Join(state, "hashes"))
	cfg.Fronts = LoadFrontCache(filepath.Join(state, "fronts"))
	r0, p0 := reads.Load(), parses.Load()
	r := Scan(context.Background(), []RootSpec{spec}, cfg)[0]
	testtree.Must(t, cfg.Reuse.Save())
	testtree.Must(t, cfg.Fronts.Save())
	return r, reads.Load() - r0, parses.Load() - p0
}

// cachedTree starts a test of the caches: the racy clock moved on, the
// files read counted, and files made in a new dir beside a new state.
func cachedTree(t *testing.T, files ...string) (dir, state string, reads, parses *atomic.Int64) {
	t.Helper()
	pastRacyWindow(t)
	reads, parses = countReads(t), new(atomic.Int64)
	dir, state = t.TempDir(), stateDir(t)
	testtree.Make(t, dir, files...)
	return dir, state, reads, parses
}

// A root of file candidates, as agents and commands are: a file unchanged
// since it was hashed and parsed is neither read nor parsed again, and
// gives the digest and form it gave; a file rewritten is read and parsed
// again; a candidate reached through a link is read each time, as before
// (issue 34: a hundred agents were read, hashed and parsed at every start).
func TestAFileCandidateUnchangedIsTakenFromTheCaches(t *testing.T) {
	dir, state, reads, parses := cachedTree(t, "agents/a.md=alpha", "agents/b.md=beta", "agents/l.md -> b.md")
	front := func(_, data []byte) ([]byte, []anomaly.Reason) {
		parses.Add(1)
		return append([]byte("form of "), data...), nil
	}
	spec := RootSpec{Path: filepath.Join(dir, "agents"), Files: true, Each: &NameSpec{Front: front, FrontTag: "t"}}
	plain := Scan(context.Background(), []RootSpec{spec}, DefaultConfig())[0]
	first, n, p := scanCached(t, state, spec, reads, parses)
	if n != 3 || p != 3 {
		t.Fatalf("the first walk read %d files and parsed %d, want 3 and 3", n, p)
	}
	second, n, p := scanCached(t, state, spec, reads, parses)
	if n != 1 || p != 1 {
		t.Fatalf("a walk of unchanged files read %d and parsed %d, want 1 and 1 (the link's)", n, p)
	}
	for _, name := range []string{"a.md", "b.md", "l.md"} {
		a, b, c := candidateNamed(plain, name), candidateNamed(first, name), candidateNamed(second, name)
		if a.Digest != b.Digest || a.Digest != c.Digest || string(a.Canonical) != string(c.Canonical) || c.Kind != KindFile {
			t.Errorf("%s: digest %x / %x / %x, form %q / %q, kind %v", name, a.Digest, b.Digest, c.Digest, a.Canonical, c.Canonical, c.Kind)
		}
	}
	if string(candidateNamed(second, "a.md").Canonical) != "form of alpha" {
		t.Errorf("a.md's form from the cache: %q", candidateNamed(second, "a.md").Canonical)
	}
	testtree.Must(t, os.WriteFile(filepath.Join(dir, "agents/a.md"), []byte("alpha"), 0o644))
	third, n, p := scanCached(t, state, spec, reads, parses)
	if n != 2 || p != 2 {
		t.Fatalf("after a.md was rewritten a walk read %d and parsed %d, want 2 and 2", n, p)
	}
	if candidateNamed(third, "a.md").Digest != candidateNamed(plain, "a.md").Digest {
		t.Error("the same bytes rewritten gave another digest")
	}
}

// A script a configuration runs (a hook's command: skillwire's own
// binary, 14 MB, in every real install) is hashed once, not at every
// start; one rewritten is read again and moves the digest.
func TestABoundScriptUnchangedIsNotReadAgain(t *testing.T) {
	dir, state, reads, parses := cachedTree(t, "conf/s.json=x", "bin/run=#!/bin/sh\necho one\n")
	run := filepath.Join(dir, "bin/run")
	spec := RootSpec{Path: filepath.Join(dir, "conf"), Names: []NameSpec{{Name: "s.json", Extract: firstLine, Scripts: func([]byte) []string { return []string{run} }}}}
	first, n, _ := scanCached(t, state, spec, reads, parses)
	if n != 1 {
		t.Fatalf("the first walk hashed %d files, want 1: the script (s.json is read for its form)", n)
	}
	second, n, _ := scanCached(t, state, spec, reads, parses)
	if n != 0 {
		t.Fatalf("a walk with the script unchanged hashed %d files, want 0", n)
	}
	if candidateNamed(first, "s.json").Digest != candidateNamed(second, "s.json").Digest {
		t.Fatal("the digest moved with nothing changed")
	}
	testtree.Must(t, os.WriteFile(run, []byte("#!/bin/sh\necho two\n"), 0o755))
	third, n, _ := scanCached(t, state, spec, reads, parses)
	if n != 1 || candidateNamed(third, "s.json").Digest == candidateNamed(first, "s.json").Digest {
		t.Fatalf("after the script changed: %d files hashed, digest moved %v", n, candidateNamed(third, "s.json").Digest != candidateNamed(first, "s.json").Digest)
	}
}

// The cache answers for the file that was looked at, or not at all: a
// name that holds another file by the time statx looks (renamed over in
// between) is not given the cached hash of the file it holds now; the
// caller reads it with the arrival proof, which fails.
func TestReusedAtRefusesAFileOtherThanTheOneLookedAt(t *testing.T) {
	dir, state, reads, parses := cachedTree(t, "agents/a.md=alpha", "agents/b.md=beta")
	spec := RootSpec{Path: filepath.Join(dir, "agents"), Files: true}
	scanCached(t, state, spec, reads, parses) // both hashed and kept
	cfg := DefaultConfig()
	cfg.Reuse = LoadHashes(filepath.Join(state, "hashes"))
	s := newScanner(context.Background(), cfg)
	defer s.close()
	w := &cwalk{s: s, st: s.main, q: quota{entries: 100, bytes: 1 << 20}}
	fd, err := openDirPath(filepath.Join(dir, "agents") + "/")
	testtree.Must(t, err)
	defer closeFD(fd)
	var a, b unix.Stat_t
	testtree.Must(t, fstatat(fd, []byte("a.md"), &a, unix.AT_SYMLINK_NOFOLLOW))
	testtree.Must(t, fstatat(fd, []byte("b.md"), &b, unix.AT_SYMLINK_NOFOLLOW))
	for _, tc := range []struct {
		want *unix.Stat_t
		ok   bool
	}{{&a, true}, {nil, true}, {&b, false}} {
		var e snapshot.Entry
		var id hashRec
		ok := w.reusedAt(fd, devOf(fd), znameOf([]byte("a.md")), tc.want, &e, &id)
		if ok != tc.ok || !ok && id != (hashRec{}) {
			t.Errorf("want %v: reused %v, id %+v; want reused %v and, when not, no identity", tc.want != nil && tc.want.Ino == b.Ino, ok, id, tc.ok)
		}
	}
}

// Past the cache's bound the newest records stay, whatever their keys:
// before, the lowest keys did, so a tree of more files than the bound
// could lose the very files this walk hashed.
func TestNewestHashesKeepsTheNewestInKeyOrder(t *testing.T) {
	rec := func(ino uint64, gen uint32) hashRec { return hashRec{mnt: 1, dev: 1, ino: ino, gen: gen} }
	recs := []hashRec{rec(1, 1), rec(2, 7), rec(3, 2), rec(4, 7), rec(5, 6)}
	got := newestHashes(slices.Clone(recs), 3)
	var inos []uint64
	for _, r := range got {
		inos = append(inos, r.ino)
	}
	if !slices.Equal(inos, []uint64{2, 4, 5}) {
		t.Errorf("kept %v, want [2 4 5]: the two of this save, then the next newest, in key order", inos)
	}
	if got := newestHashes(slices.Clone(recs), 5); len(got) != 5 || got[0].ino != 1 {
		t.Errorf("within the bound: %+v, want all, as given", got)
	}
}
