package walker

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/zeebo/blake3"
)

// fronting walks dir/skills with the caches of state and a spec whose
// Front counts its calls, saves both caches, and returns the candidates.
func fronting(t *testing.T, state, dir, tag string, parses *atomic.Int64) []Candidate {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Reuse = LoadHashes(filepath.Join(state, "hashes"))
	cfg.Fronts = LoadFrontCache(filepath.Join(state, "fronts"))
	front := func(path, data []byte) ([]byte, []anomaly.Reason) {
		parses.Add(1)
		if string(data) == "bad" {
			return []byte("form of bad"), []anomaly.Reason{anomaly.Unparsable}
		}
		return append([]byte("form of "), data...), nil
	}
	spec := RootSpec{Path: filepath.Join(dir, "skills"), Each: &NameSpec{Front: front, FrontFile: "SKILL.md", FrontTag: tag}}
	rs := Scan(context.Background(), []RootSpec{spec}, cfg)
	testtree.Must(t, cfg.Reuse.Save())
	testtree.Must(t, cfg.Fronts.Save())
	return rs[0].Candidates
}

// Parsing a SKILL.md is the cost of a start, 17 ms for 64 KiB of hostile
// YAML (issue 34): a file unchanged since it was parsed is not parsed
// again, and gives the very form and reasons it gave.
func TestAFrontParsedOnceIsReusedWhileItsFileIsUnchanged(t *testing.T) {
	pastRacyWindow(t)
	var parses atomic.Int64
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=bad", "skills/c/other=x")
	first := fronting(t, state, dir, "t", &parses)
	if n := parses.Swap(0); n != 2 {
		t.Fatalf("the first walk parsed %d front files, want 2", n)
	}
	second := fronting(t, state, dir, "t", &parses)
	if n := parses.Swap(0); n != 0 {
		t.Fatalf("a walk of unchanged front files parsed %d, want 0", n)
	}
	for i := range first {
		f, s := first[i], second[i]
		if string(f.Canonical) != string(s.Canonical) || len(f.Front) != len(s.Front) || f.Digest != s.Digest {
			t.Errorf("%s: reused form %q %v, parsed %q %v", f.Name, s.Canonical, s.Front, f.Canonical, f.Front)
		}
	}
	if string(second[1].Canonical) != "form of bad" || len(second[1].Front) != 1 || second[1].Front[0].Reason != anomaly.Unparsable {
		t.Errorf("b's reused form %q %v", second[1].Canonical, second[1].Front)
	}
	// Another Front (tag) parses again; a file written parses again, even
	// with its bytes put back.
	fronting(t, state, dir, "u", &parses)
	if n := parses.Swap(0); n != 2 {
		t.Fatalf("a walk under another tag parsed %d, want 2", n)
	}
	p := filepath.Join(dir, "skills/a/SKILL.md")
	testtree.Must(t, os.WriteFile(p, []byte("alpha"), 0o644))
	third := fronting(t, state, dir, "t", &parses)
	if n := parses.Swap(0); n != 1 {
		t.Fatalf("after a write, a walk parsed %d, want 1", n)
	}
	if string(third[0].Canonical) != "form of alpha" {
		t.Errorf("a's form %q", third[0].Canonical)
	}
}

// Another build may parse otherwise: a cache another skillwire wrote is
// not taken, and one tampered with, cut short or filled with garbage is
// rejected whole, never half read.
func TestAFrontCacheOfAnotherBuildOrCorruptIsNotTaken(t *testing.T) {
	pastRacyWindow(t)
	var parses atomic.Int64
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=bad")
	fronting(t, state, dir, "t", &parses)
	parses.Store(0)
	t.Cleanup(func() { buildOf = buildID })
	buildOf = func() ([32]byte, bool) { b, ok := buildID(); b[0] ^= 1; return b, ok }
	fronting(t, state, dir, "t", &parses)
	if n := parses.Swap(0); n != 2 {
		t.Fatalf("under another build a walk parsed %d, want 2", n)
	}
	p := filepath.Join(state, "fronts")
	good, err := os.ReadFile(p)
	testtree.Must(t, err)
	for name, bad := range map[string][]byte{
		"a byte flipped": append(append([]byte{}, good[:len(good)/2]...), append([]byte{good[len(good)/2] ^ 0x40}, good[len(good)/2+1:]...)...),
		"cut short":      good[:len(good)-7],
		"garbage":        bytes.Repeat([]byte{0xff}, 4096),
		"empty":          nil,
		// Sealed as Save seals, but not in the order Save writes: a
		// lookup is a binary search.
		"out of order":   resealFronts(t, good, func(recs [][]byte) [][]byte { return [][]byte{recs[1], recs[0]} }),
		"a record twice": resealFronts(t, good, func(recs [][]byte) [][]byte { return [][]byte{recs[0], recs[0], recs[1]} }),
	} {
		testtree.Must(t, os.WriteFile(p, bad, 0o600))
		fronting(t, state, dir, "t", &parses)
		if n := parses.Swap(0); n != 2 {
			t.Errorf("%s: a walk parsed %d, want 2", name, n)
		}
		testtree.Must(t, os.WriteFile(p, good, 0o600))
	}
	// Written by someone else: not the user's, or writable by others.
	testtree.Must(t, os.Chmod(p, 0o666))
	fronting(t, state, dir, "t", &parses)
	if n := parses.Swap(0); n != 2 {
		t.Errorf("a cache others may write: a walk parsed %d, want 2", n)
	}
}

