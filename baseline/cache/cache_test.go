package cache

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	bolt "go.etcd.io/bbolt"
)

func TestEventsAreBoundedAndDroppedOnlyWhenAsked(t *testing.T) {
	st := openNew(t)
	now := time.Now()
	var batch []Event
	for i := range MaxEvents + 5 {
		batch = append(batch, Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: now.Add(time.Duration(i))})
	}
	must(t, st.Update(func(tx *bolt.Tx) error { return EventsOf(tx).Append(batch[:3]) }))
	must(t, st.Update(func(tx *bolt.Tx) error { return EventsOf(tx).Append(batch[3:]) }))
	var evs []Event
	must(t, st.View(func(tx *bolt.Tx) (err error) { evs, err = EventsOf(tx).List(); return }))
	if len(evs) != MaxEvents || !evs[0].At.Equal(now.Add(5)) {
		t.Fatalf("%d events, oldest at %v", len(evs), evs[0].At)
	}
	must(t, st.Update(func(tx *bolt.Tx) error { _, err := EventsOf(tx).Drop(evs[:10]); return err }))
	must(t, st.View(func(tx *bolt.Tx) (err error) { evs, err = EventsOf(tx).List(); return }))
	if len(evs) != MaxEvents-10 {
		t.Fatalf("%d events after dropping 10", len(evs))
	}
}

func TestClearKeepsUndeliveredEvents(t *testing.T) {
	st := openNew(t)
	ev := Event{ID: "swaaaaaaaaaaaaaa", Root: []byte("/r"), Name: []byte("a"), At: time.Now()}
	must(t, st.Update(func(tx *bolt.Tx) error { return EventsOf(tx).Append([]Event{ev, ev}) }))
	must(t, st.Update(func(tx *bolt.Tx) error { return Of(tx).Clear() }))
	var evs []Event
	must(t, st.View(func(tx *bolt.Tx) (err error) { evs, err = EventsOf(tx).List(); return }))
	if len(evs) != 2 {
		t.Fatalf("clear dropped undelivered events: %d left", len(evs))
	}
	// One appended after the listing is not among those dropped.
	must(t, st.Update(func(tx *bolt.Tx) error { return EventsOf(tx).Append([]Event{ev}) }))
	var n int
	must(t, st.Update(func(tx *bolt.Tx) (err error) { n, err = EventsOf(tx).Drop(evs); return }))
	must(t, st.Update(func(tx *bolt.Tx) (err error) { _, err = EventsOf(tx).Drop(evs); return }))
	must(t, st.View(func(tx *bolt.Tx) (err error) { evs, err = EventsOf(tx).List(); return }))
	if n != 2 || len(evs) != 1 {
		t.Fatalf("Drop said %d, left %d; want 2 dropped, 1 left", n, len(evs))
	}
}

// cachedOne is a root of one candidate c, cached in a fresh store and read
// back.
func cachedOne(t *testing.T, c walker.Candidate) *walker.Root {
	t.Helper()
	st := openNew(t)
	spec := walker.RootSpec{Path: "/r"}
	r := &walker.Root{Spec: spec, Candidates: []walker.Candidate{c}}
	must(t, st.Update(func(tx *bolt.Tx) error { return Of(tx).PutRoot(r, time.Now()) }))
	var got *walker.Root
	must(t, st.View(func(tx *bolt.Tx) (err error) { got, err = Of(tx).Root(spec); return }))
	return got
}

func cacheCandidate(canon []byte, front []snapshot.Found) walker.Candidate {
	m := snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.Dir, Mode: 0o755}}}
	d, _ := m.Digest()
	return walker.Candidate{Name: []byte("p"), Kind: walker.KindFile, Manifest: m, Digest: d, Canonical: canon, Front: front}
}

// A plugin's hooks and a skill's frontmatter are told from the canonical
// form. One the cache dropped was never told while the daemon ran.
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
		{"largest kept", bytes.Repeat([]byte("x"), MaxCanonical), nil},
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
	if got := cachedOne(t, cacheCandidate(bytes.Repeat([]byte("x"), MaxCanonical+1), nil)); got != nil {
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
			if _, err := decodeCached([]byte("p"), v, walker.RootSpec{}); !errors.Is(err, storefile.ErrCorrupt) {
				t.Errorf("decoded %q: %v", v, err)
			}
		})
	}
}

