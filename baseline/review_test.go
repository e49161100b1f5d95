package baseline

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

func recordOf(t *testing.T, st *Store, id string) *Record {
	t.Helper()
	var r *Record
	must(t, st.View(func(tx *Tx) (err error) { r, err = tx.Record(id); return }))
	return r
}

func TestSafeReviewSurvivesAChangeAsPending(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Safe)
	sa := sts["a"]
	reviewed := *sa.Digest()

	w.write("a/f", "2")
	if s := compare(t, st, w.observe(cfg))["a"]; s.Status() != StatusPending {
		t.Fatalf("before delivery: status %q, want pending", s.Status())
	}
	sts = advance(t, st, w.observe(cfg))
	after := compare(t, st, w.observe(cfg))["a"]
	if after.Status() != StatusPending {
		t.Fatalf("after delivery: status %q, want pending", after.Status())
	}
	r := recordOf(t, st, sts["a"].ID)
	if r.Review == nil || *r.Review.Digest != reviewed || r.Verdict != nil {
		t.Fatalf("review not kept across the change: %+v", r)
	}

	// Content back to the reviewed bytes: vetted again, nothing pending.
	w.write("a/f", "1")
	advance(t, st, w.observe(cfg))
	if s := compare(t, st, w.observe(cfg))["a"]; s.Status() != StatusVetted {
		t.Fatalf("back to the reviewed content: status %q, want vetted", s.Status())
	}
}

func TestHaltIsDerivedFromPendingAndClearedOnlyByAVerdict(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Safe)
	w.write("a/f", "2")
	sts = advance(t, st, w.observe(cfg))
	id := sts["a"].ID
	must(t, st.Update(func(tx *Tx) error {
		r, _ := tx.Record(id)
		r.Halt = &Halt{Reason: "cumulative drift 64 % > 60 %", At: time.Now()}
		r.Told, r.ToldSince = 2, time.Now()
		return tx.put(r)
	}))
	if s := compare(t, st, w.observe(cfg))["a"]; s.Status() != StatusHalted {
		t.Fatalf("status %q, want halted", s.Status())
	}
	record(t, st, "a", compare(t, st, w.observe(cfg)), verdict.Safe)
	r := recordOf(t, st, id)
	if r.Halt != nil || r.Told != 0 || !r.ToldSince.IsZero() || r.Status != StatusVetted {
		t.Fatalf("a recorded verdict did not clear the halt: %+v", r)
	}
}

func TestAdverseVerdictOutranksPending(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Safe)
	w.write("a/f", "2")
	sts = advance(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Block)
	if s := compare(t, st, w.observe(cfg))["a"]; s.Status() == StatusPending || s.Verdict == nil || s.Verdict.Verdict != verdict.Block {
		t.Fatalf("status %q verdict %+v: the BLOCK must be what is in force", s.Status(), s.Verdict)
	}
}

func TestStoredRecordRefusesAReviewThatIsNotSafeOrAHaltWithoutReview(t *testing.T) {
	d := sampleRecord().Digest
	cases := map[string]func(r *Record){
		"adverse review":     func(r *Record) { r.Review = &Verdict{Verdict: verdict.Block, Digest: d} },
		"review of no bytes": func(r *Record) { r.Review = &Verdict{Verdict: verdict.Safe} },
		"halt without review": func(r *Record) {
			r.Halt = &Halt{Reason: "x"}
		},
		"halt without reason": func(r *Record) {
			r.Review = &Verdict{Verdict: verdict.Safe, Digest: d}
			r.Halt = &Halt{}
		},
		"derived status stored":  func(r *Record) { r.Status = StatusPending },
		"negative told":          func(r *Record) { r.Told = -1 },
		"renamed without review": func(r *Record) { r.Review, r.Renamed = nil, &Renamed{From: "swaaaaaaaaaaaaaa", Name: []byte("a")} },
	}
	for name, mut := range cases {
		t.Run(name, func(t *testing.T) {
			r := sampleRecord()
			mut(r)
			if _, err := encodeRecord(r); !errors.Is(err, errRecord) {
				t.Fatalf("got %v, want errRecord", err)
			}
		})
	}
}

