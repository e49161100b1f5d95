package baseline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
	bolt "go.etcd.io/bbolt"
)

var must = testtree.Must

func openNew(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	st, err := Open(Options{Dir: dir, Create: true, LockTimeout: time.Second})
	must(t, err)
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func TestCreatedStoreIsPrivate(t *testing.T) {
	st, dir := openNew(t)
	st.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, FileName): 0o600} {
		fi, err := os.Lstat(p)
		must(t, err)
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".store-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestAbsentStoreIsNotCreatedUnlessAsked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrAbsent) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("an absent store was created")
	}
}

func TestUntrustedStoreIsRefusedAndNeverRead(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string) string{
		"symlinked directory": func(t *testing.T, dir string) string {
			link := dir + "-link"
			must(t, os.Symlink(dir, link))
			return link
		},
		"symlinked file": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, FileName)
			must(t, os.Rename(p, p+".real"))
			must(t, os.Symlink(p+".real", p))
			return dir
		},
		"group-writable directory": func(t *testing.T, dir string) string {
			must(t, os.Chmod(dir, 0o770))
			return dir
		},
		"world-writable file": func(t *testing.T, dir string) string {
			must(t, os.Chmod(filepath.Join(dir, FileName), 0o606))
			return dir
		},
		"file of another owner": func(t *testing.T, dir string) string {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the file away")
			}
			must(t, os.Chown(filepath.Join(dir, FileName), 65534, 65534))
			return dir
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			st, dir := openNew(t)
			st.Close()
			before, err := os.ReadFile(filepath.Join(dir, FileName))
			must(t, err)
			target := tamper(t, dir)
			_, err = Open(Options{Dir: target, Create: true})
			if !errors.Is(err, ErrUntrusted) || HealthOf(err) != Untrusted {
				t.Fatalf("got %v", err)
			}
			after, _ := os.ReadFile(filepath.Join(dir, FileName))
			if !bytes.Equal(before, after) {
				t.Fatal("an untrusted store was written")
			}
		})
	}
}

func TestCorruptStoreIsReportedNeverRebuilt(t *testing.T) {
	cases := map[string]func(valid []byte) []byte{
		"garbage":   func([]byte) []byte { return bytes.Repeat([]byte("not a database "), 1000) },
		"empty":     func([]byte) []byte { return nil },
		"truncated": func(v []byte) []byte { return v[:len(v)/3] },
		"zeroed meta": func(v []byte) []byte {
			b := bytes.Clone(v)
			clear(b[:8192])
			return b
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			st, dir := openNew(t)
			st.Close()
			p := filepath.Join(dir, FileName)
			valid, err := os.ReadFile(p)
			must(t, err)
			bad := damage(valid)
			must(t, os.WriteFile(p, bad, 0o600))
			_, err = Open(Options{Dir: dir, Create: true, LockTimeout: time.Second})
			if HealthOf(err) != Corrupt {
				t.Fatalf("got %v (%s)", err, HealthOf(err))
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(after, bad) {
				t.Fatal("a corrupt store was rewritten")
			}
		})
	}
}

func TestStoreOfAnotherSchemaIsStale(t *testing.T) {
	st, dir := openNew(t)
	st.Close()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	must(t, err)
	must(t, db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put([]byte("schema"), []byte("2")) }))
	db.Close()
	if _, err := Open(Options{Dir: dir}); !errors.Is(err, ErrStale) {
		t.Fatalf("got %v", err)
	}
}

func TestLockedStoreTimesOutAsBusyNeverHangs(t *testing.T) {
	st, dir := openNew(t)
	defer st.Close() // holds the exclusive lock
	start := time.Now()
	_, err := Open(Options{Dir: dir, LockTimeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("waited %v", d)
	}
	// A shared (read-only) lock conflicts with the writer too.
	if _, err := Open(Options{Dir: dir, LockTimeout: 200 * time.Millisecond, ReadOnly: true}); !errors.Is(err, ErrBusy) {
		t.Fatalf("read-only: got %v", err)
	}
}

func TestConcurrentCreatorsShareOneStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	ids := make(chan string, 8)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			st, err := Open(Options{Dir: dir, Create: true, LockTimeout: 10 * time.Second})
			if err != nil {
				errs <- err
				return
			}
			ids <- st.ID("/r", []byte("x"))
			st.Close()
			errs <- nil
		}()
	}
	for range 8 {
		must(t, <-errs)
	}
	close(ids)
	first := <-ids
	for id := range ids {
		if id != first {
			t.Fatal("two creators minted with different secrets")
		}
	}
}

