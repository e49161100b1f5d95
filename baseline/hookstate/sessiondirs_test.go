package hookstate

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// A session's folders are kept once each, bounded, and only as absolute UTF-8
// paths. Past the bound the session is marked as having folders skillwire
// cannot observe. A folder is never silently dropped.
func TestTheFoldersASessionAddedAreKeptBoundedAndValidated(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		sd := SessionDirsOf(tx)
		for i := range MaxSessionDirs + 3 {
			if _, err := sd.Add("s1", fmt.Sprintf("/d%d", i%(MaxSessionDirs+2)), now); err != nil {
				return err
			}
		}
		f, err := sd.Of("s1")
		if err != nil {
			return err
		}
		if len(f.Dirs) != MaxSessionDirs || f.Unknown != UnknownTooMany || !slices.Contains(f.Dirs, "/d0") {
			t.Errorf("%d dirs, unknown %q", len(f.Dirs), f.Unknown)
		}
		for _, bad := range []string{"", "rel", "/a\x00b", "/\xff", "/" + strings.Repeat("a", maxDirLen)} {
			if _, err := sd.Add("s2", bad, now); !errors.Is(err, ErrSessionDir) {
				t.Errorf("%q: %v", bad, err)
			}
		}
		for _, bad := range []string{"", "x\n", strings.Repeat("s", MaxSessionLen+1)} {
			if _, err := sd.Add(bad, "/d", now); !errors.Is(err, ErrToolUseID) {
				t.Errorf("session %q: %v", bad, err)
			}
			if f, err := sd.Of(bad); err != nil || len(f.Dirs) > 0 {
				t.Errorf("session %q read %v %v", bad, f, err)
			}
		}
		if _, err := sd.MarkUnknown("s2", "why\x1b[2J", now); !errors.Is(err, ErrSessionDir) {
			t.Errorf("an unprintable reason: %v", err)
		}
		f, err = sd.MarkUnknown("s2", "the folder is not a plain path", now)
		if err != nil || f.Unknown == "" || len(f.Dirs) != 0 {
			t.Errorf("%+v %v", f, err)
		}
		if f, _ := sd.Of("s3"); len(f.Dirs) != 0 || f.Unknown != "" {
			t.Errorf("another session: %+v", f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Old sessions go, and no more than maxSessions are kept. The oldest go
// first, the one being kept never. One let go reads as unknown.
func TestSessionFoldersArePruned(t *testing.T) {
	st := openNew(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		sd := SessionDirsOf(tx)
		for i := range maxSessions + 10 {
			if _, err := sd.Add(fmt.Sprintf("s%d", i), "/d", t0.Add(time.Duration(i)*time.Second)); err != nil {
				return err
			}
		}
		if f, _ := sd.Of("s0"); len(f.Dirs) != 0 || f.Unknown != UnknownLetGo {
			t.Errorf("the oldest session, let go past the bound, reads %+v", f)
		}
		if f, _ := sd.Of(fmt.Sprintf("s%d", maxSessions+9)); len(f.Dirs) != 1 {
			t.Error("the newest session was dropped")
		}
		if _, err := sd.Add("late", "/d", t0.Add(sessionTTL+time.Hour)); err != nil {
			return err
		}
		n := 0
		c := tx.Bucket(bucketSessionDirs).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		if n != 1 {
			t.Errorf("%d sessions kept past their age", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func openNew(t *testing.T) *storefile.DB {
	t.Helper()
	db, err := storefile.Open(storefile.Options{Dir: filepath.Join(t.TempDir(), "state"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
