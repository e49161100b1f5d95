package addeddir

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/hookio"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

// A notice lists at most maxNoticeNames names, each past the display gate,
// and counts the rest: a folder of hostile names prints none of their bytes.
func TestANoticeNamesOnlyGatedNamesAndCountsTheRest(t *testing.T) {
	dir := t.TempDir()
	var specs []string
	for i := range 10 {
		specs = append(specs, fmt.Sprintf(".claude/skills/s%02d/SKILL.md=x", i))
	}
	specs = append(specs, ".claude/skills/\x1b[2J\n/SKILL.md=x", ".claude/agents/helper.md=x")
	testtree.Make(t, dir, specs...)
	got := Observe(context.Background(), claude.AddedRoots([]string{dir}, false, ""), walker.DefaultConfig()).Notice()
	if strings.ContainsAny(got, "\x1b\n") {
		t.Fatalf("notice %q holds a control byte", got)
	}
	for _, want := range []string{"it holds 11 skills, 1 agent", `"s00"`, `"s07"`, "and 4 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("notice %q, want %q in it", got, want)
		}
	}
	if strings.Contains(got, `"s08"`) {
		t.Errorf("notice %q lists more than %d names", got, maxNoticeNames)
	}
}

// A hook input that names no session has no session to keep its folder
// for: that is said, before any store is opened.
func TestAFolderOfNoSessionIsToldNotKept(t *testing.T) {
	if why := Keep(hookio.DirectoryAdd{Directory: "/tmp/x"}, baseline.Options{}, time.Time{}); why != unknownNoSession {
		t.Errorf("no session: %q", why)
	}
}

// Where the client reads an added folder's instruction files, the notice
// says it reads them from its next turn on, names each by its path under
// the folder (skillwire's own components bare, the author's name quoted)
// and counts the ones whose names fail the display gate; it closes with
// the mark that quoted text is the files' own. Switched off, it says
// nothing of them.
func TestANoticeTellsTheInstructionFilesTheClientReadsByGatedName(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "CLAUDE.md=a", "CLAUDE.local.md=b", "AGENTS.md=c", ".claude/CLAUDE.md=d",
		".claude/rules/r.md=e", ".claude/rules/sub/s.md=f", ".claude/rules/\x1b[2J\n$(id).md=g",
		".claude/rules/"+strings.Repeat("x", 200)+".md=h")
	got := Observe(context.Background(), claude.AddedRoots([]string{dir}, true, ""), walker.DefaultConfig()).Notice()
	for _, want := range []string{"reads its 7 instruction files from the next turn on", `"CLAUDE.local.md"`, `"CLAUDE.md"`,
		`.claude/"CLAUDE.md"`, `.claude/rules/"r.md"`, `.claude/rules/"sub"`, "and 2 more", anomaly.QuotedMark} {
		if !strings.Contains(got, want) {
			t.Errorf("notice %q, want %q in it", got, want)
		}
	}
	if strings.ContainsAny(got, "\x1b\n$") || strings.Contains(got, "AGENTS") || strings.Contains(got, "xxx") {
		t.Errorf("notice %q shows a name it must not", got)
	}
	if off := Observe(context.Background(), claude.AddedRoots([]string{dir}, false, ""), walker.DefaultConfig()).Notice(); strings.Contains(off, "instruction") {
		t.Errorf("switched off, the notice %q tells instruction files", off)
	}
}
