package hookstate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A session's start plugins are kept once each, bounded and validated. Past
// the bound, or with a name not kept (control bytes, not UTF-8, huge), the
// session is Unknown. It is never silently short of a name. A start again
// adds and never drops.
func TestTheInlinePluginsASessionStartedWithAreKeptBoundedAndValidated(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		sp := SessionPluginsOf(tx)
		if p, err := sp.Of("s1"); err != nil || p.Kept {
			t.Errorf("nothing kept yet: %+v %v", p, err)
		}
		p, err := sp.Keep("s1", []string{"plug@inline", "plug@inline"}, false, now)
		if err != nil || !p.Kept || p.Unknown || len(p.Names) != 1 {
			t.Errorf("%+v %v", p, err)
		}
		if p, _ = sp.Keep("s1", []string{"other@inline"}, false, now); len(p.Names) != 2 || p.Names[0] != "plug@inline" {
			t.Errorf("a start again dropped a name: %+v", p)
		}
		if p, _ = sp.Keep("empty", nil, false, now); !p.Kept || p.Missing(nil) {
			t.Errorf("a start with no inline plugin: %+v", p)
		}
		many := make([]string, MaxSessionPlugins+5)
		for i := range many {
			many[i] = fmt.Sprintf("p%d@inline", i)
		}
		if p, _ = sp.Keep("many", many, false, now); len(p.Names) != MaxSessionPlugins || !p.Unknown {
			t.Errorf("past the bound: %d names, unknown %v", len(p.Names), p.Unknown)
		}
		for _, bad := range []string{"", "x\x1b[2J@inline", "p\n@inline", "\xff@inline", "a\x00b", strings.Repeat("n", maxPluginNameLen+1)} {
			p, err := sp.Keep("bad", []string{bad}, false, now)
			if err != nil || !p.Unknown || len(p.Names) != 0 {
				t.Errorf("name %q: %+v %v", bad, p, err)
			}
		}
		if p, _ = sp.Keep("unnamed", []string{"plug@inline"}, true, now); !p.Unknown || !p.Missing([]string{"plug@inline"}) {
			t.Errorf("a start that could not name a plugin: %+v", p)
		}
		if p, _ = sp.Keep("unnamed", nil, false, now); !p.Unknown {
			t.Error("a start again cleared Unknown")
		}
		for _, bad := range []string{"", "x\n", "\xff", strings.Repeat("s", MaxSessionLen+1)} {
			if _, err := sp.Keep(bad, []string{"plug@inline"}, false, now); !errors.Is(err, ErrToolUseID) {
				t.Errorf("session %q: %v", bad, err)
			}
			if p, err := sp.Of(bad); err != nil || p.Kept {
				t.Errorf("session %q read %+v %v", bad, p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A plugin the start observed is missing now when renamed or removed, or when
// the start could not name it. More plugins now miss nothing.
func TestAStartPluginNotObservedNowIsMissing(t *testing.T) {
	p := StartPlugins{Kept: true, Names: []string{"plug@inline", "b@inline"}}
	for _, c := range []struct {
		now  []string
		want bool
	}{
		{[]string{"plug@inline", "b@inline"}, false},
		{[]string{"b@inline", "plug@inline", "new@inline"}, false},
		{[]string{"other@inline", "b@inline"}, true},
		{[]string{"b@inline"}, true},
		{nil, true},
		{[]string{"PLUG@inline", "b@inline"}, true},
	} {
		if got := p.Missing(c.now); got != c.want {
			t.Errorf("now %q: missing %v, want %v", c.now, got, c.want)
		}
	}
}

// A record that cannot be read is a finding. Of says corrupt, and a start
// kept over it is Unknown (what it kept is not known).
func TestACorruptStartPluginsRecordIsUnknown(t *testing.T) {
	st := openNew(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, v := range []string{`{`, `{"kept":true,"extra":1,"at":"2026-12-01T00:00:00Z"}`, `{"kept":false,"at":"2026-12-01T00:00:00Z"}`,
		`{"kept":true,"names":[` + strings.Repeat(`"a",`, MaxSessionPlugins) + `"a"],"at":"2026-12-01T00:00:00Z"}`} {
		err := st.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucketSessionPlugins)
			if err != nil {
				return err
			}
			if err := b.Put([]byte("s"), []byte(v)); err != nil {
				return err
			}
			sp := SessionPluginsOf(tx)
			if _, err := sp.Of("s"); err == nil {
				t.Errorf("%s read", v)
			}
			p, err := sp.Keep("s", []string{"plug@inline"}, false, now)
			if err != nil || !p.Unknown {
				t.Errorf("%s: kept over %+v %v", v, p, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Old sessions go, and no more than maxSessions are kept. The oldest go
// first, the one being kept never. One let go reads as unknown.
func TestSessionPluginsArePruned(t *testing.T) {
	st := openNew(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(func(tx *bolt.Tx) error {
		sp := SessionPluginsOf(tx)
		for i := range maxSessions + 10 {
			if _, err := sp.Keep(fmt.Sprintf("s%d", i), []string{"p@inline"}, false, t0.Add(time.Duration(i)*time.Second)); err != nil {
				return err
			}
		}
		if p, _ := sp.Of("s0"); len(p.Names) != 0 || !p.Kept || !p.Unknown {
			t.Errorf("the oldest session, let go past the bound, reads %+v, not unknown", p)
		}
		if p, _ := sp.Of(fmt.Sprintf("s%d", maxSessions+9)); !p.Kept {
			t.Error("the newest session was dropped")
		}
		if _, err := sp.Keep("late", nil, false, t0.Add(sessionTTL+time.Hour)); err != nil {
			return err
		}
		n := 0
		c := tx.Bucket(bucketSessionPlugins).Cursor()
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
