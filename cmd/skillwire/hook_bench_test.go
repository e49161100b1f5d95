package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// hookBench builds 100 skills of 20 files of 4 KiB, bootstraps the store,
// and returns the streams a hook run needs.
func hookBench(b *testing.B) (*streams, map[string]string) { return hookBenchWith(b, false) }

// writeFiles writes n files of data (its first byte varied) under dir/sub.
func writeFiles(b *testing.B, dir string, n int, data []byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for j := range n {
		data[0] = byte(j)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", j)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// hookBenchWith adds, with plugins, what issue #15 watches. That is 20
// installed plugins of 20 files. One has a node_modules of 20,000 files of
// 1 KiB in 200 directories. Then a settings.json with a hook, a CLAUDE.md
// and a ~/.claude.json of 200 KB.
func hookBenchWith(b *testing.B, plugins bool) (*streams, map[string]string) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte("x"), 4096)
	for i := range 100 {
		writeFiles(b, filepath.Join(dir, "cfg/skills", fmt.Sprintf("skill-%03d", i)), 20, data)
	}
	if plugins {
		for i := range 20 {
			writeFiles(b, filepath.Join(dir, "cfg/plugins/cache/acme", fmt.Sprintf("p%02d", i), "1.0.0"), 20, data)
		}
		for d := range 200 {
			writeFiles(b, filepath.Join(dir, "cfg/plugins/cache/acme/p00/1.0.0/node_modules", fmt.Sprintf("m%03d", d)), 100, data[:1024])
		}
		var projects []string
		for i := range 400 {
			projects = append(projects, fmt.Sprintf(`"/home/u/p%03d":{"history":[%q],"mcpServers":{}}`, i, bytes.Repeat([]byte("h"), 400)))
		}
		files := map[string]string{
			"cfg/settings.json": `{"theme":"dark","hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`,
			"cfg/CLAUDE.md":     "Be brief.",
			"cfg/.claude.json":  `{"numStartups":3,"mcpServers":{"db":{"command":"npx","args":["-y","pkg"]}},"projects":{` + strings.Join(projects, ",") + `}}`,
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir + "/cfg", "SKILLWIRE_STATE_DIR": dir + "/state", "CLAUDE_PROJECT_DIR": dir + "/noproject",
		"SKILLWIRE_MANAGED_DIR": ""}
	s := &streams{out: io.Discard, err: io.Discard, getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	var out bytes.Buffer
	s.in, s.out = bytes.NewReader(nil), &out
	runSessionStart(context.Background(), s, hookDeadline)
	// The first run counts by kind (session.acceptedByKind).
	if want := "first run, accepted 100 skills"; !bytes.Contains(out.Bytes(), []byte(want)) || plugins && !bytes.Contains(out.Bytes(), []byte("20 plugins")) {
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
// fresh for cache.FreshFor: keep -benchtime well under that.
func BenchmarkHookUnchangedFastPath(b *testing.B) {
	s, env := hookBench(b)
	fastPath(b, env)
	runUnchanged(b, s)
}

// BenchmarkHookPluginsUnchanged is BenchmarkHookUnchanged with what issue
// #15 added (hookBenchWith): the cost of the new kinds without a daemon.
func BenchmarkHookPluginsUnchanged(b *testing.B) {
	s, _ := hookBenchWith(b, true)
	runUnchanged(b, s)
}

// BenchmarkHookPluginsFastPath is the same on the daemon's cache: only the
// configuration files are read (their facts and scripts are no cache's).
func BenchmarkHookPluginsFastPath(b *testing.B) {
	s, env := hookBenchWith(b, true)
	fastPath(b, env)
	runUnchanged(b, s)
}

// fastPath makes a live daemon's cache of every root: its lock held, each
// root walked and cached, a fresh heartbeat naming them.
func fastPath(b *testing.B, env map[string]string) {
	state := env["SKILLWIRE_STATE_DIR"]
	lock, err := os.OpenFile(state+"/daemon.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
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
			for _, r := range (claude.Places{Config: env["CLAUDE_CONFIG_DIR"]}).Roots() {
				roots = append(roots, r.Path)
				if r.Path != root.Path {
					m := walker.Scan(context.Background(), []walker.RootSpec{r.Spec()}, walker.DefaultConfig())
					if err := tx.Cache().PutRoot(&m[0], time.Now()); err != nil {
						return err
					}
				}
			}
			if err := tx.Cache().PutRoot(&walked[0], time.Now()); err != nil {
				return err
			}
			return tx.Cache().PutHeartbeat(cache.Heartbeat{PID: os.Getpid(), At: time.Now().UTC(), Whole: true, Roots: roots})
		})
	}
	if err := beat(); err != nil {
		b.Fatal(err)
	}
	st.Close()
	b.Cleanup(func() { lock.Close() })
}

// BenchmarkHookOneChanged is the hook on the same tree with one skill
// changed at each session start. The change is reconciled with the audit
// log, absent here, and told.
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

// managedPlugin adds to hookBench's tree the copy of one plugin a managed
// install recorded. It carries the copyHash the pinned client wrote for it
// (the vector of plugin_install_record.txtar). withHash false records the
// same install without it. So the two benchmarks differ only by the check
// of one copy.
func managedPlugin(b *testing.B, withHash bool) *streams {
	s, env := hookBench(b)
	cfg := env["CLAUDE_CONFIG_DIR"]
	hash := ""
	if withHash {
		hash = `,"copyHash":"Jp44ERCzHKHaSsUAtctBEgfGyXWW9Dz6DUus8SeBlWA="`
	}
	files := map[string]string{
		"plugins/cache/mkt/plug/1.0.0/.claude-plugin/plugin.json": `{"name":"plug","version":"1.0.0"}`,
		"plugins/cache/mkt/plug/1.0.0/skills/ps/SKILL.md":         "---\nname: ps\ndescription: a plugin skill\n---\nthe plugin body\n",
		"plugins/known_marketplaces.json":                         `{"mkt":{"source":{"source":"url","url":"https://127.0.0.1:43887/marketplace.json"},"installLocation":"/nowhere"}}`,
		"plugins/installed_plugins.json":                          `{"version":2,"plugins":{"plug@mkt":[{"scope":"managed","installPath":"` + cfg + `/plugins/cache/mkt/plug/1.0.0","version":"1.0.0"` + hash + `}]}}`,
		".claude.json":                                            `{"userID":"48e494fa47a041ecda2bb6b4e052763045ea8c25785c43d389d27b2a2486c3bc"}`,
	}
	for name, text := range files {
		p := filepath.Join(cfg, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var out bytes.Buffer
	s.in, s.out = bytes.NewReader(nil), &out
	runSessionStart(context.Background(), s, hookDeadline) // the new plugin told once
	if !bytes.Contains(out.Bytes(), []byte("new since the last session")) {
		b.Fatalf("the plugin was not told new: %s", out.Bytes())
	}
	return s
}

// BenchmarkHookManagedPluginUnchanged is the hook with nothing changed
// where one managed plugin's install recorded a copyHash. The copy is read
// and hashed as the client hashes it, and agrees: nothing is told.
func BenchmarkHookManagedPluginUnchanged(b *testing.B) { runUnchanged(b, managedPlugin(b, true)) }

// BenchmarkHookManagedPluginNoCopyHash is the same install recording no
// copyHash: only its installPath and version are checked.
func BenchmarkHookManagedPluginNoCopyHash(b *testing.B) { runUnchanged(b, managedPlugin(b, false)) }

// BenchmarkHookUnchangedReused is BenchmarkHookUnchanged once the tree is
// older than the racy window and one session start recorded its hashes:
// every file is a cache hit (walker.Hashes), as at a real session start.
// The setup waits out walker.RacyWindow.
func BenchmarkHookUnchangedReused(b *testing.B) {
	s, _ := hookBench(b)
	time.Sleep(walker.RacyWindow + 100*time.Millisecond)
	s.in, s.out = bytes.NewReader(nil), io.Discard
	runSessionStart(context.Background(), s, hookDeadline)
	runUnchanged(b, s)
}
