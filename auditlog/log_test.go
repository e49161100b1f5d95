package auditlog

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillwire/skillwire/internal/testtree"
	"golang.org/x/sys/unix"
)

func logPath(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func entryLine(op, path string) string {
	return fmt.Sprintf(`{"timestamp":"2026-11-29T11:00:00Z","operation":%q,"filePath":%q,"source":"t"}`, op, path)
}

func skippedLines(l []Skipped) []int {
	var out []int
	for _, s := range l {
		out = append(out, s.Line)
	}
	return out
}

func mustRead(t testing.TB, p string) *Log {
	t.Helper()
	l, err := Read(p, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestGarbageInterleavedIsSkippedAndCountedWithLineNumbers(t *testing.T) {
	garbage := []string{
		"not json", "", "{", `{"timestamp":"2026-11-29T11:00:00Z"}`, "\x00\x00",
		"caf\xe9", `{"timestamp":"2099-01-01T00:00:00Z","operation":"create","filePath":"f","source":"s"}`,
		`{"timestamp":"2026-11-29T11:00:00Z","operation":"explode","filePath":"f","source":"s"}`,
	}
	var b strings.Builder
	var wantSkipped []int
	for i := 1; i <= 10_000; i++ {
		if i%7 == 0 {
			b.WriteString(garbage[(i/7)%len(garbage)])
			wantSkipped = append(wantSkipped, i)
		} else {
			b.WriteString(entryLine("update", "f"+strconv.Itoa(i)))
		}
		b.WriteByte('\n')
	}
	l := mustRead(t, logPath(t, b.String()))
	if l.Lines != 10_000 || len(l.Entries) != 10_000-len(wantSkipped) {
		t.Fatalf("%d lines, %d entries", l.Lines, len(l.Entries))
	}
	// 1,428 skipped: the first MaxSkipped are listed, all are counted.
	if got := skippedLines(l.Skipped); !slices.Equal(got, wantSkipped[:MaxSkipped]) || l.SkippedLines() != len(wantSkipped) {
		t.Fatalf("skipped lines %v... (%d listed, %d counted), want %v... (%d)", got[:10], len(got), l.SkippedLines(), wantSkipped[:10], len(wantSkipped))
	}
	for _, e := range l.Entries {
		if e.FilePath != "f"+strconv.Itoa(e.Line) {
			t.Fatalf("line %d holds %q", e.Line, e.FilePath)
		}
	}
	if l.Unterminated {
		t.Fatal("a terminated log reported unterminated")
	}
}

func TestAHugeLineIsSkippedUnreadAndTheNextLinesAreRead(t *testing.T) {
	huge := `{"timestamp":"2026-11-29T11:00:00Z","operation":"update","filePath":"` + strings.Repeat("a", 5<<20) + `","source":"s"}`
	p := logPath(t, entryLine("create", "one")+"\n"+huge+"\n"+entryLine("update", "three")+"\n")
	l := mustRead(t, p)
	if got := skippedLines(l.Skipped); !slices.Equal(got, []int{2}) || !errors.Is(l.Skipped[0].Err, ErrTooLong) {
		t.Fatalf("skipped %v", l.Skipped)
	}
	if len(l.Entries) != 2 || l.Entries[1].Line != 3 || l.Entries[1].FilePath != "three" {
		t.Fatalf("entries %+v", l.Entries)
	}
}

func TestATruncatedLastLineIsSkippedAndReported(t *testing.T) {
	full := entryLine("create", "one")
	p := logPath(t, full+"\n"+full[:30])
	l := mustRead(t, p)
	if !l.Unterminated || l.Lines != 2 || !slices.Equal(skippedLines(l.Skipped), []int{2}) {
		t.Fatalf("got %+v", l)
	}
	v, err := Verify(p, Options{Now: now})
	if err != nil || !v.Truncated || v.OK() {
		t.Fatalf("Verify = %+v, %v; want truncated", v, err)
	}
}

func TestAMissingLogIsNotExist(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "absent.jsonl"), Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read = %v", err)
	}
}

func TestUntrustedLogsAreRefusedAndNeverFollowed(t *testing.T) {
	type setup func(t *testing.T, p string)
	for _, tc := range []struct {
		name  string
		setup setup
		want  string
	}{
		{"symlink", func(t *testing.T, p string) {
			target := filepath.Join(filepath.Dir(p), "elsewhere")
			mustOK(t, os.WriteFile(target, []byte(entryLine("create", "x")+"\n"), 0o600))
			mustOK(t, os.Symlink(target, p))
		}, "is a symbolic link"},
		{"dangling symlink", func(t *testing.T, p string) {
			mustOK(t, os.Symlink(filepath.Join(filepath.Dir(p), "nothing"), p))
		}, "is a symbolic link"},
		{"group writable", func(t *testing.T, p string) {
			mustOK(t, os.WriteFile(p, nil, 0o600))
			mustOK(t, os.Chmod(p, 0o620))
		}, "writable by group or others"},
		{"world writable", func(t *testing.T, p string) {
			mustOK(t, os.WriteFile(p, nil, 0o600))
			mustOK(t, os.Chmod(p, 0o602))
		}, "writable by group or others"},
		{"directory", func(t *testing.T, p string) { mustOK(t, os.Mkdir(p, 0o700)) }, "not a regular file"},
		{"fifo", func(t *testing.T, p string) { mustOK(t, unix.Mkfifo(p, 0o600)) }, "not a regular file"},
		{"foreign owner", func(t *testing.T, p string) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file to another user; run as root to test this rule")
			}
			mustOK(t, os.WriteFile(p, nil, 0o600))
			mustOK(t, os.Chown(p, 65534, 65534))
		}, "owned by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FileName)
			tc.setup(t, p)
			within(t, func() {
				_, rerr := Read(p, Options{Now: now})
				_, verr := Verify(p, Options{Now: now})
				_, aerr := Append(p, Entry{Operation: Create, FilePath: "f", Source: "s"}, Options{Now: now})
				for _, err := range []error{rerr, verr, aerr} {
					if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("got %v, want ErrUntrusted saying %q", err, tc.want)
					}
				}
			})
			if tc.name == "symlink" {
				b, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "elsewhere"))
				if strings.Count(string(b), "\n") != 1 {
					t.Fatal("Append wrote through the symbolic link")
				}
			}
			if tc.name == "dangling symlink" {
				if _, err := os.Lstat(filepath.Join(filepath.Dir(p), "nothing")); err == nil {
					t.Fatal("Append created the link's target")
				}
			}
		})
	}
}

