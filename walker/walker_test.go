package walker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

func TestSameTreeSameDigest(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	spec := []string{"s/SKILL.md=hello", "s/lib/x.py=print(1)", "s/empty/", "s/lib/deep/y"}
	testtree.Make(t, a, spec...)
	testtree.Make(t, b, spec...)
	if da, db := digestOf(t, a, "s"), digestOf(t, b, "s"); da != db {
		t.Fatalf("same tree at two paths: %v != %v", da, db)
	}
	if d1, d2 := digestOf(t, a, "s"), digestOf(t, a, "s"); d1 != d2 {
		t.Fatalf("same tree twice: %v != %v", d1, d2)
	}
}

func TestEveryContentChangeMovesTheDigest(t *testing.T) {
	base := []string{"s/SKILL.md=hello", "s/lib/x.py=print(1)", "s/lib/y"}
	cases := []struct {
		name   string
		mutate func(t *testing.T, s string)
	}{
		{"add file", func(t *testing.T, s string) { testtree.Make(t, s, "new") }},
		{"modify file", func(t *testing.T, s string) {
			testtree.Must(t, os.WriteFile(filepath.Join(s, "SKILL.md"), []byte("hellO"), 0o644))
		}},
		{"delete file", func(t *testing.T, s string) { testtree.Must(t, os.Remove(filepath.Join(s, "lib/y"))) }},
		{"rename file", func(t *testing.T, s string) {
			testtree.Must(t, os.Rename(filepath.Join(s, "lib/y"), filepath.Join(s, "lib/z")))
		}},
		{"chmod +x", func(t *testing.T, s string) { testtree.Must(t, os.Chmod(filepath.Join(s, "lib/x.py"), 0o755)) }},
		{"add empty directory", func(t *testing.T, s string) { testtree.Make(t, s, "lib/empty/") }},
		{"directory mode", func(t *testing.T, s string) { testtree.Must(t, os.Chmod(filepath.Join(s, "lib"), 0o700)) }},
		{"candidate mode", func(t *testing.T, s string) { testtree.Must(t, os.Chmod(s, 0o750)) }},
		{"same size other bytes", func(t *testing.T, s string) {
			testtree.Must(t, os.WriteFile(filepath.Join(s, "lib/y"), []byte("Y"), 0o644))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, base...)
			before := digestOf(t, dir, "s")
			tc.mutate(t, filepath.Join(dir, "s"))
			if after := digestOf(t, dir, "s"); after == before {
				t.Fatalf("digest did not move: %v", after)
			}
		})
	}
}

func TestTimesAloneDoNotMoveTheDigest(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/SKILL.md", "s/lib/x")
	before := digestOf(t, dir, "s")
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, p := range []string{"s/SKILL.md", "s/lib/x", "s/lib", "s"} {
		testtree.Must(t, os.Chtimes(filepath.Join(dir, p), old, old))
	}
	if after := digestOf(t, dir, "s"); after != before {
		t.Fatalf("mtime/atime moved the digest: %v -> %v", before, after)
	}
}

// The walker's side of injectivity: trees that differ only in where a
// boundary falls get different digests. The encoding side is in snapshot.
func TestCraftedTreesNeverShareADigest(t *testing.T) {
	pairs := []struct {
		name string
		a, b []string
	}{
		{"a/bc vs ab/c", []string{"s/a/bc"}, []string{"s/ab/c"}},
		{"x holding y vs empty xy", []string{"s/x=y"}, []string{"s/xy="}},
		{"newline cannot forge an entry", []string{"s/a\nb=1"}, []string{"s/a=1", "s/b=1"}},
		{"link vs file holding its target", []string{"s/x -> symlink"}, []string{"s/x=symlink"}},
		{"empty dir vs empty file", []string{"s/x/"}, []string{"s/x="}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			testtree.Make(t, a, p.a...)
			testtree.Make(t, b, p.b...)
			ca, cb := observe(t, a, "s", Config{}), observe(t, b, "s", Config{})
			if ca.Digest == cb.Digest {
				t.Fatalf("collision: %q and %q", entryPaths(&ca.Manifest), entryPaths(&cb.Manifest))
			}
		})
	}
}