// The gate learns a candidate's name from its front file alone
// (FrontsIf). With the cache a walk filled, it does not read the file,
// and gives the form parsed, never a skip.
func TestTheGatesFrontsComeFromTheCacheAWalkFilled(t *testing.T) {
	pastRacyWindow(t)
	var parses atomic.Int64
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=bad")
	fronting(t, state, dir, "t", &parses)
	parses.Store(0)
	reads := countReadsWhole(t)
	spec := RootSpec{Path: filepath.Join(dir, "skills"), Each: &NameSpec{Front: func(_, d []byte) ([]byte, []anomaly.Reason) {
		parses.Add(1)
		return d, nil
	}, FrontFile: "SKILL.md", FrontTag: "t"}}
	never := func(int, []byte) bool { return false }
	names := [][]byte{[]byte("a"), []byte("b")}
	got := FrontsIf(spec, names, never, LoadFrontCache(filepath.Join(state, "fronts")))
	if got[0].Skipped || string(got[0].Canonical) != "form of alpha" || got[1].Reason != anomaly.Unparsable || reads.Load() != 0 || parses.Load() != 0 {
		t.Errorf("with the cache: %+v, %d read, %d parsed", got, reads.Load(), parses.Load())
	}
	got = FrontsIf(spec, names, never, nil)
	if !got[0].Skipped || reads.Load() != 2 {
		t.Errorf("without it: %+v, %d read", got, reads.Load())
	}
}

// countReadsWhole counts the files read whole (readWholeInto) while the
// test runs.
func countReadsWhole(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	testHookWhole = func() { n.Add(1) }
	t.Cleanup(func() { testHookWhole = nil })
	return &n
}

// FrontsIf answers from one statx of name/FrontFile when that suffices
// (frontAt). Whatever the candidate is, its answer must be the one
// reading it gives (frontOf).
func TestOneStatxOfAFrontFileAnswersAsReadingItDoes(t *testing.T) {
	pastRacyWindow(t)
	var parses atomic.Int64
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=bad", "skills/none/x=1", "skills/file=f",
		"skills/gone -> nowhere", "skills/linked -> ../elsewhere/l", "elsewhere/l/SKILL.md=linked", "skills/tolink/SKILL.md -> ../a/SKILL.md",
		"skills/todir -> ../elsewhere/empty", "elsewhere/empty/")
	fronting(t, state, dir, "t", &parses)
	spec := RootSpec{Path: filepath.Join(dir, "skills"), Each: &NameSpec{Front: func(_, d []byte) ([]byte, []anomaly.Reason) {
		if string(d) == "bad" {
			return []byte("form of bad"), []anomaly.Reason{anomaly.Unparsable}
		}
		return append([]byte("form of "), d...), nil
	}, FrontFile: "SKILL.md", FrontTag: "t"}}
	names := [][]byte{[]byte("a"), []byte("b"), []byte("none"), []byte("file"), []byte("gone"), []byte("linked"),
		[]byte("tolink"), []byte("todir"), []byte("missing"), []byte(".."), []byte(".")}
	rootfd, err := openDirPath(spec.Path)
	testtree.Must(t, err)
	defer closeFD(rootfd)
	for _, cache := range []*FrontCache{nil, LoadFrontCache(filepath.Join(state, "fronts"))} {
		got := FrontsIf(spec, names, nil, cache)
		for i, n := range names {
			var buf []byte
			want := frontOf(rootfd, spec.nameSpec(n), n, nil, &buf)
			if string(got[i].Canonical) != string(want.Canonical) || got[i].Reason != want.Reason || got[i].Skipped != want.Skipped {
				t.Errorf("cache %v, %q: %+v, reading it %+v", cache != nil, n, got[i], want)
			}
		}
	}
}

