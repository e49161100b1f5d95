package frontmatter

import (
	"errors"
	"strings"
	"testing"
)

func TestAliasesAreExpandedUpToTheLimitAndRefusedPastIt(t *testing.T) {
	doc := func(n int) []byte {
		return []byte("---\na: &a [" + strings.Repeat("x,", n) + "x]\nname: *a\n---\n")
	}
	if _, _, err := Read(doc(maxAliasNodes-2), 64); err != nil {
		t.Fatalf("an alias of exactly the limit: %v", err)
	}
	if _, _, err := Read(doc(maxAliasNodes), 64); !errors.Is(err, ErrAlias) {
		t.Fatalf("an alias past the limit: %v, want ErrAlias", err)
	}
}

func TestReadGivesEachRefusalItsReason(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      error
	}{
		{"no frontmatter", "# title\n", nil},
		{"nested past the bound", "---\nname: [[[[x]]]]\n---\n", ErrDepth},
		{"a second document", "---\nname: a\n--- #\nb: c\n---\n", ErrMultiDocument},
		{"not a mapping", "---\n- a\n---\n", ErrUnreadable},
		{"unclosed past the bound", "---\n" + strings.Repeat("#\n", Max), ErrOversize},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := Read([]byte(c.doc), 3); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}
