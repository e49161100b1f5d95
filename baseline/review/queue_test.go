package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/findings"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/walker"
)

// deliver records one session's observation of w's root: each candidate
// is then unvetted, or pending when a SAFE review no longer covers it.
func (w world) deliver(t *testing.T) {
	t.Helper()
	r := walker.Scan(context.Background(), []walker.RootSpec{w.root.Spec()}, walker.DefaultConfig())[0]
	err := baseline.Update(w.store, func(tx *baseline.Tx) error {
		sts, err := tx.Compare([]baseline.Observation{{Root: w.root, Walk: &r}})
		if err != nil {
			return err
		}
		if _, err := tx.Advance(sts, !tx.FirstRunDone(), time.Now()); err != nil {
			return err
		}
		return tx.MarkFirstRun(time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (w world) queue(t *testing.T) []*Item {
	t.Helper()
	o := w.store
	o.Create, o.ReadOnly = false, true
	k := history.OpenKept(w.store.Dir)
	t.Cleanup(k.Close)
	items, err := Queue(context.Background(), QueueConfig{Store: o, Roots: []claude.Root{w.root}, Walk: walker.DefaultConfig(),
		Kept: func(h snapshot.Hash, _ int64) ([]byte, bool, error) { b, ok := k.Get(h); return b, ok, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// Riskiest first: a widened allowed-tools before a script before text.
// Findings and a digest come with each, taken from the bytes on disk now.
func TestTheQueueIsOrderedByRisk(t *testing.T) {
	w := newWorld(t, "tools/SKILL.md=---\nname: tools\nallowed-tools: Bash(curl:*)\n---\nbody\n",
		"script/SKILL.md=# script\n", "script/run.sh=echo hi\n")
	if err := os.Chmod(filepath.Join(w.root.Path, "script/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.deliver(t)
	items := w.queue(t)
	var got []string
	for _, it := range items {
		got = append(got, string(it.RawName)+":"+it.Risk.String())
	}
	want := []string{"tools:permissions", "script:scripts", "a:instructions"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("order %v, want %v", got, want)
	}
	if it := items[0]; it.Digest == nil || it.Status != "unvetted" || findings.Count(it.Findings, findings.ToolsWidened) != 1 || it.From != nil {
		t.Errorf("first item %+v", it)
	}
}

// A pending item comes before an unvetted one of the same risk, and its
// findings compare with the version reviewed: a host it named is not new.
func TestAPendingItemIsComparedWithItsReviewedVersion(t *testing.T) {
	w := newWorld(t, "b/SKILL.md=plain\n")
	testtree.Make(t, w.root.Path, "a/SKILL.md=docs at https://docs.example.org\n")
	w.deliver(t)
	r := w.request(verdict.Safe, w.digest(t))
	r.Keeper = history.NewKeeper(w.store, nil)
	if _, err := Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	testtree.Make(t, w.root.Path, "a/SKILL.md=hello, see https://docs.example.org and https://new.example.net\n")
	w.deliver(t)
	items := w.queue(t)
	if len(items) != 2 || string(items[0].RawName) != "a" || items[0].Status != "pending" || items[0].From == nil {
		for _, it := range items {
			t.Errorf("%s %s from %v", it.RawName, it.Status, it.From)
		}
		t.Fatal("not the pending item first, with its reviewed version")
	}
	hosts := findings.Count(items[0].Findings, findings.NewHost)
	if hosts != 1 || items[0].Findings[len(items[0].Findings)-1].Text != `"new.example.net"` {
		t.Errorf("new hosts %v", items[0].Findings)
	}
	k := history.OpenKept(w.store.Dir)
	defer k.Close()
	items[0].Observe(context.Background(), QueueConfig{Walk: walker.DefaultConfig()})
	ds, err := items[0].Diff(func(h snapshot.Hash, _ int64) ([]byte, bool, error) { b, ok := k.Get(h); return b, ok, nil })
	if err != nil || len(ds) != 1 || !strings.Contains(ds[0].Diff, "-docs at https://docs.example.org\n+hello, see") {
		t.Errorf("diff %v %+v", err, ds)
	}
}

// A plugin ranks by what it carries: its hooks file before an MCP file
// before plain text.
func TestAPluginRanksByWhatItCarries(t *testing.T) {
	for _, c := range []struct {
		file string
		want Risk
	}{{"hooks/hooks.json", RiskHooks}, {".mcp.json", RiskMCP}, {"README.md", RiskInstructions}} {
		it := &Item{Kind: claude.KindPlugin, Observed: &walker.Candidate{Manifest: snapshot.Manifest{Entries: []snapshot.Entry{
			{Path: []byte(".claude-plugin/plugin.json"), Kind: snapshot.File, Mode: 0o644},
			{Path: []byte(c.file), Kind: snapshot.File, Mode: 0o644}}}}}
		if got := riskOf(it, nil); got != c.want {
			t.Errorf("a plugin with %s: risk %s, want %s", c.file, got, c.want)
		}
	}
}