// FrontsBy reads no front file past its deadline: the names it did not
// reach come back unread, so the caller holds them unknown. Before the
// deadline it answers as FrontsIf.
func TestFrontsByReadsNothingPastItsDeadline(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=beta")
	var parsed atomic.Int64
	spec := RootSpec{Path: filepath.Join(dir, "skills"), Each: &NameSpec{Front: func(_, d []byte) ([]byte, []anomaly.Reason) {
		parsed.Add(1)
		return append([]byte("form of "), d...), nil
	}, FrontFile: "SKILL.md", FrontTag: "t"}}
	names := [][]byte{[]byte("a"), []byte("b")}
	got, read := FrontsBy(spec, names, nil, nil, time.Now().Add(-time.Second))
	if read != 0 || parsed.Load() != 0 || got[0].Canonical != nil || got[1].Canonical != nil {
		t.Errorf("past its deadline: read %d, parsed %d, %+v", read, parsed.Load(), got)
	}
	for _, deadline := range []time.Time{{}, time.Now().Add(time.Hour)} {
		got, read = FrontsBy(spec, names, nil, nil, deadline)
		if read != 2 || string(got[0].Canonical) != "form of alpha" || string(got[1].Canonical) != "form of beta" {
			t.Errorf("deadline %v: read %d, %+v", deadline, read, got)
		}
	}
	if len(FrontsIf(spec, names, nil, nil)) != 2 {
		t.Errorf("FrontsIf answered fewer than its names")
	}
}

// One FrontsBy makes each spec's tag once, yet a name under another spec
// is looked up under that spec's tag: a front file parsed under one Front
// is never another's.
func TestFrontsByLooksUpEachNameUnderItsOwnSpecsTag(t *testing.T) {
	pastRacyWindow(t)
	dir, state := t.TempDir(), stateDir(t)
	testtree.Make(t, dir, "skills/a/SKILL.md=alpha", "skills/b/SKILL.md=beta", "skills/c/SKILL.md=gamma")
	var parses atomic.Int64
	front := func(tag string) *NameSpec {
		return &NameSpec{Front: func(_, d []byte) ([]byte, []anomaly.Reason) {
			parses.Add(1)
			return append([]byte(tag+" form of "), d...), nil
		}, FrontFile: "SKILL.md", FrontTag: tag}
	}
	fronting(t, state, dir, "t", &parses) // a, b and c parsed under t
	parses.Store(0)
	named := func(n, tag string) NameSpec { s := *front(tag); s.Name = n; return s }
	spec := RootSpec{Path: filepath.Join(dir, "skills"), Names: []NameSpec{named("a", "t"), named("b", "u"), named("c", "t")}}
	names := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	got, _ := FrontsBy(spec, names, nil, LoadFrontCache(filepath.Join(state, "fronts")), time.Time{})
	if parses.Load() != 1 || string(got[1].Canonical) != "u form of beta" {
		t.Errorf("b under u: %d parsed, %q; want it parsed under u alone", parses.Load(), got[1].Canonical)
	}
	if string(got[0].Canonical) != "form of alpha" || string(got[2].Canonical) != "form of gamma" {
		t.Errorf("a and c under t: %q %q; want the forms kept under t", got[0].Canonical, got[2].Canonical)
	}
}

// resealFronts is the cache file good with its records rearranged by
// change, counted and checksummed as Save writes them.
func resealFronts(t *testing.T, good []byte, change func([][]byte) [][]byte) []byte {
	t.Helper()
	head := len(frontsMagic) + 32 + 8
	p := good[head : len(good)-32]
	var recs [][]byte
	for len(p) > 0 {
		_, rest, ok := decodeFront(p)
		if !ok {
			t.Fatal("the cache Save wrote does not decode")
		}
		recs, p = append(recs, p[:len(p)-len(rest)]), rest
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	recs = change(recs)
	b := append([]byte{}, good[:head-4]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(recs)))
	for _, r := range recs {
		b = append(b, r...)
	}
	sum := blake3.Sum256(b)
	return append(b, sum[:]...)
}