// world builds roots of skills under a temp dir and observes them.
type world struct {
	t    *testing.T
	dir  string
	root claude.Root
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "skills"), 0o755))
	return &world{t: t, dir: dir, root: claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills}}
}

func (w *world) write(rel, content string) {
	p := filepath.Join(w.root.Path, rel)
	must(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(w.t, os.WriteFile(p, []byte(content), 0o644))
}

func (w *world) observe(cfg walker.Config) []Observation {
	roots := walker.Scan(context.Background(), []walker.RootSpec{w.root.Spec()}, cfg)
	return []Observation{{Root: w.root, Walk: &roots[0]}}
}

func compare(t *testing.T, st *Store, obs []Observation) map[string]Standing {
	t.Helper()
	out := map[string]Standing{}
	must(t, st.View(func(tx *Tx) error {
		sts, err := tx.Compare(obs)
		for _, s := range sts {
			out[string(s.Name)] = s
		}
		return err
	}))
	return out
}

func advance(t *testing.T, st *Store, obs []Observation) map[string]Standing {
	t.Helper()
	out := map[string]Standing{}
	must(t, st.Update(func(tx *Tx) error {
		sts, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		for _, s := range sts {
			out[string(s.Name)] = s
		}
		first := !tx.FirstRunDone()
		if _, err = tx.Advance(sts, first, time.Now()); err != nil {
			return err
		}
		return tx.MarkFirstRun(time.Now())
	}))
	return out
}

func record(t *testing.T, st *Store, name string, sts map[string]Standing, verdict string) {
	t.Helper()
	s := sts[name]
	v := Verdict{Verdict: verdict, Digest: s.Digest(), At: time.Now().UTC()}
	must(t, st.Update(func(tx *Tx) error {
		_, err := tx.RecordVerdict(Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()}, v)
		return err
	}))
}

func states(m map[string]Standing) map[string]State {
	out := map[string]State{}
	for k, v := range m {
		out[k] = v.State
	}
	return out
}

func TestCompareAndAdvanceLifecycle(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/SKILL.md", "a")
	w.write("b/SKILL.md", "b")
	cfg := walker.DefaultConfig()

	first := advance(t, st, w.observe(cfg))
	if got := states(first); got["a"] != New || got["b"] != New {
		t.Fatalf("first: %v", got)
	}
	var recA *Record
	must(t, st.View(func(tx *Tx) (err error) { recA, err = tx.Record(first["a"].ID); return }))
	if recA.Status != StatusBaseline {
		t.Fatalf("first use: status %s, want baseline", recA.Status)
	}

	if got := states(compare(t, st, w.observe(cfg))); got["a"] != Unchanged || got["b"] != Unchanged {
		t.Fatalf("second: %v", got)
	}

	w.write("a/SKILL.md", "A")
	must(t, os.RemoveAll(filepath.Join(w.root.Path, "b")))
	w.write("c/SKILL.md", "c")
	third := advance(t, st, w.observe(cfg))
	if got := states(third); got["a"] != Changed || got["b"] != Removed || got["c"] != New {
		t.Fatalf("third: %v", got)
	}
	must(t, st.View(func(tx *Tx) error {
		c, _ := tx.Record(third["c"].ID)
		a, _ := tx.Record(third["a"].ID)
		if c.Status != StatusSeen || a.Status != StatusSeen {
			t.Errorf("after first use: c %s, a %s; want seen", c.Status, a.Status)
		}
		m, err := tx.Manifest(third["a"].ID)
		if err != nil || m == nil || !m.Equal(&third["a"].Observed.Manifest) {
			t.Errorf("manifest not kept: %v", err)
		}
		return nil
	}))
	// Delivered changes are consumed: the next comparison is quiet.
	for name, s := range compare(t, st, w.observe(cfg)) {
		if s.State != Unchanged {
			t.Errorf("%s: %s after advance", name, s.State)
		}
	}
}