func TestNestedNonUTF8NamesAreBytesFaithfulAndNotBadname(t *testing.T) {
	dir := t.TempDir()
	name := "f\xff\xfe\n\x1b[31m"
	testtree.Make(t, dir, "s/"+name+"=x")
	c := observe(t, dir, "s", Config{})
	if len(c.Anomalies()) != 0 {
		t.Fatalf("nested odd name is not an anomaly, got %v", reasonsOf(c.Anomalies()))
	}
	if !slices.Contains(entryPaths(&c.Manifest), name) {
		t.Fatalf("raw name not kept: %q", entryPaths(&c.Manifest))
	}
}

func TestNestedSymlinkIsNeverFollowedAndIsAnAnomaly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside/secret=TOPSECRET", "s/ok", "s/l -> ../outside", "s/f -> ../outside/secret")
	c := observe(t, dir, "s", Config{})
	for _, e := range c.Manifest.Entries {
		if string(e.Path) == "l/secret" || e.Kind == snapshot.File && string(e.Path) == "f" {
			t.Fatalf("followed a nested link: %q", e.Path)
		}
	}
	if !hasAnomaly(&c, anomaly.Symlink, "l") || !hasAnomaly(&c, anomaly.Symlink, "f") {
		t.Fatalf("want symlink anomalies, got %v", reasonsOf(c.Anomalies()))
	}
	before := c.Digest
	testtree.Must(t, os.Remove(filepath.Join(dir, "s/l")))
	testtree.Must(t, os.Symlink("../elsewhere", filepath.Join(dir, "s/l")))
	if after := observe(t, dir, "s", Config{}).Digest; after == before {
		t.Fatal("retargeting a nested link did not move the digest")
	}
}

func TestTopLevelSymlinkedSkillIsObservedThroughTheLink(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "checkout/a/SKILL.md=one", "checkout/b/SKILL.md=one", "root/s -> ../checkout/a")
	root := filepath.Join(dir, "root")
	c := observe(t, root, "s", Config{})
	if len(c.Anomalies()) != 0 || !c.Manifest.ViaLink || string(c.Manifest.Link) != "../checkout/a" {
		t.Fatalf("via link: anomalies %v, ViaLink %v, Link %q", reasonsOf(c.Anomalies()), c.Manifest.ViaLink, c.Manifest.Link)
	}
	if !slices.Contains(entryPaths(&c.Manifest), "SKILL.md") {
		t.Fatalf("target not observed: %q", entryPaths(&c.Manifest))
	}
	// b has the same content as a: only the link text tells them apart.
	testtree.Must(t, os.Remove(filepath.Join(root, "s")))
	testtree.Must(t, os.Symlink("../checkout/b", filepath.Join(root, "s")))
	if c2 := observe(t, root, "s", Config{}); c2.Digest == c.Digest {
		t.Fatal("retargeting the top-level link did not move the digest")
	}
	// The same content, not through a link, is yet another digest.
	if plain := digestOf(t, filepath.Join(dir, "checkout"), "a"); plain == c.Digest {
		t.Fatal("link text is not bound into the digest")
	}
}

func TestDanglingTopLevelLinkIsARootAnomaly(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s -> nowhere")
	c := observe(t, dir, "s", Config{})
	if !hasAnomaly(&c, anomaly.Root, "") || !c.Manifest.ViaLink {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
}

// runWithin fails the test if f does not return within d. A walk that
// opened a FIFO without O_NONBLOCK would hang here.
func runWithin(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatal("walk did not finish: something blocked")
	}
}

func TestFIFOIsNeverOpened(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/ok", "s/pipe|", "s/sub/pipe2|")
	var c Candidate
	runWithin(t, 10*time.Second, func() { c = observe(t, dir, "s", Config{}) })
	if !hasAnomaly(&c, anomaly.Special, "pipe") || !hasAnomaly(&c, anomaly.Special, "sub/pipe2") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
}

