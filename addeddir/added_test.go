package addeddir

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
	got := Notice(claude.AddedRoots([]string{dir}), walker.DefaultConfig())
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