func TestPartialDigestIsNeverStoredOrComparedAsChanged(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	for i := range 20 {
		w.write(filepath.Join("big", string(rune('a'+i))), "x")
	}
	w.write("small/f", "x")
	tiny := walker.DefaultConfig()
	tiny.MaxEntries = 6
	sts := advance(t, st, w.observe(tiny))
	big := sts["big"]
	if big.State != New || big.Digest() != nil {
		t.Fatalf("big: %s %v", big.State, big.Digest())
	}
	must(t, st.View(func(tx *Tx) error {
		if r, _ := tx.Record(sts["big"].ID); r != nil {
			t.Error("a partial observation was stored")
		}
		return nil
	}))
	// Known, then partial: never "changed".
	advance(t, st, w.observe(walker.DefaultConfig()))
	w.write("big/a", "changed")
	if got := compare(t, st, w.observe(tiny))["big"]; got.State != Partial {
		t.Fatalf("partial re-observation judged %s", got.State)
	}
}

func TestAdvanceAppliesOnlyToRecordsStillAsCompared(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/f", "1")
	advance(t, st, w.observe(walker.DefaultConfig()))
	w.write("a/f", "2")
	obs := w.observe(walker.DefaultConfig())
	var stale []Standing
	must(t, st.View(func(tx *Tx) (err error) { stale, err = tx.Compare(obs); return }))
	advance(t, st, obs) // another process delivers and advances first
	w.write("a/f", "3")
	advance(t, st, w.observe(walker.DefaultConfig()))
	var n int
	must(t, st.Update(func(tx *Tx) (err error) { n, err = tx.Advance(stale, false, time.Now()); return }))
	if n != 0 {
		t.Fatalf("a stale comparison overwrote %d record(s)", n)
	}
	if got := compare(t, st, w.observe(walker.DefaultConfig()))["a"].State; got != Unchanged {
		t.Fatalf("the newest delivery was lost: %s", got)
	}
}

func TestVettedCandidateThatChangesIsPendingWithItsVerdictAsHistory(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(walker.DefaultConfig()))
	record(t, st, "a", sts, verdict.Safe)
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Safe) != 1 || rep.Safe[0].Status != StatusVetted {
		t.Fatalf("not vetted: %+v", rep)
	}
	w.write("a/f", "2")
	sts = advance(t, st, w.observe(walker.DefaultConfig()))
	if sts["a"].Verdict != nil {
		t.Fatal("a safe verdict applies to changed content")
	}
	must(t, st.View(func(tx *Tx) error {
		r, _ := tx.Record(sts["a"].ID)
		if r.Status != StatusSeen || r.Verdict != nil || len(r.History) != 1 || r.History[0].Verdict != verdict.Safe {
			t.Errorf("record after change: %+v", r)
		}
		rep, _ = tx.Report()
		return nil
	}))
	if len(rep.Safe) != 0 || len(rep.Unvetted) != 0 || len(rep.Pending) != 1 {
		t.Fatalf("report: %+v", rep)
	}
}

func TestAdverseVerdictIsNeverHiddenByALaterChange(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/f", "trojan")
	sts := advance(t, st, w.observe(walker.DefaultConfig()))
	record(t, st, "a", sts, verdict.Block)
	w.write("a/f", "innocent-looking")
	sts = advance(t, st, w.observe(walker.DefaultConfig()))
	if v := sts["a"].Verdict; v == nil || v.Verdict != verdict.Block {
		t.Fatalf("verdict in force after a change: %+v", v)
	}
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Adverse) != 1 {
		t.Fatalf("adverse verdict hidden: %+v", rep)
	}
	// Until a human records a non-adverse verdict for the content.
	record(t, st, "a", sts, verdict.Safe)
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Adverse) != 0 || len(rep.Safe) != 1 {
		t.Fatalf("after SAFE: %+v", rep)
	}
}