// The daemon's walk keeps each entry's identity; the session start stamps
// the copies it serves from them. They come back exactly, a zero one (an
// entry not stated) too, and only as many as the entries.
func TestTheCacheKeepsEachEntrysIdentity(t *testing.T) {
	c := cacheCandidate(nil, nil)
	c.Manifest.Entries = append(c.Manifest.Entries, snapshot.Entry{Path: []byte("f"), Kind: snapshot.File, Mode: 0o644}, snapshot.Entry{Path: []byte("l"), Kind: snapshot.Symlink, Target: []byte("f")})
	c.Digest, _ = c.Manifest.Digest()
	c.Idents = []walker.Ident{
		{Dev: 1 << 40, Ino: 7, Mode: 0o40755, Size: 4096, Mtime: [2]int64{-5, 999_999_999}, Ctime: [2]int64{1_700_000_000, 1}},
		{Dev: 2, Ino: 1 << 62, Mode: 0o100644, Size: 3, Mtime: [2]int64{0, 0}, Ctime: [2]int64{1, 2}},
		{}, // a link: not stated
	}
	got := cachedOne(t, c)
	if got == nil || len(got.Candidates) != 1 || !slices.Equal(got.Candidates[0].Idents, c.Idents) {
		t.Fatalf("identities came back as %+v, want %+v", got, c.Idents)
	}
	c.Idents = nil
	if got := cachedOne(t, c); got == nil || got.Candidates[0].Idents != nil {
		t.Fatalf("a candidate cached without identities came back with %+v", got)
	}
	c.Idents = make([]walker.Ident, 2)
	if _, err := encodeCached(&c); !errors.Is(err, storefile.ErrCorrupt) {
		t.Fatalf("2 identities of 3 entries encoded: %v", err)
	}

	one := cacheCandidate(nil, nil)
	one.Idents = []walker.Ident{{Dev: 1, Ino: 2, Mode: 0o40755, Size: 3, Mtime: [2]int64{4, 5}, Ctime: [2]int64{6, 7}}}
	good, err := encodeCached(&one)
	must(t, err)
	id := []byte{1, 1, 2, 0xed, 0x83, 0x01, 6, 8, 5, 12, 7} // count, then the identity
	if !bytes.Contains(good, id) {
		t.Fatalf("%x holds no identity %x", good, id)
	}
	for name, v := range map[string][]byte{
		"more identities than entries": bytes.Replace(good, id, append([]byte{2}, id[1:]...), 1),
		"identity count past the end":  bytes.Replace(good, id, append([]byte{0x7f}, id[1:]...), 1),
		"nanoseconds past a second":    bytes.Replace(good, id, append(bytes.Clone(id[:len(id)-1]), 0x80, 0x94, 0xeb, 0xdc, 0x03), 1),
		"mode past 32 bits":            bytes.Replace(good, id, append(append([]byte{1, 1, 2}, 0x80, 0x80, 0x80, 0x80, 0x10), id[6:]...), 1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeCached([]byte("p"), v, walker.RootSpec{}); !errors.Is(err, storefile.ErrCorrupt) {
				t.Errorf("decoded %x: %v", v, err)
			}
		})
	}
}

func FuzzDecodeCached(f *testing.F) {
	good, _ := encodeCached(&walker.Candidate{Manifest: cacheCandidate(nil, nil).Manifest, Canonical: []byte("{}"),
		Front: []snapshot.Found{{Reason: anomaly.Alias, Path: []byte("a")}}})
	f.Add(good)
	withIdent := cacheCandidate(nil, nil)
	withIdent.Idents = []walker.Ident{{Dev: 1, Ino: 2, Mode: 0o40755, Size: 3, Mtime: [2]int64{-4, 5}, Ctime: [2]int64{6, 7}}}
	good, _ = encodeCached(&withIdent)
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

// openNew is a new store of its own.
func openNew(t *testing.T) *storefile.DB {
	t.Helper()
	db, err := storefile.Open(storefile.Options{Dir: filepath.Join(t.TempDir(), "state"), Create: true})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