func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked")
	}
}

var mustOK = testtree.Must

func appendN(t testing.TB, p string, ops ...string) {
	t.Helper()
	for i, op := range ops {
		if _, err := Append(p, Entry{Operation: Operation(op), FilePath: "f" + strconv.Itoa(i), Source: "test"}, Options{Now: now}); err != nil {
			t.Fatal(err)
		}
	}
}

func readLines(t testing.TB, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	mustOK(t, err)
	return strings.SplitAfter(string(b), "\n")
}

func TestAppendChainsEveryLineToTheOneBefore(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	appendN(t, p, "create", "update", "refine", "delete")
	st, err := os.Stat(p)
	mustOK(t, err)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("created with mode %v", st.Mode())
	}
	l := mustRead(t, p)
	if len(l.Entries) != 4 || len(l.Skipped) != 0 {
		t.Fatalf("read back %+v", l)
	}
	if l.Entries[0].Prev != "" {
		t.Fatal("the first line of an empty log has prev")
	}
	for i := 1; i < 4; i++ {
		if want := PrevOf(sha(l.Entries[i-1].Raw)); l.Entries[i].Prev != want {
			t.Fatalf("line %d: prev %s, want %s", i+1, l.Entries[i].Prev, want)
		}
	}
	v, err := Verify(p, Options{Now: now})
	if err != nil || !v.OK() || v.Chained != 3 || v.Unchained != 1 {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}

func TestVerifyFindsTheFirstBrokenLink(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(lines []string) []string
		broken int
	}{
		{"edited middle line", func(l []string) []string {
			l[2] = strings.Replace(l[2], `"f2"`, `"evil"`, 1)
			return l
		}, 4},
		{"edited middle line made invalid", func(l []string) []string {
			l[2] = "garbage\n"
			return l
		}, 4},
		{"removed middle line", func(l []string) []string { return slices.Delete(l, 2, 3) }, 3},
		{"inserted line", func(l []string) []string { return slices.Insert(l, 2, entryLine("create", "x")+"\n") }, 4},
		{"removed first line", func(l []string) []string { return l[1:] }, 1},
		{"swapped lines", func(l []string) []string { l[1], l[2] = l[2], l[1]; return l }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FileName)
			appendN(t, p, "create", "update", "update", "update", "update")
			lines := tc.mutate(readLines(t, p))
			mustOK(t, os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600))
			v, err := Verify(p, Options{Now: now})
			if err != nil || v.OK() || v.Broken != tc.broken {
				t.Fatalf("Verify = %+v, %v; want broken at %d", v, err, tc.broken)
			}
		})
	}
}

