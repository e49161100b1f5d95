package hookstate

import (
	"errors"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// An ask is taken once, only by the session and call it was kept for. A call
// id or session that cannot be kept is refused and keeps nothing. So is an
// asked id that is not minted.
func TestAnAskIsTakenOnceAndOnlyByItsCall(t *testing.T) {
	st := openNew(t)
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	a := Ask{Session: "s1", Tool: "skill", Name: "pdf", At: at, Asked: []Asked{{ID: "swaaaaaaaaaaaaaa"}}}
	err := st.Update(func(tx *bolt.Tx) error {
		as := AsksOf(tx)
		for _, bad := range []struct {
			id string
			a  Ask
		}{
			{"", a},
			{"call\n", a},
			{strings.Repeat("c", maxToolUseID+1), a},
			{"call", Ask{Session: "s 1", At: at}},
			{"call", Ask{Session: "", At: at}},
		} {
			if err := as.Keep(bad.id, bad.a); !errors.Is(err, ErrToolUseID) {
				t.Errorf("Keep(%q, session %q) = %v", bad.id, bad.a.Session, err)
			}
		}
		if err := as.Keep("call", Ask{Session: "s1", At: at, Asked: []Asked{{ID: "../x"}}}); !errors.Is(err, ErrAskedID) {
			t.Errorf("an asked id not minted: %v", err)
		}
		if err := as.Keep("call", a); err != nil {
			return err
		}
		if got, err := as.Take("s2", "call"); got != nil || err != nil {
			t.Errorf("another session took %+v, %v", got, err)
		}
		got, err := as.Take("s1", "call")
		if err != nil || got == nil || got.Name != "pdf" || len(got.Asked) != 1 {
			t.Fatalf("Take = %+v, %v", got, err)
		}
		if again, _ := as.Take("s1", "call"); again != nil {
			t.Errorf("taken twice: %+v", again)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
