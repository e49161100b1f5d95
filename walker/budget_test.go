package walker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"golang.org/x/sys/unix"
)

func scanSkills(t *testing.T, dir string, cfg Config) []Candidate {
	t.Helper()
	roots := Scan(context.Background(), []RootSpec{{Path: dir}}, cfg)
	if len(roots[0].Anomalies) > 0 || roots[0].Missing {
		t.Fatalf("root: %+v", roots[0])
	}
	return roots[0].Candidates
}

func writeFiles(t *testing.T, dir string, n, size int) {
	t.Helper()
	testtree.Must(t, os.MkdirAll(dir, 0o755))
	data := make([]byte, size)
	for i := range n {
		data[0] = byte(i)
		testtree.Must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), data, 0o644))
	}
}

func TestEntryBudgetIsSharedAndMakesCandidatesPartial(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "a"), 30, 1)
	writeFiles(t, filepath.Join(dir, "b"), 30, 1)
	cfg := DefaultConfig()
	cfg.MaxEntries = 40
	cs := scanSkills(t, dir, cfg)
	for _, c := range cs {
		if !c.Partial() || !hasAnomaly(&c, anomaly.Budget, "") {
			t.Errorf("%s: partial %v, anomalies %v", c.Name, c.Partial(), reasonsOf(c.Anomalies()))
		}
	}
	full := observe(t, dir, "a", Config{})
	if cs[0].Digest == full.Digest {
		t.Fatal("a partial digest equals the full one")
	}
}

func TestByteBudgetMakesCandidatesPartialAndNeverHashesPart(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "a"), 10, 1000)
	cfg := DefaultConfig()
	cfg.MaxBytes = 4500
	c := observe(t, dir, "a", cfg)
	if !c.Partial() {
		t.Fatal("over the byte budget but not partial")
	}
	files := 0
	for _, e := range c.Manifest.Entries {
		if e.Kind == 2 {
			files++
			if e.Size != 1000 {
				t.Fatalf("entry %q size %d", e.Path, e.Size)
			}
		}
	}
	if files > 4 {
		t.Fatalf("%d files of 1000 bytes hashed under a 4500-byte budget", files)
	}
}

// The predecessor's "sibling starvation": one huge candidate sorting first
// used the whole budget and blinded everything after it.
func TestNoSiblingStarvation(t *testing.T) {
	dir := t.TempDir()
	for i := range 10 { // 5,000 files, under the fanout limit per directory
		writeFiles(t, filepath.Join(dir, "0000-big", fmt.Sprintf("d%d", i)), 500, 1)
	}
	for i := range 25 {
		writeFiles(t, filepath.Join(dir, fmt.Sprintf("skill-%02d", i)), 400, 1)
	}
	cfg := DefaultConfig()
	cfg.MaxEntries = 25*401 + 2000 // fits the 25, not the 26th
	cs := scanSkills(t, dir, cfg)
	if len(cs) != 26 {
		t.Fatalf("%d candidates", len(cs))
	}
	if !cs[0].Partial() {
		t.Fatal("the big candidate is not partial")
	}
	for _, c := range cs[1:] {
		if c.Partial() {
			t.Fatalf("%s starved: partial", c.Name)
		}
		if alone := observe(t, dir, string(c.Name), Config{}); alone.Digest != c.Digest {
			t.Fatalf("%s: digest differs from observing it alone", c.Name)
		}
	}
}

// The predecessor's "budget poisoner": a structural breach set the shared
// stop, so every later candidate got one constant digest.
func TestDepthBreachCannotChangeAnySiblingsDigestOrState(t *testing.T) {
	dir := t.TempDir()
	deep := "0-deep"
	for range 31 {
		deep += "/d"
	}
	testtree.Make(t, dir, deep+"/")
	for i := range 5 {
		writeFiles(t, filepath.Join(dir, fmt.Sprintf("s%d", i)), 3, 1)
	}
	cfg := DefaultConfig()
	cfg.MaxEntries = 25 + 5*4 // exactly what the deep one sees, plus the siblings
	cs := scanSkills(t, dir, cfg)
	if cs[0].Partial() || !hasAnomaly(&cs[0], anomaly.Depth, deep[len("0-deep/"):2*24+len("0-deep/")-1]) {
		t.Fatalf("deep: partial %v, anomalies %v", cs[0].Partial(), reasonsOf(cs[0].Anomalies()))
	}
	for _, c := range cs[1:] {
		alone := observe(t, dir, string(c.Name), Config{})
		if c.Partial() || len(c.Anomalies()) > 0 || alone.Digest != c.Digest {
			t.Fatalf("%s: partial %v anomalies %v, digest matches alone: %v", c.Name, c.Partial(), reasonsOf(c.Anomalies()), alone.Digest == c.Digest)
		}
	}
}

func TestCancelledScanLeavesCandidatesPartial(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "a"), 5, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	roots := Scan(ctx, []RootSpec{{Path: dir}}, DefaultConfig())
	if c := roots[0].Candidates[0]; !c.Partial() {
		t.Fatal("a cancelled scan reported a complete candidate")
	}
}

