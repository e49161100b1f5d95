package jsonread

import (
	"errors"
	"strings"
	"testing"
)

func TestAScannerKeepsOnlyWhatItIsAskedAndNotesDuplicateKeys(t *testing.T) {
	s := NewScanner([]byte(`{"skip":[1,{"x":"}"}],"keep":{"a":1,"a":2},"none":{ },"none":3}`))
	kept := map[string]any{}
	empty := 0
	err := s.Top(func(k string) error {
		switch k {
		case "keep":
			return s.Keep(kept, k, 1)
		case "none":
			if s.EmptyObject() {
				empty++
				return nil
			}
		}
		return s.Skip()
	})
	if err != nil || len(kept) != 1 || empty != 1 || !s.Dup {
		t.Fatalf("err %v, kept %v, empty objects %d, dup %v", err, kept, empty, s.Dup)
	}
}

func TestAReaderRefusesAValueNestedPastMaxDepth(t *testing.T) {
	doc := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if _, err := NewReader([]byte(doc)).Value(0); !errors.Is(err, ErrDepth) {
		t.Fatalf("got %v, want ErrDepth", err)
	}
	doc = strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := NewReader([]byte(doc)).Value(0); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
}
