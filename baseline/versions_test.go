package baseline

import (
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
)

func manifestOf(t *testing.T, content string) (snapshot.Manifest, snapshot.Hash) {
	t.Helper()
	m := snapshot.Manifest{Entries: []snapshot.Entry{
		{Path: []byte{}, Kind: snapshot.Dir, Mode: 0o755},
		{Path: []byte("SKILL.md"), Kind: snapshot.File, Mode: 0o644, Size: int64(len(content)), Hash: snapshot.Hash{content[0]}},
	}}
	d, err := m.Digest()
	must(t, err)
	return m, d
}

func TestKeptVersionsListNewestFirstWithTheirManifest(t *testing.T) {
	st, _ := openNew(t)
	id := st.ID("/root", []byte("pdf"))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var digests []snapshot.Hash
	must(t, st.Update(func(tx *Tx) error {
		for i, c := range []string{"a", "b", "c"} {
			m, d := manifestOf(t, c)
			digests = append(digests, d)
			if err := tx.Versions().Keep(id, Version{Digest: d, At: t0.Add(time.Duration(i) * time.Hour), How: HowSession, Manifest: m}); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, st.View(func(tx *Tx) error {
		vs, err := tx.Versions().Of(id)
		if err != nil {
			return err
		}
		if len(vs) != 3 || vs[0].Digest != digests[2] || vs[2].Digest != digests[0] {
			t.Fatalf("versions not newest first: %v", vs)
		}
		if d, _ := vs[1].Manifest.Digest(); d != digests[1] {
			t.Fatal("manifest does not round-trip")
		}
		return nil
	}))
}

func TestKeepingAgainKeepsVerdictAndFirstUseProtected(t *testing.T) {
	st, _ := openNew(t)
	m, d := manifestOf(t, "a")
	now := time.Now()
	for _, tc := range []struct {
		name  string
		first Version
		again Version
		how   How
		prot  bool
	}{
		{"first use stays protected", Version{How: HowFirstUse}, Version{How: HowRestored}, HowRestored, true},
		{"verdict stays", Version{How: HowVerdict, Verdict: verdict.Safe, Reviewer: "ann"}, Version{How: HowRestored}, HowRestored, true},
		{"session becomes verdict", Version{How: HowSession}, Version{How: HowVerdict, Verdict: verdict.Block}, HowVerdict, true},
		{"session becomes restored", Version{How: HowSession}, Version{How: HowRestored, Restorable: true}, HowRestored, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := st.ID("/root", []byte(tc.name))
			must(t, st.Update(func(tx *Tx) error {
				f, a := tc.first, tc.again
				f.Digest, f.Manifest, f.At, f.Restorable = d, m, now, true
				a.Digest, a.Manifest, a.At = d, m, now.Add(time.Minute)
				if err := tx.Versions().Keep(id, f); err != nil {
					return err
				}
				if err := tx.Versions().Keep(id, a); err != nil {
					return err
				}
				vs, err := tx.Versions().Of(id)
				if err != nil {
					return err
				}
				if len(vs) != 1 || vs[0].How != tc.how || vs[0].Protected() != tc.prot || !vs[0].Restorable {
					t.Fatalf("got %+v", vs)
				}
				return nil
			}))
		})
	}
}

func TestPartialOrMismatchedVersionIsNeverKept(t *testing.T) {
	st, _ := openNew(t)
	id := st.ID("/root", []byte("pdf"))
	m, d := manifestOf(t, "a")
	partial := m
	partial.Partial = true
	pd, _ := partial.Digest()
	for name, v := range map[string]Version{
		"partial":    {Digest: pd, How: HowSession, Manifest: partial},
		"mismatched": {Digest: snapshot.Hash{9}, How: HowSession, Manifest: m},
		"bad how":    {Digest: d, How: "whatever", Manifest: m},
	} {
		t.Run(name, func(t *testing.T) {
			err := st.Update(func(tx *Tx) error { return tx.Versions().Keep(id, v) })
			if err == nil {
				t.Fatal("kept")
			}
		})
	}
	other := st.ID("/root", []byte("other"))
	must(t, st.Update(func(tx *Tx) error {
		if err := tx.Versions().Keep(other, Version{Digest: d, How: HowSession, Manifest: m}); err != nil {
			return err
		}
		return tx.Versions().Drop(other, d, time.Time{})
	}))
	must(t, st.View(func(tx *Tx) error {
		if ids := tx.Versions().IDs(); len(ids) != 0 {
			t.Fatalf("dropping the last version left %v", ids)
		}
		return nil
	}))
}

func TestKeepingTheLatestVersionAgainWritesNothing(t *testing.T) {
	st, _ := openNew(t)
	id := st.ID("/root", []byte("pdf"))
	m, d := manifestOf(t, "a")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keep := func(at time.Time) {
		must(t, st.Update(func(tx *Tx) error {
			return tx.Versions().Keep(id, Version{Digest: d, At: at, How: HowSession, Manifest: m})
		}))
	}
	keep(t0)
	keep(t0.Add(time.Hour))
	must(t, st.View(func(tx *Tx) error {
		vs, err := tx.Versions().Of(id)
		if err != nil {
			return err
		}
		if len(vs) != 1 || !vs[0].At.Equal(t0) {
			t.Fatalf("the unchanged version was written again: %+v", vs)
		}
		return nil
	}))
}

func TestDropVersionDropsOnlyWhatWasPlannedAndIsStillUnprotected(t *testing.T) {
	st, _ := openNew(t)
	m, d := manifestOf(t, "a")
	planned := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		meanwhile func(tx *Tx, id string) error
		dropped   bool
	}{
		{"unchanged since the plan: dropped", func(*Tx, string) error { return nil }, true},
		{"given a verdict since the plan: kept", func(tx *Tx, id string) error {
			return tx.Versions().Keep(id, Version{Digest: d, Manifest: m, At: planned, How: HowVerdict, Verdict: verdict.Block, Reviewer: "ann"})
		}, false},
		{"kept again since the plan: kept", func(tx *Tx, id string) error {
			return tx.Versions().Keep(id, Version{Digest: d, Manifest: m, At: planned.Add(time.Hour), How: HowDaemon})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := st.ID("/root", []byte(tc.name))
			must(t, st.Update(func(tx *Tx) error {
				return tx.Versions().Keep(id, Version{Digest: d, Manifest: m, At: planned, How: HowSession})
			}))
			must(t, st.Update(func(tx *Tx) error { return tc.meanwhile(tx, id) }))
			must(t, st.Update(func(tx *Tx) error { return tx.Versions().Drop(id, d, planned) }))
			must(t, st.View(func(tx *Tx) error {
				vs, err := tx.Versions().Of(id)
				if (len(vs) == 0) != tc.dropped {
					t.Fatalf("versions after the drop: %+v", vs)
				}
				return err
			}))
		})
	}
}

func TestKeepingAgainAddsAnEventAndNeverReStampsTheEarlierOnes(t *testing.T) {
	st, _ := openNew(t)
	id := st.ID("/root", []byte("pdf"))
	m, d := manifestOf(t, "a")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keeps := []Version{
		{Digest: d, At: t0, How: HowFirstUse, Manifest: m},
		{Digest: d, At: t0.Add(time.Hour), How: HowVerdict, Verdict: verdict.Safe, Reviewer: "ann", Manifest: m},
		{Digest: d, At: t0.Add(2 * time.Hour), How: HowRestored, Manifest: m,
			Events: []VersionEvent{{At: t0, How: HowDaemon}}}, // a caller's events are not the store's
	}
	for _, v := range keeps {
		must(t, st.Update(func(tx *Tx) error { return tx.Versions().Keep(id, v) }))
	}
	var vs []Version
	must(t, st.View(func(tx *Tx) (err error) { vs, err = tx.Versions().Of(id); return }))
	want := []VersionEvent{{At: t0, How: HowFirstUse}, {At: t0.Add(time.Hour), How: HowVerdict, Verdict: verdict.Safe, Reviewer: "ann"},
		{At: t0.Add(2 * time.Hour), How: HowRestored, Verdict: verdict.Safe, Reviewer: "ann"}}
	if len(vs) != 1 || len(vs[0].Events) != len(want) {
		t.Fatalf("versions %+v", vs)
	}
	for i, e := range vs[0].Events {
		if !e.At.Equal(want[i].At) || e.How != want[i].How || e.Verdict != want[i].Verdict || e.Reviewer != want[i].Reviewer {
			t.Errorf("event %d: %+v, want %+v", i, e, want[i])
		}
	}
	if v := vs[0]; v.How != HowRestored || v.Verdict != verdict.Safe || !v.FirstUse {
		t.Errorf("the version's last keep, verdict and first use: %+v", v)
	}
}
