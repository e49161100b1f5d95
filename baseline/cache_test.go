package baseline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"golang.org/x/sys/unix"
)

// The hook's fast path reads what the daemon cached instead of walking; the
// advisory is a function of the observation alone, so both paths agree
// exactly when the cache gives back the very observation that was put in.
func TestCachedRootIsTheObservationThatWasCached(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/SKILL.md", "a")
	w.write("a/sub/x", "x")
	w.write("odd\nname/f", "y")
	must(t, os.Symlink("a", filepath.Join(w.root.Path, "link")))
	must(t, unix.Mkfifo(filepath.Join(w.root.Path, "a/pipe"), 0o644))
	obs := w.observe(walker.DefaultConfig())
	walked := obs[0].Walk
	must(t, st.Update(func(tx *Tx) error { return tx.PutCachedRoot(walked, time.Now()) }))
	var got *walker.Root
	must(t, st.View(func(tx *Tx) (err error) { got, err = tx.CachedRoot(w.root.Spec()); return }))
	if got == nil || got.Missing != walked.Missing || len(got.Candidates) != len(walked.Candidates) {
		t.Fatalf("cached root %+v", got)
	}
	for i := range walked.Candidates {
		a, b := &walked.Candidates[i], &got.Candidates[i]
		if string(a.Name) != string(b.Name) || a.Kind != b.Kind || a.Digest != b.Digest || !a.Manifest.Equal(&b.Manifest) {
			t.Fatalf("candidate %q differs after the cache", a.Name)
		}
	}
	wantStates := compare(t, st, obs)
	gotStates := compare(t, st, []Observation{{Root: w.root, Walk: got}})
	for name, s := range wantStates {
		if g := gotStates[name]; g.State != s.State || g.ID != s.ID {
			t.Fatalf("%q: walked %s, cached %s", name, s.State, g.State)
		}
	}
}

func TestEventsAreBoundedAndDroppedOnlyWhenAsked(t *testing.T) {
	st, _ := openNew(t)
	now := time.Now()
	var batch []Event
	for i := range MaxEvents + 5 {
		batch = append(batch, Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: now.Add(time.Duration(i))})
	}
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents(batch[:3]) }))
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents(batch[3:]) }))
	var evs []Event
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != MaxEvents || !evs[0].At.Equal(now.Add(5)) {
		t.Fatalf("%d events, oldest at %v", len(evs), evs[0].At)
	}
	must(t, st.Update(func(tx *Tx) error { _, err := tx.DropEvents(evs[:10]); return err }))
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != MaxEvents-10 {
		t.Fatalf("%d events after dropping 10", len(evs))
	}
}

func TestClearKeepsUndeliveredEvents(t *testing.T) {
	st, _ := openNew(t)
	ev := Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: time.Now()}
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents([]Event{ev, ev}) }))
	must(t, st.Update(func(tx *Tx) error { return tx.ClearCache() }))
	var evs []Event
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if len(evs) != 2 {
		t.Fatalf("clear dropped undelivered events: %d left", len(evs))
	}
	// One appended after the listing is not among those dropped.
	must(t, st.Update(func(tx *Tx) error { return tx.AppendEvents([]Event{ev}) }))
	var n int
	must(t, st.Update(func(tx *Tx) (err error) { n, err = tx.DropEvents(evs); return }))
	must(t, st.Update(func(tx *Tx) (err error) { _, err = tx.DropEvents(evs); return }))
	must(t, st.View(func(tx *Tx) (err error) { evs, err = tx.Events(); return }))
	if n != 2 || len(evs) != 1 {
		t.Fatalf("DropEvents said %d, left %d; want 2 dropped, 1 left", n, len(evs))
	}
}

// cachedOne is a root of one candidate c, cached in a fresh store and read
// back.
func cachedOne(t *testing.T, c walker.Candidate) *walker.Root {
	t.Helper()
	st, _ := openNew(t)
	spec := walker.RootSpec{Path: "/r"}
	r := &walker.Root{Spec: spec, Candidates: []walker.Candidate{c}}
	must(t, st.Update(func(tx *Tx) error { return tx.PutCachedRoot(r, time.Now()) }))
	var got *walker.Root
	must(t, st.View(func(tx *Tx) (err error) { got, err = tx.CachedRoot(spec); return }))
	return got
}

