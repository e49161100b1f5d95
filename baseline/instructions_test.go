package baseline

import (
	"errors"
	"testing"
	"time"
)

func TestInstructionChangesAreListedOldestFirstAndDroppedOnlyAsListed(t *testing.T) {
	st, _ := openNew(t)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	a := InstructionChange{ID: "swaaaaaaaaaaaaaa", Name: []byte("CLAUDE.md"), Memory: "Project", At: t0.Add(time.Minute)}
	b := InstructionChange{ID: "swbbbbbbbbbbbbbb", Name: []byte("rules.md"), Memory: "User", At: t0}
	if err := st.Update(func(tx *Tx) error {
		if err := tx.Instructions().Put(a); err != nil {
			return err
		}
		return tx.Instructions().Put(b)
	}); err != nil {
		t.Fatal(err)
	}
	var listed []InstructionChange
	if err := st.View(func(tx *Tx) (err error) { listed, err = tx.Instructions().List(); return }); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 2 || listed[0].ID != b.ID || listed[1].ID != a.ID {
		t.Fatalf("listed %+v, want b then a", listed)
	}
	a2 := a
	a2.At = t0.Add(time.Hour) // a changed again after the listing
	var left []InstructionChange
	if err := st.Update(func(tx *Tx) error {
		if err := tx.Instructions().Put(a2); err != nil {
			return err
		}
		if err := tx.Instructions().Drop(listed); err != nil {
			return err
		}
		var err error
		left, err = tx.Instructions().List()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].ID != a.ID || !left[0].At.Equal(a2.At) {
		t.Fatalf("left %+v, want only a's later change", left)
	}
}

func TestAnInstructionChangeNeedsAnID(t *testing.T) {
	st, _ := openNew(t)
	err := st.Update(func(tx *Tx) error { return tx.Instructions().Put(InstructionChange{ID: "../x"}) })
	if !errors.Is(err, ErrNote) {
		t.Fatalf("err %v, want ErrNote", err)
	}
}
