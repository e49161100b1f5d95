//go:build linux

package monitor

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// Regression tests for what a review found in how the daemon keeps its
// watches (each failed before the fix).

// cachedIn reports whether the cache holds candidate name of root with
// digest want.
func cachedIn(tx *baseline.Tx, root, name string, want snapshot.Hash) bool {
	r, err := tx.Cache().Root(walker.RootSpec{Path: root})
	if err != nil || r == nil {
		return false
	}
	for _, c := range r.Candidates {
		if string(c.Name) == name && !c.Partial() {
			return c.Digest == want
		}
	}
	return false
}

func observed(root, name string) snapshot.Hash {
	return walker.Observe(context.Background(), root, []byte(name), walker.DefaultConfig()).Digest
}

// A root swapped atomically for another directory: fsnotify drops the
// old watch; the path must be watched again.
func TestDaemonWatchesARootSwappedForAnotherDirectory(t *testing.T) {
	h := startDaemon(t, func(cfg string) {
		write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1")
		write(t, filepath.Join(cfg, "skills.new/b/SKILL.md"), "2")
	})
	h.waitCached("a")
	skills := filepath.Join(h.cfg, "skills")
	must(t, unix.Renameat2(unix.AT_FDCWD, skills, unix.AT_FDCWD, skills+".new", unix.RENAME_EXCHANGE))
	h.waitCached("b")
	write(t, filepath.Join(skills, "evil/SKILL.md"), "x")
	h.waitCached("evil")
}

// A symlinked root retargeted (ln -sfn): the watch on the path must follow.
func TestDaemonWatchesARetargetedSymlinkedRoot(t *testing.T) {
	var two string
	h := startDaemon(t, func(cfg string) {
		one := filepath.Join(filepath.Dir(cfg), "one")
		two = filepath.Join(filepath.Dir(cfg), "two")
		write(t, filepath.Join(one, "a/f"), "1")
		write(t, filepath.Join(two, "b/f"), "2")
		must(t, os.RemoveAll(filepath.Join(cfg, "skills")))
		must(t, os.Symlink(one, filepath.Join(cfg, "skills")))
	})
	h.waitCached("a")
	skills := filepath.Join(h.cfg, "skills")
	must(t, os.Symlink(two, skills+".tmp"))
	must(t, os.Rename(skills+".tmp", skills))
	h.waitCached("b")
	write(t, filepath.Join(two, "evil/f"), "x")
	h.waitCached("evil")
}

// A project whose .claude does not exist yet: the nearest existing
// directory above its roots is watched, so mkdir -p of a skill is seen.
func TestDaemonSeesARootMadeUnderAProjectWithoutClaudeDir(t *testing.T) {
	h := startDaemon(t, nil)
	proj := filepath.Join(filepath.Dir(h.cfg), "proj")
	must(t, os.MkdirAll(proj, 0o755))
	st, err := baseline.Open(baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second})
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error { return tx.Projects().Register(proj, time.Now()) }))
	st.Close()
	root := filepath.Join(proj, ".claude/skills")
	h.waitFor("the project's root cached as missing", func(tx *baseline.Tx) bool {
		r, _ := tx.Cache().Root(claude.Root{Path: root, Kind: claude.Skills}.Spec())
		return r != nil && r.Missing
	})
	write(t, filepath.Join(root, "evil/SKILL.md"), "x")
	want := observed(root, "evil")
	h.waitFor("the skill made under the new .claude", func(tx *baseline.Tx) bool { return cachedIn(tx, root, "evil", want) })
}

// A project inside a global skill (developing a skill): an edit there is
// a change of both the global candidate and the project's candidate.
func TestDaemonWalksEveryRootThatHoldsAPath(t *testing.T) {
	h := startDaemon(t, func(cfg string) {
		write(t, filepath.Join(cfg, "skills/dev/SKILL.md"), "1")
		write(t, filepath.Join(cfg, "skills/dev/.claude/skills/x/SKILL.md"), "1")
	})
	proj := filepath.Join(h.cfg, "skills/dev")
	nested := filepath.Join(proj, ".claude/skills")
	st, err := baseline.Open(baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second})
	must(t, err)
	must(t, st.Update(func(tx *baseline.Tx) error { return tx.Projects().Register(proj, time.Now()) }))
	st.Close()
	want := observed(nested, "x")
	h.waitFor("the nested root", func(tx *baseline.Tx) bool { return cachedIn(tx, nested, "x", want) })
	write(t, filepath.Join(nested, "x/SKILL.md"), "evil")
	want = observed(nested, "x")
	h.waitFor("the edit in the nested root", func(tx *baseline.Tx) bool { return cachedIn(tx, nested, "x", want) })
	h.waitCached("dev")
	write(t, filepath.Join(nested, "y/SKILL.md"), "new")
	want = observed(nested, "y")
	h.waitFor("a new skill in the nested root", func(tx *baseline.Tx) bool { return cachedIn(tx, nested, "y", want) })
}