func TestSocketIsSpecial(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	testtree.Must(t, err)
	defer unix.Close(fd)
	testtree.Must(t, unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(dir, "s/sock")}))
	c := observe(t, dir, "s", Config{})
	if !hasAnomaly(&c, anomaly.Special, "sock") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
}

func TestFileSwappedForFIFOAfterListingIsSwappedAndDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/victim=data")
	victim := filepath.Join(dir, "s/victim")
	testHookListed = func(p []byte) {
		if len(p) == 0 {
			testtree.Must(t, os.Remove(victim))
			testtree.Must(t, unix.Mkfifo(victim, 0o644))
		}
	}
	defer func() { testHookListed = nil }()
	var c Candidate
	runWithin(t, 10*time.Second, func() { c = observe(t, dir, "s", Config{}) })
	if !hasAnomaly(&c, anomaly.Swapped, "victim") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
}

// A regular file swapped for a link to outside content between listing
// and opening. The open refuses the link (O_NOFOLLOW), and the content
// outside is never read. Found in review: nested files were opened
// without it.
func TestFileSwappedForSymlinkAfterListingIsSwappedNeverFollowed(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside=SECRET-CONTENT", "s/victim=innocent", "s/d/nested=innocent")
	for _, victim := range []string{"s/victim", "s/d/nested"} {
		t.Run(victim, func(t *testing.T) {
			p := filepath.Join(dir, victim)
			testHookListed = func(listed []byte) {
				if filepath.Join(dir, "s", string(listed)) == filepath.Dir(p) {
					testtree.Must(t, os.Remove(p))
					testtree.Must(t, os.Symlink(filepath.Join(dir, "outside"), p))
				}
			}
			defer func() { testHookListed = nil }()
			for _, workers := range []int{1, 2} {
				cfg := DefaultConfig()
				cfg.Workers = workers
				c := observe(t, dir, "s", cfg)
				rel := victim[len("s/"):]
				secret := snapshot.Hash(blake3.Sum256([]byte("SECRET-CONTENT")))
				for _, e := range c.Manifest.Entries {
					if e.Kind == snapshot.File && e.Hash == secret {
						t.Fatalf("workers=%d: hashed the content outside the candidate at %q", workers, e.Path)
					}
				}
				if !hasAnomaly(&c, anomaly.Swapped, rel) {
					t.Fatalf("workers=%d: got %v", workers, reasonsOf(c.Anomalies()))
				}
				testtree.Must(t, os.Remove(p))
				testtree.Must(t, os.WriteFile(p, []byte("innocent"), 0o644))
			}
		})
	}
}

func TestOversizeFileIsNeverHashed(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/big=0123456789", "s/small=01")
	cfg := DefaultConfig()
	cfg.MaxFileBytes = 5
	c := observe(t, dir, "s", cfg)
	if !hasAnomaly(&c, anomaly.Oversize, "big") || hasAnomaly(&c, anomaly.Oversize, "small") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
	for _, e := range c.Manifest.Entries {
		if string(e.Path) == "big" && e.Hash != (snapshot.Hash{}) {
			t.Fatal("oversize file carries a hash")
		}
	}
}

func TestFileChangedWhileHashedIsUnstableAndItsHashDiscarded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(p string)
	}{
		{"grows", func(p string) {
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("more")
			f.Close()
		}},
		{"rewritten same size", func(p string) {
			// A new ctime is what betrays a same-size rewrite.
			time.Sleep(20 * time.Millisecond)
			os.WriteFile(p, []byte("DATA"), 0o644)
		}},
		{"shrinks", func(p string) { os.Truncate(p, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, "s/f=data", "s/g=other")
			target := filepath.Join(dir, "s/f")
			testHookRead = func(p []byte) {
				if string(p) == "f" {
					tc.mutate(target)
				}
			}
			defer func() { testHookRead = nil }()
			c := observe(t, dir, "s", Config{Workers: 1})
			if !hasAnomaly(&c, anomaly.Unstable, "f") || hasAnomaly(&c, anomaly.Unstable, "g") {
				t.Fatalf("got %v", reasonsOf(c.Anomalies()))
			}
		})
	}
}

