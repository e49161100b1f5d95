package hookstate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
	bolt "go.etcd.io/bbolt"
)

// servedID is the i-th of 32,768 distinct ids.
func servedID(i int) string {
	const b32 = "abcdefghijklmnopqrstuvwxyz234567"
	return "swaaaaaaaaaaa" + string([]byte{b32[i/1024%32], b32[i/32%32], b32[i%32]})
}

// The first copy kept of a folder stays. The client reads a folder once, so a
// later touch must not replace what it read with what is on disk then.
func TestTheFirstCopyKeptOfAFolderStays(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	first, later := snapshot.Hash{1}, snapshot.Hash{2}
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		if s, err := ss.Of("s1"); err != nil || len(s.Folders) != 0 {
			t.Errorf("nothing kept yet: %+v %v", s, err)
		}
		if _, err := ss.Keep("s1", "/p/sub/.claude/skills", []ServedSkill{{ID: servedID(1), Digest: &first, Stamp: first}}, "", now); err != nil {
			t.Fatal(err)
		}
		s, err := ss.Keep("s1", "/p/sub/.claude/skills", []ServedSkill{{ID: servedID(1), Digest: &later, Stamp: later}}, "", now)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := s.Folder("/p/sub/.claude/skills")
		sk, kept := f.Skill(servedID(1))
		if !ok || !kept || *sk.Digest != first || sk.Stamp != first {
			t.Errorf("a later touch replaced the copy read: %+v", s)
		}
		if s, _ := ss.Of("s2"); len(s.Folders) != 0 {
			t.Errorf("another session sees the copy: %+v", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// What is kept is bounded. Past MaxServedSkills the folder is Unknown, never
// silently short of a skill. Past MaxServedFolders a folder is not kept at
// all, now or later, so its uses are judged as not kept.
func TestServedCopiesAreBoundedAndPastTheBoundUnknown(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		many := make([]ServedSkill, MaxServedSkills+1)
		for i := range many {
			many[i] = ServedSkill{ID: servedID(i)}
		}
		s, err := ss.Keep("s1", "/p/a/.claude/skills", many, "", now)
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := s.Folder("/p/a/.claude/skills"); len(f.Skills) != MaxServedSkills || f.Unknown != UnknownTooManySkills {
			t.Errorf("past the skills bound: %d kept, unknown %q", len(f.Skills), f.Unknown)
		}
		// The start's folders fill the record to one short of the bound;
		// one nested folder more fits, the next does not.
		folders := []ServedFolder{s.Folders[0]}
		for i := 2; i < MaxServedFolders; i++ {
			folders = append(folders, ServedFolder{Path: fmt.Sprintf("/p/d%d/.claude/skills", i)})
		}
		if _, err := ss.KeepStart("s1", folders, now); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.Keep("s1", "/p/d1/.claude/skills", nil, "", now); err != nil {
			t.Fatal(err)
		}
		s, err = ss.Keep("s1", "/p/last/.claude/skills", nil, "", now)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Folder("/p/last/.claude/skills"); ok || len(s.Folders) != MaxServedFolders {
			t.Errorf("past the folders bound: %d kept, last kept %v", len(s.Folders), ok)
		}
		if s, err := ss.Of("s1"); err != nil || len(s.Folders) != MaxServedFolders {
			t.Errorf("read back: %d %v", len(s.Folders), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Only what Keep can read back is kept: a session id, a folder path, a
// minted id and a reason of fixed words. A record that holds anything else
// is corrupt, and a Keep over it starts afresh.
func TestServedCopiesAreValidated(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		for _, bad := range []string{"", "x\n", "\xff", strings.Repeat("s", MaxSessionLen+1)} {
			if _, err := ss.Keep(bad, "/p/a/.claude/skills", nil, "", now); !errors.Is(err, ErrToolUseID) {
				t.Errorf("session %q: %v", bad, err)
			}
		}
		for _, bad := range []string{"", "rel/.claude/skills", "/p/\xff", "/p/a\x00b", "/" + strings.Repeat("d", maxDirLen)} {
			if _, err := ss.Keep("s1", bad, nil, "", now); !errors.Is(err, ErrServed) {
				t.Errorf("folder %q: %v", bad, err)
			}
		}
		if _, err := ss.Keep("s1", "/p/a/.claude/skills", []ServedSkill{{ID: "../x"}}, "", now); !errors.Is(err, ErrServed) {
			t.Errorf("a skill named by other than a minted id: %v", err)
		}
		if _, err := ss.Keep("s1", "/p/a/.claude/skills", nil, "why\x1b[2J", now); !errors.Is(err, ErrServed) {
			t.Errorf("a reason with a control byte: %v", err)
		}
		b, err := tx.CreateBucketIfNotExists(bucketSessionServed)
		if err != nil {
			return err
		}
		if err := b.Put([]byte("s1"), []byte(`{"folders":[{"path":"rel"}],"at":"2026-12-01T00:00:00Z"}`)); err != nil {
			return err
		}
		if _, err := ss.Of("s1"); err == nil {
			t.Error("a record with a relative folder read as kept")
		}
		if _, err := ss.Reload("s1", "/p/a/.claude/skills", ServedSkill{ID: servedID(1)}, now); err == nil {
			t.Error("a Reload over a corrupt record replaced it")
		}
		s, err := ss.Keep("s1", "/p/a/.claude/skills", nil, "", now)
		if err != nil || len(s.Folders) != 1 || !s.Start {
			// Start: the start's folders are then absent, so asked.
			t.Errorf("a Keep over a corrupt record: %+v %v", s, err)
		}
		if _, err := ss.KeepStart("", nil, now); !errors.Is(err, ErrToolUseID) {
			t.Errorf("a start without a session: %v", err)
		}
		if _, err := ss.KeepStart("s1", []ServedFolder{{Path: "rel"}}, now); !errors.Is(err, ErrServed) {
			t.Errorf("a start's relative folder: %v", err)
		}
		if _, err := ss.KeepStart("s1", []ServedFolder{{Path: "/p/skills", Skills: []ServedSkill{{ID: "x"}}}}, now); !errors.Is(err, ErrServed) {
			t.Errorf("a start's skill named by other than a minted id: %v", err)
		}
		if _, err := ss.Reload("", "/p/skills", ServedSkill{ID: servedID(1)}, now); !errors.Is(err, ErrToolUseID) {
			t.Errorf("a reload without a session: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A session start is a new client process: it has read no nested folder
// yet. So its keep replaces all kept before for the session. A reload
// replaces one skill of a folder the start kept, or adds it; a folder the
// start did not keep gains nothing, nor does a session whose start kept
// nothing.
// A second SessionStart of a session (a compaction, a /clear, a resume)
// keeps what the first kept: the client may still serve it. A reload
// keeps one skill again. TestASecondStartOfASessionKeepsWhatTheFirstKept
// holds the rest.
func TestAStartKeepsWhatWasKeptAndAReloadOneSkill(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	one, two := snapshot.Hash{1}, snapshot.Hash{2}
	const top, nested = "/h/.claude/skills", "/p/sub/.claude/skills"
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		if s, err := ss.Reload("s1", top, ServedSkill{ID: servedID(1), Digest: &two}, now); err != nil || len(s.Folders) != 0 {
			t.Errorf("a reload with no start kept: %+v %v", s, err)
		}
		if _, err := ss.Keep("s1", nested, nil, "", now); err != nil {
			t.Fatal(err)
		}
		s, err := ss.KeepStart("s1", []ServedFolder{{Path: top, Skills: []ServedSkill{{ID: servedID(1), Digest: &one}}}}, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Folder(nested); !ok || !s.Start {
			t.Errorf("the start dropped the folders kept before: %+v", s)
		}
		if s, err = ss.Reload("s1", top, ServedSkill{ID: servedID(1), Digest: &two}, now); err != nil {
			t.Fatal(err)
		}
		if s, err = ss.Reload("s1", top, ServedSkill{ID: servedID(2), Digest: &one}, now); err != nil {
			t.Fatal(err)
		}
		if s, err = ss.Reload("s1", "/elsewhere/skills", ServedSkill{ID: servedID(3)}, now); err != nil {
			t.Fatal(err)
		}
		got, err := ss.Of("s1")
		if err != nil {
			t.Fatal(err)
		}
		f, _ := got.Folder(top)
		a, okA := f.Skill(servedID(1))
		b, okB := f.Skill(servedID(2))
		_, other := got.Folder("/elsewhere/skills")
		if !okA || *a.Digest != two || !okB || *b.Digest != one || len(f.Skills) != 2 || other {
			t.Errorf("after the reloads: %+v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A home like a real one is kept whole at its start: 300 skills in one
// folder and 80 plugins of 4 skills each (Anthropic's and wshobson's
// marketplaces hold dozens). None is Unknown, so no use of them is asked
// for want of a copy. Past MaxServedTotal the rest of the folders are
// Unknown, never silently short of a skill.
func TestAStartKeepsARealHomeWholeAndPastTheTotalBoundUnknown(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	skills := func(from, n int) []ServedSkill {
		out := make([]ServedSkill, n)
		for i := range out {
			out[i] = ServedSkill{ID: servedID(from + i)}
		}
		return out
	}
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		home := []ServedFolder{{Path: "/h/.claude/skills", Skills: skills(0, 300)}}
		for i := range 80 {
			home = append(home, ServedFolder{Path: fmt.Sprintf("/h/.claude/plugins/cache/m/p%d/1.0.0", i), Skills: skills(300+4*i, 4)})
		}
		s, err := ss.KeepStart("s1", home, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range s.Folders {
			if f.Unknown != "" {
				t.Errorf("%s: %q", f.Path, f.Unknown)
			}
		}
		if len(s.Folders) != 81 || len(s.Folders[0].Skills) != 300 {
			t.Errorf("kept %d folders, %d skills in the first", len(s.Folders), len(s.Folders[0].Skills))
		}
		var big []ServedFolder
		for i := range MaxServedTotal/MaxServedSkills + 1 {
			big = append(big, ServedFolder{Path: fmt.Sprintf("/h/big%d", i), Skills: skills(i*MaxServedSkills, MaxServedSkills)})
		}
		s, err = ss.KeepStart("s2", big, now)
		if err != nil {
			t.Fatal(err)
		}
		last := s.Folders[len(s.Folders)-1]
		if last.Unknown != UnknownTooManySkills || len(last.Skills) != 0 || s.room() != 0 {
			t.Errorf("past the total bound: the last folder keeps %d, unknown %q, room %d", len(last.Skills), last.Unknown, s.room())
		}
		if back, err := ss.Of("s2"); err != nil || len(back.Folders) != len(big) {
			t.Errorf("read back: %d folders, %v", len(back.Folders), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A compaction fires SessionStart in the same process, which still serves
// what it read. The second start must not replace the first copy with the
// disk's: the put-back bytes would pass while the first copy runs. A skill
// new at the second start is added. A record that cannot be read is left
// as it is (its uses are asked). MarkStart marks a session before its keep,
// so a keep that fails leaves uses asked.
func TestASecondStartOfASessionKeepsWhatTheFirstKept(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	bad, good := snapshot.Hash{1}, snapshot.Hash{2}
	const top = "/h/.claude/skills"
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		if _, err := ss.MarkStart("s1", now); err != nil {
			t.Fatal(err)
		}
		if s, err := ss.Of("s1"); err != nil || !s.Start || len(s.Folders) != 0 {
			t.Fatalf("marked: %+v %v", s, err)
		}
		if _, err := ss.KeepStart("s1", []ServedFolder{{Path: top, Skills: []ServedSkill{{ID: servedID(1), Digest: &bad}}}}, now); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.MarkStart("s1", now); err != nil {
			t.Fatal(err)
		}
		s, err := ss.KeepStart("s1", []ServedFolder{{Path: top, Skills: []ServedSkill{{ID: servedID(1), Digest: &good}, {ID: servedID(2), Digest: &good}}}}, now)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := s.Folder(top)
		first, ok1 := f.Skill(servedID(1))
		added, ok2 := f.Skill(servedID(2))
		if !ok1 || *first.Digest != bad || !ok2 || *added.Digest != good {
			t.Errorf("after the second start: %+v", s)
		}
		b := tx.Bucket(bucketSessionServed)
		if err := b.Put([]byte("s2"), []byte(`{"at":"2026-12-01T00:00:00Z","folders":7}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.KeepStart("s2", []ServedFolder{{Path: top}}, now); !errors.Is(err, storefile.ErrCorrupt) {
			t.Errorf("a start over a record not read: %v", err)
		}
		if _, err := ss.MarkStart("s2", now); !errors.Is(err, storefile.ErrCorrupt) {
			t.Errorf("a mark over a record not read: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Pruning reads a record's "at" without reading the rest: first, or after
// other keys (older records put it last). A record without one, or that is
// no object, has none.
func TestARecordsAtIsReadUpToItsKey(t *testing.T) {
	want := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{`{"at":"2026-12-01T00:00:00Z","folders":[{"path":"/x"}]}`, true},
		{`{"folders":[{"path":"/x"}],"at":"2026-12-01T00:00:00Z"}`, true},
		{`{"folders":[]}`, false},
		{`[]`, false},
		{`{"at":7}`, false},
		{``, false},
	} {
		at, ok := recordAt([]byte(tc.v))
		if ok != tc.ok || ok && !at.Equal(want) {
			t.Errorf("recordAt(%s) = %v %v, want ok %v", tc.v, at, ok, tc.ok)
		}
	}
}

// A session whose record was let go (past maxSessions later starts, or
// its age) reads as a start with nothing kept: its uses are asked, never
// judged on the disk alone. A session never kept still reads as none, and
// few of them share the marks of those let go.
func TestAServedRecordLetGoReadsAsAStartKeptNothing(t *testing.T) {
	st := openNew(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		if _, err := ss.KeepStart("long", []ServedFolder{{Path: "/h/.claude/skills", Skills: []ServedSkill{{ID: servedID(1)}}}}, t0); err != nil {
			return err
		}
		for i := range maxSessions + 50 {
			if _, err := ss.MarkStart(fmt.Sprintf("s%d", i), t0.Add(time.Duration(i+1)*time.Second)); err != nil {
				return err
			}
		}
		s, err := ss.Of("long")
		if err != nil || !s.Start || len(s.Folders) != 0 {
			t.Errorf("a record let go reads %+v %v, want a start with nothing kept", s, err)
		}
		if s, _ := ss.Of(fmt.Sprintf("s%d", maxSessions+49)); !s.Start {
			t.Error("the newest session was let go")
		}
		marked := 0
		for i := range 1000 {
			if s, _ := ss.Of(fmt.Sprintf("never-%d", i)); s.Start {
				marked++
			}
		}
		if marked > 10 {
			t.Errorf("%d of 1000 sessions never kept read as let go", marked)
		}
		// A start again after its record went keeps anew, and the uses of
		// what it keeps are judged on it.
		s, err = ss.KeepStart("long", []ServedFolder{{Path: "/h/.claude/skills", Skills: []ServedSkill{{ID: servedID(2)}}}}, t0.Add(time.Hour))
		if _, ok := s.Folders[0].Skill(servedID(2)); err != nil || !ok || !s.Start {
			t.Errorf("a start after the let-go kept %+v %v", s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A filter not of skillwire's size marks every session let go: what was
// let go is not known. Marking more keeps it so.
func TestALetGoFilterNotReadMarksEverySession(t *testing.T) {
	st := openNew(t)
	err := st.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketLetGo)
		if err != nil {
			return err
		}
		if err := b.Put(bucketSessionServed, []byte("short")); err != nil {
			return err
		}
		if s, _ := SessionServedOf(tx).Of("any"); !s.Start {
			t.Error("a filter not read marks nothing")
		}
		if err := markLetGo(tx, bucketSessionServed, [][]byte{[]byte("x")}); err != nil {
			return err
		}
		if !letGo(tx, bucketSessionServed, "other") || letGo(tx, bucketSessionDirs, "other") {
			t.Error("a filter not read was remade empty, or marked another bucket's")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A start read a folder its whole keep does not list only when the keep
// was not whole: a session marked whose keep never came, or a start past
// MaxServedFolders. A folder added after a whole keep was not read then.
// A let-go record is a start that may have read any.
func TestAStartReadEveryFolderAWholeKeepLists(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		ss := SessionServedOf(tx)
		if _, err := ss.MarkStart("s1", now); err != nil {
			t.Fatal(err)
		}
		if s, _ := ss.Of("s1"); !s.StartRead("/x/.claude/skills") {
			t.Errorf("marked, no keep: a folder reads as not read at the start")
		}
		s, err := ss.KeepStart("s1", []ServedFolder{{Path: "/h/.claude/skills"}}, now)
		if err != nil {
			t.Fatal(err)
		}
		if !s.StartRead("/h/.claude/skills") || s.StartRead("/x/.claude/skills") {
			t.Errorf("a whole keep: kept read %v, another read %v", s.StartRead("/h/.claude/skills"), s.StartRead("/x/.claude/skills"))
		}
		var many []ServedFolder
		for i := range MaxServedFolders + 1 {
			many = append(many, ServedFolder{Path: fmt.Sprintf("/p/d%d/.claude/skills", i)})
		}
		s, err = ss.KeepStart("s2", many, now)
		if err != nil || !s.Partial {
			t.Fatalf("past the bound: kept partial %v, %v", s.Partial, err)
		}
		if s, _ := ss.Of("s2"); !s.Partial || !s.StartRead("/x/.claude/skills") {
			t.Errorf("past the bound: partial %v, another read %v", s.Partial, s.StartRead("/x/.claude/skills"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A start of a session marked before (a resume, a /clear, a compaction)
// writes nothing: MarkStart says so, and an Update whose fn answers
// storefile.ErrNothingToWrite commits nothing, so syncs nothing. The mark
// and what the first start kept stay.
func TestAStartMarkedBeforeWritesNothing(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	commit := func() (id int) {
		st.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	mark := func() (wrote bool) {
		err := st.Update(func(tx *bolt.Tx) error {
			var err error
			if wrote, err = SessionServedOf(tx).MarkStart("s1", now); err == nil && !wrote {
				return storefile.ErrNothingToWrite
			}
			return err
		})
		if err != nil {
			t.Fatalf("marking: %v", err)
		}
		return wrote
	}
	if !mark() {
		t.Fatal("the first mark wrote nothing")
	}
	const top = "/h/.claude/skills"
	d := snapshot.Hash{3}
	if err := st.Update(func(tx *bolt.Tx) error {
		_, err := SessionServedOf(tx).KeepStart("s1", []ServedFolder{{Path: top, Skills: []ServedSkill{{ID: servedID(1), Digest: &d}}}}, now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := commit()
	if mark() {
		t.Error("a mark over a marked record wrote")
	}
	if after := commit(); after != before {
		t.Errorf("commit %d after a mark that wrote nothing, %d before", after, before)
	}
	st.View(func(tx *bolt.Tx) error {
		s, err := SessionServedOf(tx).Of("s1")
		if f, _ := s.Folder(top); err != nil || !s.Start || !s.Kept || len(f.Skills) != 1 {
			t.Errorf("after the second mark: %+v %v", s, err)
		}
		return nil
	})
	// A fn that fails for real still fails: only the sentinel is nil.
	boom := errors.New("boom")
	if err := st.Update(func(*bolt.Tx) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("a failing fn: %v", err)
	}
}

// recordAt reads a record that starts with its "at" without a decoder.
// Whatever the bytes, it answers as the decoder does.
func FuzzRecordAtAnswersAsTheDecoder(f *testing.F) {
	for _, s := range []string{
		`{"at":"2026-12-01T00:00:00Z","folders":[{"path":"/x"}]}`,
		`{"at":"2026-12-01T00:00:00.123456789+01:00"}`,
		`{"at":"2026-12-01T00:00:00\u005a"}`,
		`{"at":"2026-12-01T00:00:00Z"`,
		`{"at":"2026-12-01T00:00:00Z" x`,
		`{"at":"2026-13-01T00:00:00Z"}`,
		`{"at":"not a time"}`,
		`{"at":""}`,
		`{"at":"`,
		`{"at":"2026-12-01T00:00:00Z\n"}`,
		`{"at": "2026-12-01T00:00:00Z"}`,
		`{"folders":[],"at":"2026-12-01T00:00:00Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		at, ok := recordAt(v)
		dat, dok := decodedAt(v)
		if ok != dok || ok && !at.Equal(dat) || ok && at.Location().String() != dat.Location().String() {
			t.Errorf("recordAt(%q) = %v %v; the decoder reads %v %v", v, at, ok, dat, dok)
		}
	})
}