func TestFirstRunIsRecordedEvenWithNoCandidate(t *testing.T) {
	st, _ := openNew(t)
	var done bool
	must(t, st.View(func(tx *Tx) error { done = tx.FirstRunDone(); return nil }))
	if done {
		t.Fatal("a new store reports its first run done")
	}
	first := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, st.Update(func(tx *Tx) error { return tx.MarkFirstRun(first) }))
	must(t, st.Update(func(tx *Tx) error { return tx.MarkFirstRun(first.Add(time.Hour)) }))
	must(t, st.View(func(tx *Tx) error {
		done = tx.FirstRunDone()
		if got := string(tx.tx.Bucket(bucketMeta).Get(keyFirstRun)); got != "2026-01-02T03:04:05Z" {
			t.Errorf("first run kept as %q, want the first mark", got)
		}
		return nil
	}))
	if !done {
		t.Fatal("an empty first run was not recorded")
	}
}

// makeLegacy removes what a store written before the first-run mark
// (and the creation marker) never had.
func makeLegacy(t *testing.T, st *Store) {
	t.Helper()
	must(t, st.Update(func(tx *Tx) error {
		m := tx.tx.Bucket(bucketMeta)
		return errors.Join(m.Delete(keyFirstRun), m.Delete(keyCreated))
	}))
}

// A record written before any delivered session is a first run only in a
// store that predates the mark. An example is a verdict recorded first.
func TestARecordIsAFirstRunOnlyInALegacyStore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
	}{{"new store", false}, {"legacy store", true}} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := openNew(t)
			if tc.legacy {
				makeLegacy(t, st)
			}
			must(t, st.Update(func(tx *Tx) error { return tx.put(sampleRecord()) }))
			must(t, st.Update(func(tx *Tx) error { return nil })) // a later write: the legacy rule's mark
			var done bool
			must(t, st.View(func(tx *Tx) error { done = tx.FirstRunDone(); return nil }))
			if done != tc.legacy {
				t.Fatalf("FirstRunDone = %v, want %v", done, tc.legacy)
			}
		})
	}
}

// A legacy store (records, no mark) keeps its first run when every record is
// forgotten. The first write transaction makes the legacy rule's answer
// permanent. So what appears next is new, never accepted on first use.
func TestLegacyStoreKeepsItsFirstRunWhenEveryRecordIsForgotten(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("a/f", "1")
	w.write("b/f", "2")
	advance(t, st, w.observe(walker.DefaultConfig()))
	makeLegacy(t, st)
	must(t, st.Update(func(tx *Tx) error {
		recs, err := tx.Records()
		if err != nil || len(recs) != 2 {
			t.Fatalf("records %d, %v", len(recs), err)
		}
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		return tx.Forget(ids)
	}))
	must(t, st.View(func(tx *Tx) error {
		if !tx.FirstRunDone() {
			t.Error("forgetting every record of a legacy store brought first use back")
		}
		return nil
	}))
}

func TestNotesAreJournaledPerCandidateAndBounded(t *testing.T) {
	st, _ := openNew(t)
	a, b := st.ID("/r", []byte("a")), st.ID("/r", []byte("b"))
	now := time.Now().UTC().Truncate(time.Second)
	must(t, st.Update(func(tx *Tx) error {
		for i := range MaxNotes + 5 {
			if err := tx.Notes().Add(Note{ID: a, Kind: NoteHalt, At: now, Text: fmt.Sprintf("n%d", i)}); err != nil {
				return err
			}
		}
		return tx.Notes().Add(Note{ID: b, Kind: NoteAutoAccept, At: now, Text: "evil\x1b[2J\u202etext" + strings.Repeat("x", 1000)})
	}))
	must(t, st.View(func(tx *Tx) error {
		na, err := tx.Notes().Of(a)
		if err != nil {
			return err
		}
		if len(na) != MaxNotes || na[0].Text != "n5" || na[len(na)-1].Text != fmt.Sprintf("n%d", MaxNotes+4) {
			t.Errorf("notes of a: %d, first %q", len(na), na[0].Text)
		}
		nb, _ := tx.Notes().Of(b)
		if len(nb) != 1 || nb[0].Kind != NoteAutoAccept || len(nb[0].Text) > maxNoteText || strings.ContainsAny(nb[0].Text, "\x1b\u202e") {
			t.Errorf("notes of b: %+v", nb)
		}
		return nil
	}))
	t.Run("unknown kind is refused", func(t *testing.T) {
		err := st.Update(func(tx *Tx) error { return tx.Notes().Add(Note{ID: a, Kind: "allow"}) })
		if !errors.Is(err, ErrNote) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestReferenceIsTheReviewedVersionThenTheFirstUse(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(cfg))
	first := sts["a"]
	ref := func() *Reference {
		var r *Reference
		must(t, st.View(func(tx *Tx) (err error) { r, err = tx.Reviews().Reference(first.ID); return }))
		return r
	}
	if r := ref(); r == nil || r.How != RefFirstUse || r.Digest != *first.Digest() {
		t.Fatalf("first use: %+v", r)
	}
	w.write("a/f", "2")
	advance(t, st, w.observe(cfg))
	if r := ref(); r.Digest != *first.Digest() {
		t.Fatal("a delivered change moved the reference")
	}
	sts = compare(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Safe)
	sa := sts["a"]
	if r := ref(); r.How != RefReview || r.Digest != *sa.Digest() {
		t.Fatalf("after review: %+v", r)
	}
	must(t, st.Update(func(tx *Tx) error { return tx.Forget([]string{first.ID}) }))
	if r := ref(); r != nil {
		t.Fatalf("forgotten, yet a reference: %+v", r)
	}
}

func TestACandidateNewSinceTheFirstRunHasNoReferenceUntilReviewed(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	advance(t, st, w.observe(cfg)) // the first run, with nothing to accept
	w.write("late/f", "1")
	late := advance(t, st, w.observe(cfg))["late"]
	ref := func() *Reference {
		var r *Reference
		must(t, st.View(func(tx *Tx) (err error) { r, err = tx.Reviews().Reference(late.ID); return }))
		return r
	}
	if r := ref(); r != nil {
		t.Fatalf("delivered but never reviewed, yet compared with %s (%s)", r.Digest, r.How)
	}
	w.write("late/f", "2")
	advance(t, st, w.observe(cfg))
	if r := ref(); r != nil {
		t.Fatalf("a delivered change became a reference: %s (%s)", r.Digest, r.How)
	}
	sts := compare(t, st, w.observe(cfg))
	record(t, st, "late", sts, verdict.Safe)
	if r, sl := ref(), sts["late"]; r == nil || r.How != RefReview || r.Digest != *sl.Digest() {
		t.Fatalf("after review: %+v", r)
	}
}

func FuzzDecodeReference(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeReference(b)
		if err == nil && (r.Manifest == nil || r.How == "") {
			t.Fatalf("decoded %+v", r)
		}
	})
}