func TestDirectorySwappedForSymlinkDuringWalkIsSwapped(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside/SECRET=x", "s/sub/inner")
	sub := filepath.Join(dir, "s/sub")
	testHookListed = func(p []byte) {
		if len(p) == 0 {
			testtree.Must(t, os.RemoveAll(sub))
			testtree.Must(t, os.Symlink(filepath.Join(dir, "outside"), sub))
		}
	}
	defer func() { testHookListed = nil }()
	c := observe(t, dir, "s", Config{})
	if !hasAnomaly(&c, anomaly.Swapped, "sub") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
	if slices.Contains(entryPaths(&c.Manifest), "sub/SECRET") {
		t.Fatal("content from outside the candidate")
	}
}

// The real race, without hooks: a goroutine flips a directory and a link
// to outside content while walks run. Whatever the interleaving, no walk
// may report content from outside. The swap window is hit at least once.
func TestRaceDirectorySwapNeverLeaksOutsideContent(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "outside/SECRET=x", "s/sub/inner", "s/f")
	sub := filepath.Join(dir, "s/sub")
	spare := filepath.Join(dir, "spare")
	testtree.Must(t, os.Mkdir(spare, 0o755))
	link := filepath.Join(dir, "link")
	testtree.Must(t, os.Symlink(filepath.Join(dir, "outside"), link))

	// The directory and the link swap places atomically, again and again.
	stop := keepExchanging(t, [2]string{sub, link})
	hits := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline) && (hits == 0 || i < 200); i++ {
		c := observe(t, dir, "s", Config{Workers: 1})
		for _, p := range entryPaths(&c.Manifest) {
			if p == "sub/SECRET" {
				stop()
				t.Fatalf("iteration %d: content from outside the candidate", i)
			}
		}
		if hasAnomaly(&c, anomaly.Swapped, "sub") {
			hits++
		}
	}
	stop()
	if hits == 0 {
		t.Fatal("the swap window was never hit in 20s: the race test proves nothing")
	}
	t.Logf("swap window hit %d times", hits)
}

func TestUnreadableFileAndDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		runUnprivileged(t, "TestUnreadableFileAndDirectory")
		return
	}
	dir := t.TempDir()
	testtree.Make(t, dir, "s/ok", "s/secret=x", "s/closed/inner")
	testtree.Must(t, os.Chmod(filepath.Join(dir, "s/secret"), 0))
	testtree.Must(t, os.Chmod(filepath.Join(dir, "s/closed"), 0))
	defer os.Chmod(filepath.Join(dir, "s/closed"), 0o755)
	c := observe(t, dir, "s", Config{})
	if !hasAnomaly(&c, anomaly.Unreadable, "secret") || !hasAnomaly(&c, anomaly.Unreadable, "closed") {
		t.Fatalf("got %v", reasonsOf(c.Anomalies()))
	}
	if hasAnomaly(&c, anomaly.Unreadable, "ok") {
		t.Fatal("readable file reported unreadable")
	}
}

func TestDepthBreachIsAnAnomalyNotPartial(t *testing.T) {
	dir := t.TempDir()
	deep := "s"
	for i := 0; i < 31; i++ {
		deep += "/d"
	}
	testtree.Make(t, dir, deep+"/")
	c := observe(t, dir, "s", Config{})
	if c.Partial() {
		t.Fatal("a depth breach made the candidate partial")
	}
	var depthAt string
	for _, f := range c.Anomalies() {
		if f.Reason == anomaly.Depth {
			depthAt = string(f.Path)
		}
	}
	if want := 24; len(depthAt) != 2*want-1 {
		t.Fatalf("depth anomaly at %q (%d components), want at %d", depthAt, (len(depthAt)+1)/2, want)
	}
	if n := len(c.Manifest.Entries); n != 25 {
		t.Fatalf("entries = %d, want 25 (root, 23 directories, the depth anomaly)", n)
	}
}