// Sizes chosen so that each round completes only the smallest pending
// candidate: everything fits, so everything must complete.
func TestEverythingCompletesWhenTheTotalFitsTheBudget(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{1, 2, 4, 8, 16, 32, 64, 128, 256}
	total := 0
	for i, n := range sizes {
		writeFiles(t, filepath.Join(dir, fmt.Sprintf("s%d", i)), n, 1)
		total += n + 1
	}
	cfg := DefaultConfig()
	cfg.MaxEntries = int64(total)
	for _, c := range scanSkills(t, dir, cfg) {
		if c.Partial() {
			t.Fatalf("%s is partial although the total fits the budget", c.Name)
		}
	}
	cfg.MaxEntries = int64(total - 1)
	partial := 0
	for _, c := range scanSkills(t, dir, cfg) {
		if c.Partial() {
			partial++
		}
	}
	if partial == 0 {
		t.Fatal("one entry short of the total, nothing is partial")
	}
}

// A deadline that passes mid-walk leaves a partial observation, never one
// that looks complete with subdirectories silently missing.
func TestDeadlineMidWalkMakesThePartialFlagNeverACleanCut(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "skill/a.md", "skill/sub/evil.sh", "skill/sub/more.md")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHookRead = func(p []byte) {
		if string(p) == "a.md" {
			cancel()
		}
	}
	defer func() { testHookRead = nil }()
	cfg := DefaultConfig()
	cfg.Workers = 1
	c := Observe(ctx, dir, []byte("skill"), cfg)
	if !c.Partial() {
		t.Fatalf("cut by the deadline yet not partial: entries %q", entryPaths(&c.Manifest))
	}
}

// A root full of candidates, a hostile project, cannot blind another
// root by diluting the shares. That root is the user's global skills.
func TestACrowdedRootCannotDiluteAnotherRootsShare(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "global/mytool"), 60, 1)
	writeFiles(t, filepath.Join(dir, "target"), 30, 1)
	testtree.Must(t, os.MkdirAll(filepath.Join(dir, "project"), 0o755))
	for i := range 200 {
		testtree.Must(t, os.Symlink("../target", filepath.Join(dir, "project", fmt.Sprintf("s%03d", i))))
	}
	cfg := DefaultConfig()
	cfg.MaxEntries = 2000
	roots := Scan(context.Background(), []RootSpec{{Path: filepath.Join(dir, "global")}, {Path: filepath.Join(dir, "project")}}, cfg)
	if c := roots[0].Candidates[0]; c.Partial() {
		t.Fatal("the global skill is partial: the crowded project diluted its share")
	}
	partial := 0
	for _, c := range roots[1].Candidates {
		if c.Partial() {
			partial++
		}
	}
	if partial == 0 {
		t.Fatal("the crowded root fit a budget it cannot fit")
	}
}

// Names of 255 bytes: the chain's paths would pass PATH_MAX long before
// the depth limit. The walker stops at a directory whose children could
// pass it: a depth anomaly, not opened. So no kept path is longer than
// PATH_MAX.
func TestPathsNeverExceedPathMax(t *testing.T) {
	dir := t.TempDir()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	testtree.Must(t, err)
	testtree.Must(t, unix.Mkdirat(fd, "s", 0o755))
	cur, err := unix.Openat(fd, "s", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	testtree.Must(t, err)
	unix.Close(fd)
	name := strings.Repeat("n", 255)
	for range 20 {
		testtree.Must(t, unix.Mkdirat(cur, name, 0o755))
		next, err := unix.Openat(cur, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		testtree.Must(t, err)
		unix.Close(cur)
		cur = next
	}
	unix.Close(cur)
	t.Cleanup(func() { exec.Command("rm", "-rf", dir).Run() }) // RemoveAll cannot, past PATH_MAX
	c := observe(t, dir, "s", Config{})
	longest := 0
	for _, e := range c.Manifest.Entries {
		longest = max(longest, len(e.Path))
	}
	if longest > maxPathLen || c.Partial() || !slices.ContainsFunc(c.Anomalies(), func(f snapshot.Found) bool { return f.Reason == anomaly.Depth }) {
		t.Fatalf("longest path %d, partial %v, anomalies %v", longest, c.Partial(), reasonsOf(c.Anomalies()))
	}
}

// A directory is listed only as far as the quota could take. Beyond it
// the candidate is partial. A huge directory costs no more than the quota.
func TestADirectoryIsListedOnlyUpToTheQuota(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "s"), 3000, 1)
	cfg := DefaultConfig()
	cfg.MaxEntries = 100
	c := observe(t, dir, "s", cfg)
	if !c.Partial() || len(c.Manifest.Entries) > 100 {
		t.Fatalf("partial %v with %d entries", c.Partial(), len(c.Manifest.Entries))
	}
	if hasAnomaly(&c, anomaly.Fanout, "") {
		t.Fatal("a budget cut reported as fanout")
	}
}
