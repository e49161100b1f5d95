//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A home shaped like a real one (issue 34): a dozen plugins from a local
// marketplace, installed by the client, and a few hundred skills, agents
// and commands.
const (
	homePlugins  = 12
	homeSkills   = 300
	homeAgents   = 100
	homeCommands = 30
)

// realHome lays out w as realHome's constants say. Skills have a body and
// two more files, as the public skill repositories' do.
func realHome(w *World) {
	body := strings.Repeat("Follow the steps. Check the result before you report it.\n", 40)
	front := func(name string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill. Use it when asked to run " + name + ".\n---\n\n"
	}
	for i := range homeSkills {
		n := fmt.Sprintf("skill-%03d", i)
		w.Write("home/.claude/skills/"+n+"/SKILL.md", front(n)+body)
		w.Write("home/.claude/skills/"+n+"/reference.md", body)
		w.Write("home/.claude/skills/"+n+"/scripts/run.sh", "#!/bin/sh\necho "+n+"\n")
	}
	for i := range homeAgents {
		n := fmt.Sprintf("agent-%03d", i)
		w.Write("home/.claude/agents/"+n+".md", "---\nname: "+n+"\ndescription: The "+n+" agent.\ntools: Read, Grep\n---\n\n"+body)
	}
	for i := range homeCommands {
		w.Write(fmt.Sprintf("home/.claude/commands/cmd-%02d.md", i), "---\ndescription: a command\n---\n\n"+body)
	}
	var entries []string
	for i := range homePlugins {
		p := fmt.Sprintf("plug%02d", i)
		entries = append(entries, `{"name":"`+p+`","source":"./plugins/`+p+`","description":"a plugin"}`)
		w.Write("market/plugins/"+p+"/.claude-plugin/plugin.json", `{"name":"`+p+`","version":"1.0.0","description":"a plugin"}`)
		for j := range 4 {
			s := fmt.Sprintf("ps-%d", j)
			w.Write("market/plugins/"+p+"/skills/"+s+"/SKILL.md", front(s)+body)
		}
		for j := range 3 {
			w.Write(fmt.Sprintf("market/plugins/%s/agents/pa-%d.md", p, j), fmt.Sprintf("---\nname: pa-%d\ndescription: a plugin agent\n---\n\n", j)+body)
			w.Write(fmt.Sprintf("market/plugins/%s/commands/pc-%d.md", p, j), "---\ndescription: a plugin command\n---\n\n"+body)
		}
	}
	w.Write("market/.claude-plugin/marketplace.json", `{"name":"mkt","owner":{"name":"e2e"},"plugins":[`+strings.Join(entries, ",")+`]}`)
	w.ClaudeCmd("plugin", "marketplace", "add", filepath.Join(w.Root, "market"))
	for i := range homePlugins {
		w.ClaudeCmd("plugin", "install", fmt.Sprintf("plug%02d@mkt", i))
	}
	w.Write("proj/CLAUDE.md", "# The project\n\n"+body)
	for i := range 10 {
		n := fmt.Sprintf("proj-skill-%d", i)
		w.Write("proj/.claude/skills/"+n+"/SKILL.md", front(n)+body)
	}
}

// untraced runs one session of w and times its start to its first main
// request, and to its exit. It runs the client untraced: strace slows each traced call, the hooks' too, so a traced
// start times the tracer. The same home is traced once, by the first
// session of each world (World.Claude), so the oracle still judges it.
func untraced(b testing.TB, w *World) (first, exit time.Duration) {
	b.Helper()
	m, err := StartModel(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBin, "-p", "hello", "--output-format", "json")
	cmd.Dir = w.Project
	cmd.Env = append(append(append([]string{}, w.Env...), clientEnv(m)...), "PWD="+w.Project)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &out, strings.NewReader("")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("claude: %v\n%s", err, out.String())
	}
	exit = time.Since(start)
	for _, r := range m.Requests() {
		if r.Main {
			return r.At.Sub(start), exit
		}
	}
	b.Fatalf("the client sent no main request\n%s", out.String())
	return 0, 0
}

// noopHooks points every hook skillwire installed in w at a static Go
// program that does nothing: the floor of any hook, as the client spawns it.
func noopHooks(b testing.TB, w *World) {
	b.Helper()
	src := filepath.Join(w.Root, "noop")
	w.Write("noop/go.mod", "module noop\n\ngo 1.22\n")
	w.Write("noop/main.go", "package main\n\nfunc main() {}\n")
	build := exec.Command("go", "build", "-o", filepath.Join(src, "noop"), ".")
	build.Dir, build.Env = src, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the no-op hook: %v\n%s", err, out)
	}
	settings := filepath.Join(w.Config, "settings.json")
	st, err := os.ReadFile(settings)
	if err != nil {
		b.Fatal(err)
	}
	n := strings.Count(string(st), skillwireBin+" hook ")
	if n == 0 {
		b.Fatalf("no skillwire hook in %s", settings)
	}
	noop := regexp.MustCompile(regexp.QuoteMeta(skillwireBin)+` hook [a-z-]+`).ReplaceAllLiteralString(string(st), filepath.Join(src, "noop"))
	if err := os.WriteFile(settings, []byte(noop), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTheClientsStartWithTheHooks times, inside the real client, the
// start to its first request on a home like a real one, in three worlds of
// the same layout: without hooks; with skillwire's hooks, each a no-op
// program (the floor any hook costs); with skillwire's hooks. Issue 34's
// target: skillwire's at most 1.05x without. The worlds run in turns,
// RUNS rounds (SKILLWIRE_BENCH_RUNS, default 11) after one warm round.
// `make bench-client` runs it.
func BenchmarkTheClientsStartWithTheHooks(b *testing.B) {
	runs := 11
	if v := os.Getenv("SKILLWIRE_BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("SKILLWIRE_BENCH_RUNS=%q: want a positive integer", v)
		}
		runs = n
	}
	names := []string{"without hooks", "no-op hooks", "skillwire's hooks"}
	worlds := []*World{NewWorld(b), NewWorld(b), NewWorld(b)}
	for i, w := range worlds {
		realHome(w)
		if i > 0 {
			w.Install()
		}
		w.Settle()
		m, err := StartModel(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		w.Claude(m, Run{Prompt: "hello"}) // traced once: the oracle judges this home
		m.Close()
	}
	noopHooks(b, worlds[1])
	first, exit := make([][]time.Duration, len(worlds)), make([][]time.Duration, len(worlds))
	b.ResetTimer()
	for round := -1; round < runs; round++ {
		for k := range worlds {
			i := (round + 1 + k) % len(worlds) // each world first in turn
			f, e := untraced(b, worlds[i])
			if round >= 0 {
				first[i], exit[i] = append(first[i], f), append(exit[i], e)
			}
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	off := med(first[0])
	b.ReportMetric(off, "ms-first-without")
	b.ReportMetric(med(first[1])/off, "x-first-noop")
	b.ReportMetric(med(first[2])/off, "x-first-skillwire")
	fmt.Printf("client start to first request (and to exit), %d plugins, %d skills, %d agents, %d commands, medians of %d rounds:\n",
		homePlugins, homeSkills, homeAgents, homeCommands, runs)
	for i, n := range names {
		fmt.Printf("  %-18s %7.1f ms %.3fx (exit %7.1f ms)\n", n, med(first[i]), med(first[i])/off, med(exit[i]))
	}
	verdict := "met"
	if med(first[2]) > 1.05*off {
		verdict = "MISSED"
	}
	fmt.Printf("  target: skillwire's hooks <= 1.05x without: %s\n", verdict)
}
