package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
)

// The client serves the inline plugins it read at its start. Take folders
// given with --plugin-dir. A plugin the session's start kept may be gone
// from those observed now: renamed, removed. Then every plugin:name is
// held, the installed, SAFE docs' included. So it is after a start that
// kept nothing, or kept a plugin it could not name. The same plugins now,
// or more, or no folder given, leave the installed plugin's verdict to
// answer.
func TestAPluginRenamedSinceTheSessionStartedHoldsEveryPluginName(t *testing.T) {
	for _, c := range []struct {
		name    string
		given   bool
		session string
		start   []string
		unnamed bool
		now     []string
		want    Answer
	}{
		{"the same plugins", true, "s1", []string{"docs@inline"}, false, []string{"docs@inline"}, None},
		{"one more now", true, "s1", []string{"docs@inline"}, false, []string{"docs@inline", "x@inline"}, None},
		{"renamed", true, "s1", []string{"docs@inline"}, false, []string{"other@inline"}, Ask},
		{"removed", true, "s1", []string{"docs@inline", "b@inline"}, false, []string{"b@inline"}, Ask},
		{"unnamed at the start", true, "s1", nil, true, []string{"docs@inline"}, Ask},
		{"no start kept", true, "s1", nil, false, nil, Ask},
		{"another session's start", true, "s2", []string{"docs@inline"}, false, []string{"other@inline"}, Ask},
		{"no session", true, "", []string{"docs@inline"}, false, []string{"docs@inline"}, Ask},
		{"no folder given", false, "s1", []string{"docs@inline"}, false, nil, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			tr.plugin("mkt", "docs", "1.0.0")
			tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Safe)
			if c.start != nil || c.unnamed {
				err := baseline.Update(tr.env.Store, func(tx *baseline.Tx) error {
					_, err := tx.SessionPlugins().Keep("s1", c.start, c.unnamed, tr.env.Now)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			tr.env.InlineGiven, tr.env.Inline = c.given, c.now
			tr.env = withStartPlugins(context.Background(), tr.env, c.session)
			res := tr.check(resolve.Skill, "docs:pdf")
			if res.Answer != c.want {
				t.Fatalf("%s %q, want %s", res.Answer, res.Reason, c.want)
			}
			if c.want == Ask && !strings.Contains(res.Reason, "may be served by a plugin this session loads from a folder") {
				t.Errorf("reason %q", res.Reason)
			}
		})
	}
}
