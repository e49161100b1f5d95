package gate

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
)

// Issue #34: the gate's cost is its candidate's. A front file that cannot
// spell the typed name is not parsed, so it cannot make the answer slow or
// unknown. A skill named by a list, not a string, used to count as one
// that may bear any name. Its bytes hold no "pdf": no YAML parser reads
// that name from them. The controls: the same shape holding "pdf", and
// "pdf" spelled with an escape, are still judged.
func TestAFrontFileThatCannotSpellTheNameIsNotParsed(t *testing.T) {
	for _, tc := range []struct {
		name, front string
		judged      bool
	}{
		{"named by a list, without the name", "name: [other]\n", false},
		{"long, without the name", "x:\n" + repeat("- a\n", 16000), false},
		{"named by a list, with the name", "name: [pdf]\n", true},
		{"the name escaped", `name: "\x70df"` + "\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.skill("user", "pdf")
			tr.record(tr.deliver()["global/pdf"], verdict.Safe)
			tr.write(filepath.Join(tr.cfg, "skills", "other", "SKILL.md"), "---\n"+tc.front+"---\nbody\n")
			tr.policy(Balanced)
			res := tr.check(resolve.Skill, "pdf")
			judged := len(res.Findings) > 1
			if judged != tc.judged || !tc.judged && res.Answer != None {
				t.Errorf("%s %q, %d findings; want the other skill judged: %v", res.Answer, res.Reason, len(res.Findings), tc.judged)
			}
		})
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// BenchmarkPreToolUseVettedAmongListPadding is the common call, a vetted
// 20-file skill, beside 200 skills of 64 KiB list-shaped frontmatter. Each
// pad is read, not parsed: none can spell the name. Before issue #34 it
// spent the 300 ms name budget, then walked the pads as unknown names.
func BenchmarkPreToolUseVettedAmongListPadding(b *testing.B) {
	tr := newTree(b)
	tr.deliver()
	p := tr.skill("user", "pdf")
	for i := range 19 {
		tr.write(filepath.Join(p, "ref", fmt.Sprintf("f%02d.md", i)), "reference text\n")
	}
	fm := "x:\n" + repeat("- a\n", 16000)
	for i := range 200 {
		tr.write(filepath.Join(tr.cfg, "skills", fmt.Sprintf("pad%03d", i), "SKILL.md"), "---\n"+fm+"---\nbody\n")
	}
	tr.record(tr.deliver()["global/pdf"], verdict.Safe)
	u := Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}
	for b.Loop() {
		res, err := Check(b.Context(), u, tr.env)
		if err != nil || res.Answer != None || len(res.Findings) != 1 {
			b.Fatalf("%s %q %d %v", res.Answer, res.Reason, len(res.Findings), err)
		}
	}
}