// A flush that falls back to a full rescan keeps the change events of the
// candidates it walked first.
func TestDaemonKeepsEventsWhenAFlushFallsBackToARescan(t *testing.T) {
	h := startDaemon(t, func(cfg string) {
		write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "original")
		write(t, filepath.Join(cfg, "skills/zz"), "notes") // not a candidate in a skills root
	})
	h.waitCached("a")
	write(t, filepath.Join(h.cfg, "skills/zz"), "notes 2")
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "evil")
	h.waitCached("a")
	h.waitFor("the change of a as an event", func(tx *baseline.Tx) bool {
		evs, _ := tx.Events().List()
		for _, e := range evs {
			if string(e.Name) == "a" {
				return true
			}
		}
		return false
	})
}

// Writes beside the roots (Claude Code appends to ~/.claude/history.jsonl
// at every prompt) walk nothing.
func TestDaemonIgnoresWritesBesideTheRoots(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	for _, n := range []string{"a", "b", "c"} {
		write(t, filepath.Join(cfg, "skills", n, "sub/f"), "x")
	}
	write(t, filepath.Join(cfg, "history.jsonl"), "")
	var walked atomic.Int64
	wc := walker.DefaultConfig()
	wc.Progress = &walked
	fw, err := newFaulty()
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{CfgDir: cfg, Store: baseline.Options{Dir: filepath.Join(dir, "state"), LockTimeout: 5 * time.Second, Create: true},
			Walk: wc, Debounce: 20 * time.Millisecond, Heartbeat: 100 * time.Millisecond, Log: zerolog.Nop(),
			NewWatcher: func() (Watcher, error) { return fw, nil }})
	}()
	defer func() { cancel(); <-done }()
	// Settled: nothing walked for half a second.
	for last, tries := int64(-1), 0; walked.Load() != last; tries++ {
		if tries == 10 {
			t.Fatal("the daemon never settles")
		}
		last = walked.Load()
		time.Sleep(500 * time.Millisecond)
	}
	before := walked.Load()
	f, err := os.OpenFile(filepath.Join(cfg, "history.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	for range 5 {
		f.WriteString("{}\n")
		time.Sleep(100 * time.Millisecond)
	}
	f.Close()
	time.Sleep(500 * time.Millisecond)
	if n := walked.Load() - before; n != 0 {
		t.Fatalf("5 appends beside the roots walked %d entries", n)
	}
	// And an edit in a skill still walks it.
	write(t, filepath.Join(cfg, "skills/a/sub/f"), "y")
	deadline := time.Now().Add(5 * time.Second)
	for walked.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("an edit in a skill walked nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two candidates naming one directory (skills/a -> b) share one inotify
// watch, listed and named after one of them: the daemon settles (no
// endless re-watching of the other path), and an edit there walks both.
func TestDaemonWalksEveryCandidateThatNamesAChangedDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg")
	write(t, filepath.Join(cfg, "skills/b/SKILL.md"), "1")
	must(t, os.Symlink("b", filepath.Join(cfg, "skills/a")))
	var walked atomic.Int64
	wc := walker.DefaultConfig()
	wc.Progress = &walked
	fw, err := newFaulty()
	must(t, err)
	h := &harness{t: t, cfg: cfg, state: filepath.Join(dir, "state"), fw: fw}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{CfgDir: cfg, Store: baseline.Options{Dir: h.state, LockTimeout: 5 * time.Second, Create: true},
			Walk: wc, Debounce: 20 * time.Millisecond, Heartbeat: 100 * time.Millisecond, Log: zerolog.Nop(),
			NewWatcher: func() (Watcher, error) { return fw, nil }})
	}()
	defer func() { cancel(); <-done }()
	h.waitCached("a")
	h.waitCached("b")
	time.Sleep(500 * time.Millisecond)
	before := walked.Load()
	time.Sleep(time.Second)
	if n := walked.Load() - before; n != 0 {
		t.Fatalf("idle for a second, the daemon walked %d entries: it never settles", n)
	}
	write(t, filepath.Join(cfg, "skills/b/SKILL.md"), "evil")
	h.waitCached("a")
	h.waitCached("b")
}