func TestACarriedReviewIsPendingWhateverTheContent(t *testing.T) {
	d := snapshot.Hash{1}
	r := &Record{Status: StatusSeen, Review: &Verdict{Verdict: verdict.Safe, Digest: &d}}
	if got := StatusOf(r, &d, nil); got != StatusSeen {
		t.Fatalf("review on its own digest: %q", got)
	}
	r.Renamed = &Renamed{From: "swaaaaaaaaaaaaaa", Name: []byte("old")}
	if got := StatusOf(r, &d, nil); got != StatusPending {
		t.Fatalf("renamed, same content: %q, want pending", got)
	}
	if got := StatusOf(r, &d, &Verdict{Verdict: verdict.Block, Digest: &d}); got != StatusSeen {
		t.Fatalf("an adverse verdict outranks the pending rename: %q", got)
	}
}

func TestAHaltedCandidateIsHaltedWhateverWasDelivered(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	cfg := walker.DefaultConfig()
	w.write("a/f", "1")
	sts := advance(t, st, w.observe(cfg))
	record(t, st, "a", sts, verdict.Safe)
	w.write("a/f", "2") // observed, never delivered: the record still holds "1"
	sa := compare(t, st, w.observe(cfg))["a"]
	must(t, st.Update(func(tx *Tx) error { return tx.Reviews().Halt(&sa, "cumulative drift", time.Now()) }))
	r := recordOf(t, st, sa.ID)
	if r.Digest == nil || !sameDigest(r.Review.Digest, r.Digest) {
		t.Fatalf("the change was delivered: %+v", r)
	}
	if got := StatusOf(r, r.Digest, r.Verdict); got != StatusHalted {
		t.Fatalf("StatusOf the delivered digest = %q, want halted", got)
	}
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Pending) != 1 || rep.Pending[0].ID != sa.ID || len(rep.Safe) != 0 {
		t.Fatalf("report: %d pending, %d safe; want the halted candidate pending", len(rep.Pending), len(rep.Safe))
	}
	w.write("a/f", "1") // back to the reviewed bytes: only a verdict clears a halt
	if s := compare(t, st, w.observe(cfg))["a"]; s.Status() != StatusHalted {
		t.Fatalf("back to the reviewed content: status %q, want halted", s.Status())
	}
	advance(t, st, w.observe(cfg))
	if r := recordOf(t, st, sa.ID); r.Halt == nil || StatusOf(r, r.Digest, r.Verdict) != StatusHalted {
		t.Fatalf("delivering the reviewed content cleared the halt: %+v", r)
	}
}
