package events

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func testEvent(i int) Event {
	return Halt(Origin{Via: "test"}, Candidate{ID: "swabcdefgh234567", Kind: "skill", Scope: "global", Name: "pdf"}, "blake3:"+strings.Repeat("ab", 32), "n"+string(rune('a'+i%26)))
}

func readUIDs(t *testing.T, paths ...string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v: %q", p, err, sc.Text())
			}
			out = append(out, e.Metadata.UID)
		}
		f.Close()
	}
	return out
}

func TestAppendWritesOneLineAnEventMode0600(t *testing.T) {
	dir := t.TempDir()
	if err := Append(context.Background(), dir, testEvent(0), testEvent(1)); err != nil {
		t.Fatal(err)
	}
	if err := Append(context.Background(), dir, testEvent(2)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	uids := readUIDs(t, filepath.Join(dir, FileName))
	if len(uids) != 3 || uids[0] == uids[1] || uids[1] == uids[2] || uids[0] == "" {
		t.Errorf("uids %v", uids)
	}
}

func TestRotationKeepsABoundedNumberOfFiles(t *testing.T) {
	dir := t.TempDir()
	c := Config{MaxBytes: 4096, Keep: 3, LockWait: time.Second}
	for i := range 200 {
		if err := c.Append(context.Background(), dir, testEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	seqs, err := rotated(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 3 {
		t.Fatalf("rotated files %v, want 3", seqs)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Errorf("sequence numbers %v not consecutive", seqs)
		}
	}
	for _, s := range seqs {
		fi, err := os.Stat(rotatedName(dir, s))
		if err != nil || fi.Size() > c.MaxBytes || fi.Mode().Perm() != 0o600 {
			t.Errorf("file %d: %v %v", s, fi, err)
		}
	}
}

// TestAppendNeverWaitsPastTheLockWait: a holder of the lock (a stuck
// process) costs a hook at most the wait. The hook gets ErrBusy.
func TestAppendNeverWaitsPastTheLockWait(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lock(context.Background(), dir, time.Second, unix.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	c := Config{MaxBytes: 1 << 20, Keep: 2, LockWait: 50 * time.Millisecond}
	start := time.Now()
	err = c.Append(context.Background(), dir, testEvent(0))
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	c.LockWait = time.Hour
	if err := c.Append(ctx, dir, testEvent(0)); !errors.Is(err, ErrBusy) {
		t.Fatalf("under a deadline: err = %v, want ErrBusy", err)
	}
}

func TestAppendRefusesALinkOrSpecialFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if err := Append(context.Background(), dir, testEvent(0)); !errors.Is(err, ErrRefused) {
		t.Errorf("link: err = %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Error("wrote through the link")
	}
	dir2 := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir2, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(context.Background(), dir2, testEvent(0)); !errors.Is(err, ErrRefused) {
		t.Errorf("fifo: err = %v", err)
	}
}

// TestATornLineStaysAlone: after a writer died mid-line, the next event
// starts a line of its own.
func TestATornLineStaysAlone(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"activity_id":1,"meta`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(context.Background(), dir, testEvent(0)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || !json.Valid([]byte(lines[1])) {
		t.Errorf("lines %q", lines)
	}
}

// TestDiskFullIsAnErrorTheHookCanSay fills a 64 KiB tmpfs. Append returns
// the write error (ENOSPC), promptly. It appends again once there is room.
func TestDiskFullIsAnErrorTheHookCanSay(t *testing.T) {
	dir := t.TempDir()
	if os.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	c := Config{MaxBytes: 1 << 30, Keep: 2, LockWait: time.Second}
	var err error
	for i := 0; i < 10000 && err == nil; i++ {
		start := time.Now()
		err = c.Append(context.Background(), dir, testEvent(i))
		if d := time.Since(start); d > time.Second {
			t.Fatalf("an append took %v", d)
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if !strings.Contains(err.Error(), FileName) {
		t.Errorf("message %q does not name the file", err)
	}
	// Room again: the file is shipped and cut, or space freed. The torn
	// tail stays alone, and new events are whole lines.
	if err := os.WriteFile(filepath.Join(dir, "filler"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	if err := os.WriteFile(filepath.Join(dir, FileName), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Append(context.Background(), dir, testEvent(0)); err != nil {
		t.Fatalf("after room was made: %v", err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, FileName))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if !json.Valid([]byte(lines[len(lines)-1])) {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func BenchmarkAppend(b *testing.B) {
	dir := b.TempDir()
	ev := testEvent(0)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e := ev
		e.Metadata.UID = ""
		if err := Append(ctx, dir, e); err != nil {
			b.Fatal(err)
		}
	}
}
