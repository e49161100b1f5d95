package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// BenchmarkPreToolUse is one gate call for a 20-file skill, vetted (the
// common case: nothing to answer), among 20 other skills and 20 commands
// whose frontmatter names are read, walked on the spot, with and without a
// live, whole-watching daemon (whose cache the gate never reads: it lags the
// disk by its debounce). Target (issue #16): under 8 ms.
func BenchmarkPreToolUse(b *testing.B) {
	for _, daemon := range []bool{false, true} {
		b.Run(map[bool]string{false: "walk", true: "walk-daemon-running"}[daemon], func(b *testing.B) {
			tr := newTree(b)
			tr.deliver()
			p := tr.skill("user", "pdf")
			for i := range 19 {
				tr.write(filepath.Join(p, "ref", fmt.Sprintf("f%02d.md", i)), "reference text\n")
			}
			for i := range 20 {
				// Others the name could resolve to: each one's frontmatter name is read.
				tr.skill("project", fmt.Sprintf("s%02d", i))
				tr.write(filepath.Join(tr.cfg, "commands", fmt.Sprintf("c%02d.md", i)), "---\nname: c\n---\n")
			}
			tr.record(tr.deliver()["global/pdf"], verdict.Safe)
			if daemon {
				fakeDaemon(b, tr, time.Now())
			}
			u := Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}
			b.ResetTimer()
			for b.Loop() {
				res, err := Check(context.Background(), u, tr.env)
				if err != nil || res.Answer != None || len(res.Findings) != 1 {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

// fakeDaemon holds the daemon's lock and writes what a whole-watching
// daemon keeps: a fresh heartbeat naming every root, and its cache.
func fakeDaemon(b testing.TB, tr *tree, at time.Time) {
	f, err := os.OpenFile(filepath.Join(tr.env.Store.Dir, "daemon.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b.Fatal(err)
	}
	specs := make([]walker.RootSpec, len(tr.env.Roots))
	hb := cache.Heartbeat{PID: os.Getpid(), At: at, Whole: true}
	for i, r := range tr.env.Roots {
		specs[i] = r.Spec()
		hb.Roots = append(hb.Roots, r.Path)
	}
	walked := walker.Scan(context.Background(), specs, walker.DefaultConfig())
	st := tr.store()
	defer st.Close()
	err = st.Update(func(tx *baseline.Tx) error {
		for i := range walked {
			if err := tx.Cache().PutRoot(&walked[i], time.Now()); err != nil {
				return err
			}
		}
		return tx.Cache().PutHeartbeat(hb)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// padded lays out the deadline finding's tree: the BLOCKed skill evil
// beside 200 skills with 64 KiB of frontmatter each and, with fanout, 4,100
// empty folders (past the per-directory entry limit).
func padded(tb testing.TB, fanout bool) *tree {
	tr := newTree(tb)
	tr.deliver()
	tr.skill("user", "evil")
	fm := ""
	for i := range 1000 {
		fm += fmt.Sprintf("k%04d: %s\n", i, "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv")
	}
	for i := range 200 {
		tr.write(filepath.Join(tr.cfg, "skills", fmt.Sprintf("pad%03d", i), "SKILL.md"), "---\nname: pad\ndescription: pad\n"+fm+"---\nbody\n")
	}
	tr.record(tr.deliver()["global/evil"], verdict.Block)
	if fanout {
		for i := range 4100 {
			if err := os.Mkdir(filepath.Join(tr.cfg, "skills", fmt.Sprintf("e%04d", i)), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return tr
}

// BenchmarkPreToolUseBlockedAmongPadding: a BLOCK named by its folder is
// denied without reading the other candidates, so the cost of the answer is
// bounded by the match, not by 200 × 64 KiB of others' frontmatter nor by
// 4,100 empty folders beside it. Target (issue 21): under 10 ms median for
// the hook; this is the library's part of it.
func BenchmarkPreToolUseBlockedAmongPadding(b *testing.B) {
	for _, fanout := range []bool{false, true} {
		b.Run(map[bool]string{false: "200x64KiB", true: "200x64KiB+4100dirs"}[fanout], func(b *testing.B) {
			tr := padded(b, fanout)
			u := Use{Kind: resolve.Skill, Name: "evil", Event: "PreToolUse"}
			b.ResetTimer()
			for b.Loop() {
				res, err := Check(context.Background(), u, tr.env)
				if err != nil || res.Answer != Deny {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

// BenchmarkPreToolUseBlockedByFrontmatterAmongListPadding: the BLOCK is
// found only by its frontmatter name, beside 200 skills of 64 KiB
// list-shaped frontmatter (the review's shape, 2 s before the name budget).
func BenchmarkPreToolUseBlockedByFrontmatterAmongListPadding(b *testing.B) {
	tr := newTree(b)
	tr.deliver()
	tr.write(filepath.Join(tr.cfg, "skills", "x1", "SKILL.md"), "---\nname: evil\n---\nEVIL\n")
	fm := "x:\n"
	for range 16000 {
		fm += "- a\n"
	}
	for i := range 200 {
		tr.write(filepath.Join(tr.project, ".claude", "skills", fmt.Sprintf("pad%03d", i), "SKILL.md"), "---\n"+fm+"---\nbody\n")
	}
	tr.record(tr.deliver()["global/x1"], verdict.Block)
	u := Use{Kind: resolve.Skill, Name: "evil", Event: "PreToolUse"}
	b.ResetTimer()
	for b.Loop() {
		res, err := Check(context.Background(), u, tr.env)
		if err != nil || res.Answer != Deny {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkWorkflowCall is one gate call for a reviewed workflow whose
// 500 KiB script starts 10 of 100 agents (all reviewed SAFE) among many
// thousands of prompt literals: the reader and the name lookups, not a
// walk per literal, set its cost (each started agent is walked).
func BenchmarkWorkflowCall(b *testing.B) {
	tr := newTree(b)
	body := "export const meta = { name: 'wf', description: 'd' }\n"
	for i := range 100 {
		tr.write(filepath.Join(tr.project, ".claude", "agents", fmt.Sprintf("a%03d.md", i)), fmt.Sprintf("---\nname: a%03d\ndescription: d\n---\nx\n", i))
	}
	for i := range 10 {
		body += fmt.Sprintf("await agent('p', { agentType: 'a%03d' })\n", i)
	}
	for i := 0; len(body) < 500<<10; i++ {
		body += fmt.Sprintf("log('prompt literal number %d', `and a template %d`)\n", i, i)
	}
	tr.workflowFile("wf.js", body)
	sts := tr.deliver()
	for _, s := range sts {
		tr.record(s, verdict.Safe)
	}
	u := Use{Kind: resolve.Workflow, Name: "wf", Event: "PreToolUse"}
	b.ResetTimer()
	for b.Loop() {
		res, err := Check(context.Background(), u, tr.env)
		if err != nil || res.Answer != None || len(res.Findings) != 11 {
			b.Fatalf("%s %q %d %v", res.Answer, res.Reason, len(res.Findings), err)
		}
	}
}