func TestFanoutBreachIsAnAnomalyNotPartial(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "s/ok", "s/wide/")
	for i := range 50 {
		testtree.Make(t, dir, filepath.Join("s/wide", "f"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	cfg := DefaultConfig()
	cfg.MaxDirEntries = 10
	c := observe(t, dir, "s", cfg)
	if c.Partial() || !hasAnomaly(&c, anomaly.Fanout, "wide") {
		t.Fatalf("partial %v, anomalies %v", c.Partial(), reasonsOf(c.Anomalies()))
	}
	if !slices.Contains(entryPaths(&c.Manifest), "ok") {
		t.Fatal("the rest of the candidate was not observed")
	}
}

func TestFileDescriptorsStayBoundedByDepth(t *testing.T) {
	flat := t.TempDir()
	testtree.Make(t, flat, "s/")
	for i := range 20000 {
		testtree.Must(t, os.WriteFile(filepath.Join(flat, "s", "f"+itoa(i)), []byte("x"), 0o644))
	}
	chain := t.TempDir()
	deep := "s"
	for range 23 {
		deep += "/d"
	}
	testtree.Make(t, chain, deep+"/leaf")
	// Many directories with files: each batch in flight holds its
	// directory open, so the readers' window bounds these too.
	wide := t.TempDir()
	for i := range 300 {
		for j := range 10 {
			testtree.Make(t, wide, "s/d"+itoa(i)+"/e/f"+itoa(j))
		}
	}

	for _, tc := range []struct {
		name, dir string
		limit     int
	}{
		{"flat 20000", flat, 8},
		{"chain 24 deep", chain, 24 + 8},
		{"300 directories of files", wide, 3 + window + 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := openFDs(t)
			var peakFDs atomic.Int64 // the hook runs on every reader goroutine
			testHookRead = func([]byte) {
				n := int64(openFDs(t) - base)
				for p := peakFDs.Load(); n > p && !peakFDs.CompareAndSwap(p, n); p = peakFDs.Load() {
				}
			}
			defer func() { testHookRead = nil }()
			cfg := DefaultConfig()
			cfg.MaxDirEntries = 30000
			c := observe(t, tc.dir, "s", cfg)
			if len(c.Anomalies()) != 0 {
				t.Fatalf("anomalies %v", reasonsOf(c.Anomalies()))
			}
			peak := int(peakFDs.Load())
			if peak == 0 || peak > tc.limit {
				t.Fatalf("peak extra fds %d, want 1..%d", peak, tc.limit)
			}
			t.Logf("peak extra fds: %d", peak)
		})
	}
}

func openFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func itoa(i int) string {
	return string(appendInt(nil, i))
}

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func TestScanSelectsCandidatesByRootKind(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir,
		"skills/a/SKILL.md", "skills/loose.md", "skills/l -> a", "skills/fl -> loose.md", "skills/dangling -> nowhere",
		"agents/x.md", "agents/dir/y.md", "agents/lx -> x.md")
	roots := Scan(context.Background(), []RootSpec{
		{Path: filepath.Join(dir, "skills")},
		{Path: filepath.Join(dir, "agents"), Files: true},
		{Path: filepath.Join(dir, "missing")},
		{Path: filepath.Join(dir, "agents/x.md")},
	}, DefaultConfig())
	names := func(r Root) []string {
		var out []string
		for _, c := range r.Candidates {
			out = append(out, string(c.Name))
		}
		return out
	}
	if got, want := names(roots[0]), []string{"a", "dangling", "l"}; !slices.Equal(got, want) {
		t.Errorf("skills candidates %q, want %q", got, want)
	}
	if got, want := names(roots[1]), []string{"dir", "lx", "x.md"}; !slices.Equal(got, want) {
		t.Errorf("agents candidates %q, want %q", got, want)
	}
	if !roots[2].Missing || len(roots[2].Anomalies) != 0 {
		t.Errorf("missing root: %+v", roots[2])
	}
	if !slices.Equal(roots[3].Anomalies, []anomaly.Reason{anomaly.Root}) {
		t.Errorf("a file as root: %+v", roots[3].Anomalies)
	}
	if k := roots[1].Candidates[2].Kind; k != KindFile {
		t.Errorf("x.md kind %v", k)
	}
}