// putFront puts a record for a file of inode ino, changed long before
// the walk, with a canonical form of n bytes; hasFront finds it.
func putFront(f *FrontCache, ino uint64, n int) {
	id := fakeFrontID(ino, n)
	f.put(&id, [16]byte{'t'}, blake3.Sum256(nil), bytes.Repeat([]byte{'c'}, n), nil, false, time.Now())
}

func hasFront(f *FrontCache, ino uint64, n int) bool {
	id := fakeFrontID(ino, n)
	r, ok := f.get(&id, [16]byte{'t'})
	return ok && len(r.canon) == n
}

func fakeFrontID(ino uint64, n int) hashRec {
	return hashRec{mnt: 1, dev: 1, ino: ino, size: int64(n), mode: 0o100644, ctime: [2]int64{1, 0}}
}

// More front files than the file's bounds hold (64 MiB of forms of up to
// 64 KiB each): Save keeps as many as fit, not none, and a save keeps
// what it parsed before records no walk used since, whatever their keys.
// Before, such a cache was never written, and every start parsed every
// front file again; and past the count bound the highest keys were
// dropped, the newest among them.
func TestAFrontCachePastItsBoundsKeepsTheNewest(t *testing.T) {
	path := filepath.Join(stateDir(t), "fronts")
	f := LoadFrontCache(path)
	const many = maxFronts/maxFrontCanon + 8
	for ino := range uint64(many) {
		putFront(f, 1000+ino, maxFrontCanon)
	}
	testtree.Must(t, f.Save())
	st, err := os.Stat(path)
	testtree.Must(t, err)
	if st.Size() > maxFronts {
		t.Fatalf("the cache is %d bytes, past the %d a load reads", st.Size(), maxFronts)
	}
	f = LoadFrontCache(path)
	kept := 0
	for ino := range uint64(many) {
		if hasFront(f, 1000+ino, maxFrontCanon) {
			kept++
		}
	}
	if kept < many-16 || kept == many {
		t.Fatalf("%d of %d records kept, want all but the few past 64 MiB", kept, many)
	}
	// A second save parses ten new files, keyed below every record kept:
	// the ten are kept, records of the first save leave room for them.
	for ino := range uint64(10) {
		putFront(f, ino, maxFrontCanon)
	}
	testtree.Must(t, f.Save())
	f = LoadFrontCache(path)
	for ino := range uint64(10) {
		if !hasFront(f, ino, maxFrontCanon) {
			t.Errorf("the record this save parsed, ino %d, was not kept", ino)
		}
	}
}

// keepFronts by count and by size: the newest first, a record too large
// for what is left passed over for smaller ones, written in key order.
func TestKeepFrontsKeepsTheNewestWithinTheBounds(t *testing.T) {
	rec := func(ino uint64, gen uint32, n int) frontRec {
		return frontRec{key: frontKey{mnt: 1, dev: 1, ino: ino}, gen: gen, canon: make([]byte, n)}
	}
	recs := []frontRec{rec(1, 1, 0), rec(2, 5, 0), rec(3, 4, 0), rec(4, 5, 0), rec(5, 3, 0)}
	inos := func(rs []frontRec) (out []uint64) {
		for _, r := range rs {
			out = append(out, r.key.ino)
		}
		return out
	}
	if got := inos(keepFronts(slices.Clone(recs), 3, 1<<20)); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Errorf("by count: kept %v, want [2 3 4]", got)
	}
	recs = []frontRec{rec(1, 5, 100), rec(2, 5, 1000), rec(3, 4, 100), rec(4, 1, 10)}
	room := 3*frontFixed + 100 + 100 + 10 // 1 and 3 and 4; 2 does not fit
	if got := inos(keepFronts(slices.Clone(recs), 10, room)); !slices.Equal(got, []uint64{1, 3, 4}) {
		t.Errorf("by size: kept %v, want [1 3 4]", got)
	}
}

// encodedLen is what append writes, whatever the reasons and form.
func TestAFrontRecordsEncodedLenIsWhatAppendWrites(t *testing.T) {
	for _, r := range []frontRec{{}, {canon: []byte{}}, {canon: []byte("form"), reasons: []anomaly.Reason{anomaly.Unparsable}},
		{canon: make([]byte, maxFrontCanon), reasons: make([]anomaly.Reason, 255)}} {
		if got := len(r.append(nil)); got != r.encodedLen() {
			t.Errorf("append wrote %d bytes, encodedLen says %d", got, r.encodedLen())
		}
	}
}