func TestAdverseVerdictsFollowContentNotNames(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("evil/f", "trojan")
	sts := advance(t, st, w.observe(walker.DefaultConfig()))
	record(t, st, "evil", sts, verdict.Block)
	must(t, os.Rename(filepath.Join(w.root.Path, "evil"), filepath.Join(w.root.Path, "innocent")))
	sts = advance(t, st, w.observe(walker.DefaultConfig()))
	if v := sts["innocent"].Verdict; sts["innocent"].State != New || v == nil || v.Verdict != verdict.Block || v.From != sts["evil"].ID {
		t.Fatalf("reappearance under another name: %s %+v", sts["innocent"].State, v)
	}
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Adverse) != 2 {
		t.Fatalf("want both records adverse, got %+v", rep)
	}
	// Another root too.
	w2 := newWorld(t)
	w2.root.Scope = claude.Project
	must(t, os.MkdirAll(filepath.Join(w2.root.Path, "x"), 0o755))
	w2.write("x/f", "trojan")
	if v := compare(t, st, w2.observe(walker.DefaultConfig()))["x"].Verdict; v == nil || v.Verdict != verdict.Block {
		t.Fatal("same content in another root is not adverse")
	}
}

func TestReviewerTextIsSanitized(t *testing.T) {
	long := string(bytes.Repeat([]byte("a"), 300))
	for in, want := range map[string]string{
		"alice":             "alice",
		"a\nb\x1b[2Jc":      "ab[2Jc",
		"$(rm -rf ~) `id`":  "(rm -rf ~) id",
		"caf\u00e9 \u202ex": "caf x",
		long:                long[:200],
	} {
		if got := SanitizeReviewer(in); got != want {
			t.Errorf("SanitizeReviewer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStoreSurvivesFaultsAsCorrupt(t *testing.T) {
	// The guard turns a memory fault inside a transaction into an error.
	st, _ := openNew(t)
	err := st.view(func(*bolt.Tx) error {
		var p *int
		_ = *p // a nil dereference stands in for a fault on a bad page
		return nil
	})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v", err)
	}
}

func TestRecordingAVerdictDeliversWhatTheReviewerSaw(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/f", "1")
	obs := w.observe(walker.DefaultConfig())
	c := &obs[0].Walk.Candidates[0]
	id := st.ID(w.root.Path, c.Name)
	v := Verdict{Verdict: verdict.Safe, Digest: &c.Digest, At: time.Now().UTC()}
	must(t, st.Update(func(tx *Tx) error {
		_, err := tx.RecordVerdict(Target{ID: id, Root: w.root, Name: c.Name, Observed: c, Expect: &c.Digest}, v)
		return err
	}))
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Safe) != 1 || rep.Safe[0].Status != StatusVetted {
		t.Fatalf("a never-delivered candidate recorded SAFE is not vetted: %+v", rep)
	}
	if got := compare(t, st, obs)["a"].State; got != Unchanged {
		t.Fatalf("state after record: %s", got)
	}
}

// TestCompareObservedIsCompareOfTheObservedAlone: each observed candidate
// stands as Compare says, with its record, verdict and prior form; what
// is gone is not listed.
func TestCompareObservedIsCompareOfTheObservedAlone(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		w.write(n+"/SKILL.md", n)
	}
	cfg := walker.DefaultConfig()
	first := advance(t, st, w.observe(cfg))
	record(t, st, "b", first, "BLOCK")
	w.write("a/SKILL.md", "A")
	w.write("e/SKILL.md", "e")
	must(t, os.RemoveAll(filepath.Join(w.root.Path, "d")))
	obs := w.observe(cfg)
	must(t, st.View(func(tx *Tx) error {
		all, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		some, err := tx.CompareObserved(obs)
		if err != nil {
			return err
		}
		var want []Standing
		for _, s := range all {
			if s.Observed != nil {
				want = append(want, s)
			}
		}
		if len(all) == len(want) {
			t.Fatal("the premise: Compare lists d as gone")
		}
		if !reflect.DeepEqual(some, want) {
			t.Errorf("CompareObserved:\n%+v\nwant\n%+v", some, want)
		}
		return nil
	}))
}