func TestScanAndObserveAgreeOnEveryDigest(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "skills/a/SKILL.md", "skills/b/p|", "skills/c -> a", "skills/d/l -> /etc")
	roots := Scan(context.Background(), []RootSpec{{Path: filepath.Join(dir, "skills")}}, DefaultConfig())
	for _, c := range roots[0].Candidates {
		o := observe(t, filepath.Join(dir, "skills"), string(c.Name), Config{})
		if o.Digest != c.Digest {
			t.Errorf("%s: scan %v, observe %v", c.Name, c.Digest, o.Digest)
		}
	}
}

// Readers fill file entries in place while the traversal descends. The
// manifest must come out in canonical order, identical whatever the
// number of readers. It must equal a plain recursive walk of the same
// tree.
func TestManifestDoesNotDependOnTheNumberOfReaders(t *testing.T) {
	dir := t.TempDir()
	var specs []string
	for i := range 40 {
		d := "s/d" + itoa(i%7) + "/e" + itoa(i%3)
		specs = append(specs, "s/f"+itoa(i), d+"/a"+itoa(i), d+"/z"+itoa(i)+"/leaf", "s/d"+itoa(i%7)+"/m"+itoa(i))
	}
	specs = append(specs, "s/empty/", "s/d0/l -> nowhere", "s/d1/p|")
	testtree.Make(t, dir, specs...)

	want := referenceEntries(t, filepath.Join(dir, "s"))
	for _, workers := range []int{1, 2, 3, 8} {
		cfg := DefaultConfig()
		cfg.Workers = workers
		c := observe(t, dir, "s", cfg)
		if c.Partial() {
			t.Fatalf("workers=%d: partial", workers)
		}
		got := make([]string, len(c.Manifest.Entries))
		for i, e := range c.Manifest.Entries {
			got[i] = describeEntry(e)
		}
		if !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("workers=%d: %d entries, want %d; first difference at %d:\n got %q\nwant %q",
				workers, len(got), len(want), i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
		}
	}
}

// referenceEntries walks root with the os package, siblings sorted, and
// describes each entry as describeEntry does.
func referenceEntries(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	var walk func(rel string)
	walk = func(rel string) {
		ents, err := os.ReadDir(filepath.Join(root, rel))
		testtree.Must(t, err)
		for _, e := range ents { // sorted by name: the bytes order of ComparePaths for these names
			p := filepath.Join(rel, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				target, err := os.Readlink(filepath.Join(root, p))
				testtree.Must(t, err)
				out = append(out, "L "+p+" -> "+target)
			case e.IsDir():
				out = append(out, "D "+p)
				walk(p)
			case e.Type().IsRegular():
				data, err := os.ReadFile(filepath.Join(root, p))
				testtree.Must(t, err)
				out = append(out, fmt.Sprintf("F %s %x", p, blake3.Sum256(data)))
			default:
				out = append(out, "A "+p+" special")
			}
		}
	}
	out = append(out, "D ")
	walk("")
	return out
}

func describeEntry(e snapshot.Entry) string {
	switch e.Kind {
	case snapshot.Dir:
		return "D " + string(e.Path)
	case snapshot.File:
		return fmt.Sprintf("F %s %x", e.Path, e.Hash[:])
	case snapshot.Symlink:
		return "L " + string(e.Path) + " -> " + string(e.Target)
	}
	return "A " + string(e.Path) + " " + e.Reason.String()
}
