package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// world is one global skills root holding skill a, and a store.
type world struct {
	root  claude.Root
	store baseline.Options
}

func newWorld(t *testing.T, tree ...string) world {
	t.Helper()
	dir := t.TempDir()
	w := world{root: claude.Root{Path: filepath.Join(dir, "skills"), Scope: claude.Global, Kind: claude.Skills},
		store: baseline.Options{Dir: filepath.Join(dir, "state"), Create: true, LockTimeout: 200 * time.Millisecond}}
	testtree.Make(t, w.root.Path, append([]string{"a/SKILL.md=hello"}, tree...)...)
	return w
}

// request records v on skill a; expect is the digest reviewed, if any.
func (w world) request(v string, expect *snapshot.Hash) Request {
	return Request{Store: w.store, Verdict: v, Expect: expect, Reviewer: "ann\x1b", Walk: walker.DefaultConfig(),
		Find: func(st *baseline.Store) (Candidate, error) {
			return Candidate{ID: st.ID(w.root.Path, []byte("a")), Root: w.root, Name: []byte("a")}, nil
		}}
}

// digest is skill a's digest now.
func (w world) digest(t *testing.T) *snapshot.Hash {
	t.Helper()
	c := walker.ObserveIn(context.Background(), w.root.Spec(), []byte("a"), walker.DefaultConfig())
	return baseline.DigestOf(&c)
}

// recorded is skill a's record, nil when none.
func (w world) recorded(t *testing.T, id string) (rec *baseline.Record) {
	t.Helper()
	err := baseline.View(w.store, func(tx *baseline.Tx) (err error) { rec, err = tx.Record(id); return })
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func (w world) events(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(w.store.Dir, events.FileName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestAVerdictIsBoundToTheDigestReviewed(t *testing.T) {
	w := newWorld(t)
	d := w.digest(t)
	res, err := Record(context.Background(), w.request(verdict.Safe, d))
	if err != nil {
		t.Fatal(err)
	}
	rec := w.recorded(t, res.ID)
	if rec == nil || rec.Verdict == nil || *rec.Verdict.Digest != *d || rec.Verdict.Reviewer != "ann" {
		t.Fatalf("recorded %+v", rec)
	}
	if !strings.Contains(w.events(t), `"verdict":"SAFE-TO-PROPOSE"`) {
		t.Errorf("no fleet event of the verdict: %q", w.events(t))
	}
}

// SAFE-TO-PROPOSE without the digest reviewed is refused before the
// store is opened or the candidate looked for.
func TestABadRequestIsRefusedBeforeAnythingIsRead(t *testing.T) {
	w := newWorld(t)
	r := w.request(verdict.Safe, nil)
	r.Find = func(*baseline.Store) (Candidate, error) {
		t.Fatal("the candidate was looked for")
		return Candidate{}, nil
	}
	if _, err := Record(context.Background(), r); !errors.Is(err, baseline.ErrNoExpectDigest) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(w.store.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the store was opened: %v", err)
	}
}

func TestARefusedVerdictWritesNothing(t *testing.T) {
	w := newWorld(t)
	stale := snapshot.Hash{1}
	res, err := Record(context.Background(), w.request(verdict.Safe, &stale))
	if !errors.Is(err, baseline.ErrDigestMismatch) {
		t.Fatalf("err %v", err)
	}
	if res.Observed == nil || res.Observed.Digest != *w.digest(t) {
		t.Errorf("the refusal does not name what was observed: %+v", res.Observed)
	}
	if rec := w.recorded(t, res.ID); rec != nil {
		t.Errorf("recorded %+v", rec)
	}
	if ev := w.events(t); ev != "" {
		t.Errorf("events %q", ev)
	}
}

// An anomalous candidate takes SUSPECT, never SAFE-TO-PROPOSE.
func TestSafeToProposeIsRefusedOnAnAnomalousCandidate(t *testing.T) {
	w := newWorld(t, "a/link -> /etc/passwd")
	d := w.digest(t)
	if _, err := Record(context.Background(), w.request(verdict.Safe, d)); !errors.Is(err, baseline.ErrAnomalous) {
		t.Fatalf("SAFE-TO-PROPOSE: err %v", err)
	}
	if _, err := Record(context.Background(), w.request(verdict.Suspect, d)); err != nil {
		t.Fatalf("SUSPECT: %v", err)
	}
}

// A partial observation has no digest, so the verdict binds none.
func TestAnAdverseVerdictOnAPartialCandidateBindsNoDigest(t *testing.T) {
	w := newWorld(t, "a/b=more")
	r := w.request(verdict.Block, nil)
	r.Walk.MaxEntries = 1
	res, err := Record(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Observed.Partial() || res.Verdict.Digest != nil {
		t.Fatalf("partial %v, digest %v", res.Observed.Partial(), res.Verdict.Digest)
	}
	if !strings.Contains(w.events(t), `"verdict":"BLOCK"`) {
		t.Errorf("events %q", w.events(t))
	}
}

// The store is closed while the candidate is walked: another writer is
// not kept waiting by a slow tree.
func TestTheStoreIsNotHeldDuringTheWalk(t *testing.T) {
	w := newWorld(t)
	r := w.request(verdict.Suspect, nil)
	walked := false
	r.Walk.Keep = keepFunc(func(snapshot.Hash, []byte) {
		walked = true
		if err := baseline.Update(w.store, func(*baseline.Tx) error { return nil }); err != nil {
			t.Errorf("the store is held during the walk: %v", err)
		}
	})
	if _, err := Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if !walked {
		t.Fatal("nothing was walked")
	}
}

type keepFunc func(snapshot.Hash, []byte)

func (f keepFunc) Keep(h snapshot.Hash, b []byte) { f(h, b) }
