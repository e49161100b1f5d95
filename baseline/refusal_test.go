package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// observeOne writes the tree of build under a fresh root. It returns the one
// candidate named name, observed with cfg.
func observeOne(t *testing.T, name string, cfg walker.Config, build func(dir string)) (*world, *walker.Candidate) {
	t.Helper()
	w := newWorld(t)
	dir := filepath.Join(w.root.Path, name)
	must(t, os.MkdirAll(dir, 0o755))
	build(dir)
	obs := w.observe(cfg)
	for i := range obs[0].Walk.Candidates {
		if c := &obs[0].Walk.Candidates[i]; string(c.Name) == name {
			return w, c
		}
	}
	t.Fatalf("candidate %q not observed", name)
	return nil, nil
}

func writeFiles(n int) func(string) {
	return func(dir string) {
		for i := range n {
			os.WriteFile(filepath.Join(dir, string(rune('a'+i))), []byte("x"), 0o644)
		}
	}
}

func TestRecordVerdictRefusesWhatCannotBeVouchedFor(t *testing.T) {
	other := snapshot.Hash{9}
	small := walker.DefaultConfig()
	small.MaxEntries = 2
	cases := []struct {
		name     string
		cand     string
		cfg      walker.Config
		build    func(string)
		verdict  string
		expect   func(c *walker.Candidate) *snapshot.Hash
		want     error
		wantAlso error
	}{
		{name: "an unknown verdict", cand: "a", build: writeFiles(1), verdict: "OK",
			expect: func(c *walker.Candidate) *snapshot.Hash { return &c.Digest }, want: ErrBadVerdict},
		{name: "SAFE without the reviewed digest", cand: "a", build: writeFiles(1), verdict: verdict.Safe,
			expect: func(*walker.Candidate) *snapshot.Hash { return nil }, want: ErrNoExpectDigest},
		{name: "SAFE on content that is no longer the reviewed one", cand: "a", build: writeFiles(1), verdict: verdict.Safe,
			expect: func(*walker.Candidate) *snapshot.Hash { return &other }, want: ErrDigestMismatch},
		{name: "BLOCK against a stale expectation", cand: "a", build: writeFiles(1), verdict: verdict.Block,
			expect: func(*walker.Candidate) *snapshot.Hash { return &other }, want: ErrDigestMismatch},
		{name: "SAFE on a partial candidate", cand: "a", cfg: small, build: writeFiles(5), verdict: verdict.Safe,
			expect: func(c *walker.Candidate) *snapshot.Hash { return &c.Digest }, want: ErrPartial},
		{name: "SAFE on an anomalous candidate", cand: "a", build: func(dir string) {
			must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
		}, verdict: verdict.Safe, expect: func(c *walker.Candidate) *snapshot.Hash { return &c.Digest }, want: ErrAnomalous},
		{name: "SAFE on a candidate whose name is hidden", cand: "bad\x1b[2Jname", build: writeFiles(1), verdict: verdict.Safe,
			expect: func(c *walker.Candidate) *snapshot.Hash { return &c.Digest }, want: ErrBadName, wantAlso: ErrAnomalous},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg == (walker.Config{}) {
				cfg = walker.DefaultConfig()
			}
			w, c := observeOne(t, tc.cand, cfg, tc.build)
			st, _ := openNew(t)
			id := st.ID(w.root.Path, c.Name)
			v := Verdict{Verdict: tc.verdict, At: time.Now().UTC()}
			if !c.Partial() {
				v.Digest = &c.Digest
			}
			err := st.Update(func(tx *Tx) error {
				_, err := tx.RecordVerdict(Target{ID: id, Root: w.root, Name: c.Name, Observed: c, Expect: tc.expect(c)}, v)
				return err
			})
			if !errors.Is(err, tc.want) || tc.wantAlso != nil && !errors.Is(err, tc.wantAlso) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			must(t, st.View(func(tx *Tx) error {
				if r, _ := tx.Record(id); r != nil {
					t.Errorf("a refused verdict left a record: %+v", r)
				}
				return nil
			}))
		})
	}
}

func TestAdverseVerdictsAreRecordableOnAnyTree(t *testing.T) {
	small := walker.DefaultConfig()
	small.MaxEntries = 2
	for name, tc := range map[string]struct {
		cand  string
		cfg   walker.Config
		build func(string)
	}{
		"partial":   {"a", small, writeFiles(5)},
		"anomalous": {"a", walker.DefaultConfig(), func(dir string) { must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link"))) }},
		"badname":   {"bad\x1bname", walker.DefaultConfig(), writeFiles(1)},
	} {
		t.Run(name, func(t *testing.T) {
			w, c := observeOne(t, tc.cand, tc.cfg, tc.build)
			st, _ := openNew(t)
			v := Verdict{Verdict: verdict.Block, At: time.Now().UTC()}
			if !c.Partial() {
				v.Digest = &c.Digest
			}
			must(t, st.Update(func(tx *Tx) error {
				_, err := tx.RecordVerdict(Target{ID: st.ID(w.root.Path, c.Name), Root: w.root, Name: c.Name, Observed: c}, v)
				return err
			}))
		})
	}
}

func TestSafeVerdictMustBindTheCheckedDigest(t *testing.T) {
	w, c := observeOne(t, "a", walker.DefaultConfig(), writeFiles(1))
	other := snapshot.Hash{7}
	err := CheckVerdict(Target{ID: "swaaaa", Root: w.root, Name: c.Name, Observed: c, Expect: &c.Digest},
		Verdict{Verdict: verdict.Safe, Digest: &other})
	if !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("a SAFE verdict naming other bytes than the checked ones: %v", err)
	}
}

func TestCheckVerdictNeedsAnObservationToCheckAnExpectation(t *testing.T) {
	d := snapshot.Hash{1}
	if err := CheckVerdict(Target{ID: "swaaaa", Expect: &d}, Verdict{Verdict: verdict.Safe, Digest: &d}); !errors.Is(err, ErrUnobserved) {
		t.Fatalf("got %v", err)
	}
}
