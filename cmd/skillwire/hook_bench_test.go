package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// hookBench builds 100 skills of 20 files of 4 KiB, bootstraps the store,
// and returns the streams a hook run needs.
func hookBench(b *testing.B) (*streams, map[string]string) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte("x"), 4096)
	for i := range 100 {
		for j := range 20 {
			p := filepath.Join(dir, "cfg/skills", fmt.Sprintf("skill-%03d", i), fmt.Sprintf("f%02d", j))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			data[0] = byte(j)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir + "/cfg", "SKILLWIRE_STATE_DIR": dir + "/state", "CLAUDE_PROJECT_DIR": dir + "/noproject"}
	s := &streams{out: io.Discard, err: io.Discard, getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	var out bytes.Buffer
	s.in, s.out = bytes.NewReader(nil), &out
	runSessionStart(context.Background(), s, hookDeadline)
	if !bytes.Contains(out.Bytes(), []byte("first run: 100 skill")) {
		b.Fatalf("bootstrap: %s", out.Bytes())
	}
	return s, env
}

func runUnchanged(b *testing.B, s *streams) {
	for b.Loop() {
		var out bytes.Buffer
		s.in, s.out = bytes.NewReader(nil), &out
		runSessionStart(context.Background(), s, hookDeadline)
		if out.Len() != 0 {
			b.Fatalf("not silent on an unchanged tree: %s", out.Bytes())
		}
	}
}

// BenchmarkHookUnchanged is the hook on 100 skills x 20 files with nothing
// changed and no daemon: it walks every file.
func BenchmarkHookUnchanged(b *testing.B) {
	s, _ := hookBench(b)
	runUnchanged(b, s)
}

// BenchmarkHookUnchangedFastPath is the same with a live daemon's cache
// (its lock held and a fresh heartbeat): nothing is walked. The heartbeat is
// fresh for monitor.FreshFor: keep -benchtime well under that.
func BenchmarkHookUnchangedFastPath(b *testing.B) {
	s, env := hookBench(b)
	state := env["SKILLWIRE_STATE_DIR"]
	lock, err := os.OpenFile(state+"/daemon.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b.Fatal(err)
	}
	root := claude.Root{Path: env["CLAUDE_CONFIG_DIR"] + "/skills", Scope: claude.Global, Kind: claude.Skills}
	walked := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())
	st, err := baseline.Open(baseline.Options{Dir: state})
	if err != nil {
		b.Fatal(err)
	}
	beat := func() error {
		return st.Update(func(tx *baseline.Tx) error {
			var roots []string
			for _, r := range claude.Roots(env["CLAUDE_CONFIG_DIR"], "") {
				roots = append(roots, r.Path)
				if r.Path != root.Path {
					m := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())
					if err := tx.PutCachedRoot(&m[0], time.Now()); err != nil {
						return err
					}
				}
			}
			if err := tx.PutCachedRoot(&walked[0], time.Now()); err != nil {
				return err
			}
			return tx.PutHeartbeat(baseline.Heartbeat{PID: os.Getpid(), At: time.Now().UTC(), Whole: true, Roots: roots})
		})
	}
	if err := beat(); err != nil {
		b.Fatal(err)
	}
	st.Close()
	runUnchanged(b, s)
}

// BenchmarkHookOneChanged is the hook on the same tree with one skill
// changed at each session start: the change is reconciled with the audit
// log (absent here) and told.
func BenchmarkHookOneChanged(b *testing.B) {
	s, env := hookBench(b)
	p := env["CLAUDE_CONFIG_DIR"] + "/skills/skill-000/f00"
	data := bytes.Repeat([]byte("x"), 4096)
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		data[1] = byte(i)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		s.in, s.out = bytes.NewReader(nil), &out
		b.StartTimer()
		runSessionStart(context.Background(), s, hookDeadline)
		if !bytes.Contains(out.Bytes(), []byte("changed since the last session")) {
			b.Fatalf("change not told: %s", out.Bytes())
		}
	}
}
