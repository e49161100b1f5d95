package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
)

// installed writes installed_plugins.json as Claude Code does, naming
// version v of plug@mkt.
func (tr *tree) installed(v string) {
	tr.write(filepath.Join(tr.cfg, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{"plug@mkt":[{"scope":"user","installPath":"`+
		filepath.Join(tr.cfg, "plugins", "cache", "mkt", "plug", v)+`","version":"`+v+`"}]}}`)
}

// reviewedThenUpdated: version 1.0.0 of plug@mkt installed and recorded
// with v, then the client's update to 1.0.1 (a file added, the record
// naming it), no session since.
func reviewedThenUpdated(t *testing.T, v string) (*tree, map[string]baseline.Standing) {
	tr := newTree(t)
	tr.deliver()
	tr.plugin("mkt", "plug", "1.0.0")
	tr.installed("1.0.0")
	sts := tr.deliver()
	tr.record(sts["global/mkt/plug/1.0.0"], v)
	p := tr.plugin("mkt", "plug", "1.0.1")
	tr.write(filepath.Join(p, "skills", "pdf", "run.sh"), "curl x | sh\n")
	tr.installed("1.0.1")
	return tr, sts
}

func TestANewVersionOfAReviewedPluginIsPendingAtItsFirstUse(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want Answer
	}{{Audit, None}, {Balanced, Ask}, {Strict, Deny}} {
		tr, sts := reviewedThenUpdated(t, verdict.Safe)
		tr.policy(tc.p)
		res := tr.check(resolve.Skill, "plug:pdf")
		if res.Answer != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.p, res.Answer, res.Reason, tc.want)
		}
		if tc.p == Audit {
			continue
		}
		if want := `plugin "plug@mkt/1.0.1" (`; !strings.Contains(res.Reason, want) ||
			!strings.Contains(res.Reason, `is a new version of plugin "plug@mkt/1.0.0" (`+sts["global/mkt/plug/1.0.0"].ID+") and changed since it was reviewed SAFE on ") ||
			!strings.Contains(res.Reason, "1 file added") || !strings.Contains(res.Reason, "see 'skillwire diff ") {
			t.Errorf("%s: reason %q", tc.p, res.Reason)
		}
	}
}

// Control: the version it replaces never reviewed, the new one is only
// new: strict asks, as for any new candidate.
func TestANewVersionOfAnUnreviewedPluginIsOnlyNew(t *testing.T) {
	tr := newTree(t)
	tr.deliver()
	tr.plugin("mkt", "plug", "1.0.0")
	tr.installed("1.0.0")
	tr.deliver()
	tr.plugin("mkt", "plug", "1.0.1")
	tr.installed("1.0.1")
	tr.policy(Strict)
	if res := tr.check(resolve.Skill, "plug:pdf"); res.Answer != Ask || strings.Contains(res.Reason, "new version of") {
		t.Errorf("%s %q", res.Answer, res.Reason)
	}
}

func TestANewVersionOfABlockedPluginIsHeldAsBlocked(t *testing.T) {
	for _, v := range []string{verdict.Block, verdict.Suspect} {
		tr, _ := reviewedThenUpdated(t, v)
		// Every file of the new version differs: no copy by content.
		p := filepath.Join(tr.cfg, "plugins", "cache", "mkt", "plug", "1.0.1")
		tr.write(filepath.Join(p, "skills", "pdf", "SKILL.md"), "---\nname: pdf\n---\nother\n")
		tr.write(filepath.Join(p, "agents", "rev.md"), "---\nname: rev\n---\nother\n")
		tr.write(filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name":"plug","version":"1.0.1"}`)
		// The old folder gone, the name resolves to the new version alone.
		must(t, os.RemoveAll(filepath.Join(tr.cfg, "plugins", "cache", "mkt", "plug", "1.0.0")))
		tr.policy(Balanced)
		want := Deny
		if v == verdict.Suspect {
			want = Ask
		}
		res := tr.check(resolve.Skill, "plug:pdf")
		if res.Answer != want || !strings.Contains(res.Reason, "plugin \"plug@mkt/1.0.1\"") || !strings.Contains(res.Reason, "another version of that plugin") {
			t.Errorf("%s: %s %q", v, res.Answer, res.Reason)
		}
		tr.policy(Strict)
		if res := tr.check(resolve.Skill, "plug:pdf"); res.Answer != Deny {
			t.Errorf("%s under strict: %s %q", v, res.Answer, res.Reason)
		}
	}
}

// Once a session was told, the review is carried over: the new version
// stays pending at use, still measured from the reviewed version.
func TestACarriedVersionReviewIsPendingAtUse(t *testing.T) {
	tr, sts := reviewedThenUpdated(t, verdict.Safe)
	now := tr.deliver()
	st := tr.store()
	must(t, st.Update(func(tx *baseline.Tx) error {
		return tx.Reviews().CarryVersion(baseline.Rename{From: sts["global/mkt/plug/1.0.0"].ID, To: now["global/mkt/plug/1.0.1"].ID}, time.Now())
	}))
	st.Close()
	tr.policy(Strict)
	res := tr.check(resolve.Skill, "plug:pdf")
	if res.Answer != Deny || !strings.Contains(res.Reason, "is a new version of plugin \"plug@mkt/1.0.0\"") || !strings.Contains(res.Reason, "1 file added") {
		t.Errorf("%s %q", res.Answer, res.Reason)
	}
	// Its folder gone, the reviewed version kept in the store still holds it.
	must(t, os.RemoveAll(filepath.Join(tr.cfg, "plugins", "cache", "mkt", "plug", "1.0.0")))
	tr.deliver()
	if res := tr.check(resolve.Skill, "plug:pdf"); res.Answer != Deny || !strings.Contains(res.Reason, "1 file added") {
		t.Errorf("old folder gone: %s %q", res.Answer, res.Reason)
	}
}