func cacheCandidate(canon []byte, front []snapshot.Found) walker.Candidate {
	m := snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.Dir, Mode: 0o755}}}
	d, _ := m.Digest()
	return walker.Candidate{Name: []byte("p"), Kind: walker.KindFile, Manifest: m, Digest: d, Canonical: canon, Front: front}
}

// A plugin's hooks and a skill's frontmatter are told from the canonical
// form: one the cache dropped was never told while the daemon ran.
func TestTheCacheKeepsTheCanonicalFormAndTheFrontmattersReasons(t *testing.T) {
	for _, tc := range []struct {
		name  string
		canon []byte
		front []snapshot.Found
	}{
		{"none", nil, nil},
		{"empty form", []byte{}, nil},
		{"hooks", []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"curl x"}]}]}}`), nil},
		{"reasons", []byte(`{"name":"n"}`), []snapshot.Found{{Reason: anomaly.DuplicateKey, Path: []byte("SKILL.md")}, {Reason: anomaly.Alias}}},
		{"largest kept", bytes.Repeat([]byte("x"), maxExtract), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cachedOne(t, cacheCandidate(tc.canon, tc.front))
			if got == nil || len(got.Candidates) != 1 {
				t.Fatalf("cached root %+v", got)
			}
			c := got.Candidates[0]
			if !bytes.Equal(c.Canonical, tc.canon) || (c.Canonical == nil) != (tc.canon == nil) {
				t.Errorf("canonical %q, want %q", c.Canonical, tc.canon)
			}
			if len(c.Front) != len(tc.front) {
				t.Fatalf("front %+v, want %+v", c.Front, tc.front)
			}
			for i := range tc.front {
				if c.Front[i].Reason != tc.front[i].Reason || !bytes.Equal(c.Front[i].Path, tc.front[i].Path) {
					t.Errorf("front %+v, want %+v", c.Front, tc.front)
				}
			}
		})
	}
}

func TestARootWithAFormTooLargeToCacheIsLeftToTheSession(t *testing.T) {
	if got := cachedOne(t, cacheCandidate(bytes.Repeat([]byte("x"), maxExtract+1), nil)); got != nil {
		t.Fatalf("cached without its canonical form: %+v", got.Candidates)
	}
}

func TestACachedCandidateDecodesOnlyAsEncoded(t *testing.T) {
	good, err := encodeCached(&walker.Candidate{Kind: walker.KindFile, Manifest: cacheCandidate(nil, nil).Manifest,
		Canonical: []byte("{}"), Front: []snapshot.Found{{Reason: anomaly.Alias, Path: []byte("a")}}})
	must(t, err)
	if _, err := decodeCached([]byte("p"), good, walker.RootSpec{}); err != nil {
		t.Fatalf("the encoding itself: %v", err)
	}
	for name, v := range map[string][]byte{
		"empty":               {},
		"bad kind":            append([]byte{9}, good[1:]...),
		"canonical too long":  append([]byte{good[0], 0x7f}, good[2:]...),
		"long-form uvarint":   append([]byte{good[0], 0x83, 0x00}, good[2:]...),
		"bad reason":          bytes.Replace(good, []byte{byte(anomaly.Alias), 1, 'a'}, []byte{0, 1, 'a'}, 1),
		"front count too big": bytes.Replace(good, []byte("{}\x01"), []byte("{}\x09"), 1),
		"trailing":            append(bytes.Clone(good), 0),
		"cut":                 good[:len(good)-1],
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeCached([]byte("p"), v, walker.RootSpec{}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("decoded %q: %v", v, err)
			}
		})
	}
}

func FuzzDecodeCached(f *testing.F) {
	good, _ := encodeCached(&walker.Candidate{Manifest: cacheCandidate(nil, nil).Manifest, Canonical: []byte("{}"),
		Front: []snapshot.Found{{Reason: anomaly.Alias, Path: []byte("a")}}})
	f.Add(good)
	f.Fuzz(func(t *testing.T, v []byte) {
		c, err := decodeCached([]byte("p"), v, walker.RootSpec{})
		if err != nil {
			return
		}
		re, err := encodeCached(&c)
		if err != nil || !bytes.Equal(re, v) {
			t.Fatalf("decoded %q does not encode back: %q, %v", v, re, err)
		}
	})
}
