package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

func TestRelockKeepsVerdictsOfUnchangedCandidatesAndDropsTheRest(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	target := filepath.Join(dir, DefaultName)
	first, _ := lockRepo(t, dir, walker.DefaultConfig())
	setVerdict(t, first, "pdf", Verdict(verdict.Safe))
	setVerdict(t, first, "web", Verdict(verdict.Block))
	if dropped, err := Relock(target, first); err != nil || len(dropped) != 0 {
		t.Fatalf("first Relock = %v, %v; want nothing dropped (no lock was there)", dropped, err)
	}

	testtree.Make(t, dir, ".claude/skills/pdf/SKILL.md=changed after review")
	next, _ := lockRepo(t, dir, walker.DefaultConfig())
	dropped, err := Relock(target, next)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range dropped {
		got = append(got, d.Label()+" "+string(d.Verdict))
	}
	if want := []string{".claude/skills/pdf SAFE-TO-PROPOSE"}; !slices.Equal(got, want) {
		t.Errorf("dropped %q, want %q", got, want)
	}
	written, err := ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range written.Candidates {
		want := None
		if string(c.Name) == "web" {
			want = Verdict(verdict.Block)
		}
		if c.Verdict != want {
			t.Errorf("written %s: verdict %q, want %q", NameLabel(c.Root, c.Name), c.Verdict, want)
		}
	}
}

func TestRelockNeverReplacesALockItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    error
	}{
		{name: "malformed", content: "{not a lock", want: ErrMalformed},
		{name: "unknown version", content: `{"version": 99}`, want: ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, repoTree...)
			target := filepath.Join(dir, DefaultName)
			if err := os.WriteFile(target, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			l, _ := lockRepo(t, dir, walker.DefaultConfig())
			_, err := Relock(target, l)
			if !errors.Is(err, ErrPrevious) || !errors.Is(err, tc.want) {
				t.Fatalf("Relock error %v, want ErrPrevious wrapping %v", err, tc.want)
			}
			if got, _ := os.ReadFile(target); string(got) != tc.content {
				t.Errorf("the unreadable lock was replaced by %q", got)
			}
		})
	}
}

func TestRelockRefusesATargetThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	testtree.Make(t, dir, "real=keep", "link -> real", "sub/", "fifo|")
	l, _ := lockRepo(t, dir, walker.DefaultConfig())
	for _, name := range []string{"link", "sub", "fifo"} {
		t.Run(name, func(t *testing.T) {
			_, err := Relock(filepath.Join(dir, name), l)
			if !errors.Is(err, ErrNotRegular) || errors.Is(err, ErrPrevious) {
				t.Fatalf("Relock error %v, want ErrNotRegular only", err)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real")); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
}