func TestForeignLinesAreUnchainedNotBroken(t *testing.T) {
	// Another tool writes first, and skillwire chains to its line. The tool
	// writes again, after skillwire's lines: no link is broken. A garbage
	// line at the end is skipped; skillwire chains to it too.
	p := logPath(t, entryLine("create", "a")+"\n")
	appendN(t, p, "update", "update")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	mustOK(t, err)
	fmt.Fprintln(f, entryLine("refine", "b"))
	fmt.Fprintln(f, "garbage")
	f.Close()
	appendN(t, p, "delete")
	v, err := Verify(p, Options{Now: now})
	if err != nil || !v.OK() || v.Chained != 3 || v.Unchained != 2 || !slices.Equal(skippedLines(v.Skipped), []int{5}) {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}

func TestAppendEndsACutShortLineFirst(t *testing.T) {
	full := entryLine("create", "one")
	p := logPath(t, full+"\n"+full[:30])
	appendN(t, p, "update")
	l := mustRead(t, p)
	if l.Unterminated || l.Lines != 3 || len(l.Entries) != 2 || l.Entries[1].Line != 3 {
		t.Fatalf("got %+v", l)
	}
	if l.Entries[1].Prev != PrevOf(sha([]byte(full[:30]))) {
		t.Fatal("prev does not name the cut-short line")
	}
	v, err := Verify(p, Options{Now: now})
	if err != nil || !v.OK() {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}

func TestAppendChainsToAHugeLastLineWithBoundedMemory(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	p := logPath(t, huge+"\n")
	appendN(t, p, "create")
	l := mustRead(t, p)
	if len(l.Entries) != 1 || l.Entries[0].Prev != PrevOf(sha([]byte(huge))) {
		t.Fatalf("got %+v", l.Skipped)
	}
	if v, err := Verify(p, Options{Now: now}); err != nil || !v.OK() || v.Chained != 1 {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}

func TestAppendRefusesWhatItCouldNotReadBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	for _, e := range []Entry{
		{Operation: "chmod", FilePath: "f", Source: "s"},
		{Operation: Create, FilePath: "", Source: "s"},
		{Operation: Create, FilePath: "f\xff", Source: "s"},
		{Operation: Create, FilePath: "f", Source: "s", Details: []byte(`[1]`)},
		{Operation: Create, FilePath: "f", Source: "s", Details: []byte(`{"a":`)},
		{Operation: Create, FilePath: "f", Source: "s", SHA256: "abc"},
		{Operation: Create, FilePath: strings.Repeat("a", MaxLine), Source: "s"},
	} {
		if _, err := Append(p, e, Options{Now: now}); err == nil {
			t.Errorf("appended %+.60v", e)
		}
	}
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Fatalf("the log holds %q", b)
	}
}

func TestAppendWaitsForTheLockWithinItsTimeout(t *testing.T) {
	p := logPath(t, "")
	f, err := os.Open(p)
	mustOK(t, err)
	defer f.Close()
	mustOK(t, unix.Flock(int(f.Fd()), unix.LOCK_EX))
	start := time.Now()
	_, err = Append(p, Entry{Operation: Create, FilePath: "f", Source: "s"}, Options{LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrBusy) || time.Since(start) > 5*time.Second {
		t.Fatalf("Append = %v after %v; want ErrBusy soon", err, time.Since(start))
	}
}

// Goroutines of one process each open the log, so each has its own lock.
func TestConcurrentAppendsInOneProcessNeverInterleave(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100 {
				if _, err := Append(p, Entry{Operation: Update, FilePath: fmt.Sprintf("w%d/%d", w, i), Source: "test"}, Options{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkConcurrent(t, p, 8, 100)
}

// The poisoning test: 8 processes × 500 appends. Every line
// intact, every append present once, and the chain verifies.
func TestConcurrentAppendersAcrossProcessesKeepEveryLineAndTheChain(t *testing.T) {
	const procs, each = 8, 500
	exe, err := os.Executable()
	mustOK(t, err)
	p := filepath.Join(t.TempDir(), FileName)
	var cmds []*exec.Cmd
	for w := range procs {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "AUDITLOG_HELPER_LOG="+p, "AUDITLOG_HELPER_ID="+strconv.Itoa(w), "AUDITLOG_HELPER_N="+strconv.Itoa(each))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		mustOK(t, cmd.Start())
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("helper %d: %s", w, out.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("appender: %v", err)
		}
	}
	checkConcurrent(t, p, procs, each)
}

// TestMain doubles as the appender process of the cross-process test.
func TestMain(m *testing.M) {
	if p := os.Getenv("AUDITLOG_HELPER_LOG"); p != "" {
		n, _ := strconv.Atoi(os.Getenv("AUDITLOG_HELPER_N"))
		for i := range n {
			e := Entry{Operation: Update, FilePath: fmt.Sprintf("w%s/%d", os.Getenv("AUDITLOG_HELPER_ID"), i), Source: "test"}
			if _, err := Append(p, e, Options{LockTimeout: time.Minute}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func checkConcurrent(t *testing.T, p string, workers, each int) {
	t.Helper()
	l, err := Read(p, Options{})
	mustOK(t, err)
	if len(l.Skipped) != 0 || len(l.Entries) != workers*each || l.Unterminated {
		t.Fatalf("%d entries, skipped %v", len(l.Entries), skippedLines(l.Skipped))
	}
	seen := map[string]bool{}
	for _, e := range l.Entries {
		if seen[e.FilePath] {
			t.Fatalf("%s appended twice", e.FilePath)
		}
		seen[e.FilePath] = true
	}
	v, err := Verify(p, Options{})
	if err != nil || !v.OK() || v.Chained != workers*each-1 {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}

func BenchmarkRead100k(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, `{"timestamp":"2026-11-29T11:00:00.123Z","operation":"update","filePath":".claude/skills/s%d/SKILL.md","source":"skill-creator","details":{"reason":"refinement","n":%d}}`+"\n", i%50, i)
	}
	p := logPath(b, sb.String())
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		l, err := Read(p, Options{Now: now})
		if err != nil || len(l.Entries) != 100_000 {
			b.Fatal(err)
		}
	}
}

func sha(b []byte) [32]byte { return sha256.Sum256(b) }

// Whoever wrote a project writes its log: reading it costs bounded memory
// and time. Over MaxLog it is refused, whether it was that large when
// opened or grew while read. Skipped lines past MaxSkipped are counted, not
// listed.
func TestAHugeLogIsRefusedAndSkippedLinesAreBounded(t *testing.T) {
	p := logPath(t, "")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxLog + 1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	if _, err := Read(p, Options{Now: now}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read of a log over MaxLog: %v", err)
	}
	if _, err := Verify(p, Options{Now: now}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Verify of a log over MaxLog: %v", err)
	}

	// Grown past MaxLog after the size check: the bounded reader stops it.
	r := &boundedReader{r: strings.NewReader(strings.Repeat("x", 100)), left: 64}
	if _, err := io.ReadAll(r); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("reading past the bound: %v", err)
	}
	r = &boundedReader{r: strings.NewReader(strings.Repeat("x", 64)), left: 64}
	if b, err := io.ReadAll(r); err != nil || len(b) != 64 {
		t.Fatalf("reading exactly the bound: %d bytes, %v", len(b), err)
	}

	lines := strings.Repeat("\n", MaxSkipped+500) + entryLine("create", "last") + "\n"
	l := mustRead(t, logPath(t, lines))
	if len(l.Skipped) != MaxSkipped || l.SkippedLines() != MaxSkipped+500 || len(l.Entries) != 1 {
		t.Fatalf("listed %d, counted %d, entries %d", len(l.Skipped), l.SkippedLines(), len(l.Entries))
	}
	v, err := Verify(logPath(t, lines), Options{Now: now})
	if err != nil || len(v.Skipped) != MaxSkipped || v.SkippedLines() != MaxSkipped+500 {
		t.Fatalf("verify: %v, listed %d, counted %d", err, len(v.Skipped), v.SkippedLines())
	}
}

// Append finds the line to chain to by reading the last line whole. A log
// over MaxLog is refused, as Read and Verify refuse it. It is left
// unchanged. A review found one 4 GiB line took 14 s to chain to.
func TestAppendRefusesALogOverMaxLog(t *testing.T) {
	p := logPath(t, "")
	mustOK := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustOK(os.Truncate(p, MaxLog+1)) // sparse, one line with no newline
	_, err := Append(p, Entry{Operation: "update", FilePath: "f", Source: "s"}, Options{Now: now})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append to a log over MaxLog: %v", err)
	}
	st, err := os.Stat(p)
	mustOK(err)
	if st.Size() != MaxLog+1 {
		t.Fatalf("the log changed: %d bytes", st.Size())
	}
}
