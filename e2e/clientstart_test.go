//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
func untraced(b *testing.B, w *World) (first, exit time.Duration) {
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

// BenchmarkTheClientsStartWithTheHooks times, inside the real client, the
// start to its first request with skillwire's hooks installed and without
// them (issue 34's target: at most 1.05x), on a home like a real one. Two
// worlds of the same layout, one with the hooks, run in turns, RUNS rounds
// (SKILLWIRE_BENCH_RUNS, default 11) after one warm round. `make
// bench-client` runs it.
func BenchmarkTheClientsStartWithTheHooks(b *testing.B) {
	runs := 11
	if v := os.Getenv("SKILLWIRE_BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("SKILLWIRE_BENCH_RUNS=%q: want a positive integer", v)
		}
		runs = n
	}
	off, on := NewWorld(b), NewWorld(b)
	realHome(off)
	realHome(on)
	on.Install()
	for _, w := range []*World{off, on} {
		w.Settle()
		m, err := StartModel(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		w.Claude(m, Run{Prompt: "hello"}) // traced once: the oracle judges this home
		m.Close()
	}
	type times struct{ first, exit []time.Duration }
	var t [2]times
	b.ResetTimer()
	for round := -1; round < runs; round++ {
		for k := range 2 {
			i := (round + k) & 1 // each world first in every other round
			first, exit := untraced(b, []*World{off, on}[i])
			if round >= 0 {
				t[i].first = append(t[i].first, first)
				t[i].exit = append(t[i].exit, exit)
			}
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	offFirst, onFirst := med(t[0].first), med(t[1].first)
	b.ReportMetric(offFirst, "ms-first-without")
	b.ReportMetric(onFirst, "ms-first-with")
	b.ReportMetric(onFirst/offFirst, "x-first")
	b.ReportMetric(med(t[1].exit)/med(t[0].exit), "x-exit")
	verdict := "met"
	if onFirst > 1.05*offFirst {
		verdict = "MISSED"
	}
	fmt.Printf("client start to first request, %d plugins, %d skills, %d agents, medians of %d rounds:\n"+
		"  without the hooks %.1f ms, with them %.1f ms: %.3fx (target <= 1.05x: %s)\n"+
		"  start to exit: without %.1f ms, with %.1f ms\n",
		homePlugins, homeSkills, homeAgents, runs, offFirst, onFirst, onFirst/offFirst, verdict, med(t[0].exit), med(t[1].exit))
}
