package lockfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/walker"
)

func TestLockIsByteIdenticalAcrossCheckoutsAndWorkingDirectories(t *testing.T) {
	a := filepath.Join(t.TempDir(), "repo")
	testtree.Make(t, a, slices.Concat(repoTree, configTree)...)
	// A second checkout elsewhere, under another name. Its modes are those a
	// umask of 002 gives (0664 files, 0775 directories).
	b := filepath.Join(t.TempDir(), "deeper", "other-name")
	copyTree(t, a, b)
	elsewhere := t.TempDir()

	var locks [][]byte
	for _, run := range []struct {
		name, wd, repo string
	}{
		{"from the checkout", a, ""},
		{"from a subdirectory, by a relative path", filepath.Join(a, ".claude/skills"), "../.."},
		{"from elsewhere, by an absolute path", elsewhere, a},
		{"second checkout, from inside", b, ""},
		{"second checkout, from elsewhere", elsewhere, b + "/"},
	} {
		t.Chdir(run.wd)
		l, problems := lockRepo(t, run.repo, walker.DefaultConfig())
		if len(problems) != 0 {
			t.Fatalf("%s: problems %v", run.name, problems)
		}
		data := mustMarshal(t, l)
		for _, host := range []string{a, b, elsewhere, filepath.Base(b)} {
			if bytes.Contains(data, []byte(host)) {
				t.Errorf("%s: the lock holds the host path %q", run.name, host)
			}
		}
		if len(locks) > 0 && !bytes.Equal(data, locks[0]) {
			t.Errorf("%s: lock differs from the first:\n%s\n---\n%s", run.name, data, locks[0])
		}
		locks = append(locks, data)
	}
	l, _ := Parse(locks[0])
	if len(l.Candidates) != 9 {
		t.Errorf("locked %d candidates, want 9 (pdf, web, reviewer.md, ship.md; LOOSE.md is no skill; settings.json, .mcp.json, CLAUDE.md, src/CLAUDE.md, nest)", len(l.Candidates))
	}
}

func TestLockHoldsNoRawHostileBytes(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	l, _ := lockRepo(t, dir, walker.DefaultConfig())
	data := mustMarshal(t, l)
	for i, c := range data {
		if c >= 0x80 || c < 0x20 && c != '\n' {
			t.Fatalf("byte %#x at %d: a lock is printable ASCII", c, i)
		}
	}
	for _, raw := range []string{"$(", "touch pwned", `\n\u00ff`, `\ufffd`} {
		if bytes.Contains(data, []byte(raw)) {
			t.Errorf("lock holds %q", raw)
		}
	}
	hostile := []byte("scripts/$(touch pwned)\n\xff")
	if !bytes.Contains(data, []byte(`"path_hex":"`+fmt.Sprintf("%x", hostile)+`"`)) {
		t.Errorf("the hostile path is not spelled as path_hex:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	found := false
	for _, e := range back.Candidates[len(back.Candidates)-2].Manifest.Entries {
		found = found || bytes.Equal(e.Path, hostile)
	}
	if !found {
		t.Errorf("the hostile path did not round-trip to its raw bytes")
	}
}

func TestParseRoot(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind claude.Kind // "" when refused
	}{
		{".claude/skills", claude.Skills},
		{"plugins/x-1/agents", claude.Agents},
		{"commands", claude.Commands},
		{"tools", ""}, // a kind would have to be guessed
		{".claude/Skills", ""},
		{"/abs/skills", ""},
		{"a//skills", ""},
		{"./skills", ""},
		{"../skills", ""},
		{"a/../skills", ""},
		{"my dir/skills", ""},
		{"a/$(x)/skills", ""},
		{"a\n/skills", ""},
		{"", ""},
	} {
		r, err := ParseRoot(tc.in)
		if tc.kind == "" {
			if err == nil {
				t.Errorf("ParseRoot(%q) accepted", tc.in)
			}
			continue
		}
		if err != nil || r.Kind != tc.kind || r.Path != tc.in {
			t.Errorf("ParseRoot(%q) = %+v, %v; want kind %s", tc.in, r, err, tc.kind)
		}
	}
}

// summary is a report as comparable lines.
func summary(r *Report) []string {
	var out []string
	for _, a := range r.Added {
		out = append(out, "added "+a.Label())
	}
	for _, a := range r.Removed {
		out = append(out, "removed "+a.Label())
	}
	for _, c := range r.Changed {
		var files []string
		for _, f := range c.Files {
			files = append(files, f.Change.String()+" "+FileLabel(f.Path))
		}
		out = append(out, "changed "+c.Label()+": "+strings.Join(files, ", "))
	}
	for _, p := range r.Anomalous {
		out = append(out, "anomalous "+ProblemLabel(p)+": "+ReasonList(p.Reasons))
	}
	for _, a := range r.Adverse {
		out = append(out, "adverse "+a.Label()+" "+string(a.Verdict))
	}
	return out
}

func TestVerifyReportsEveryChangeClass(t *testing.T) {
	base := t.TempDir()
	testtree.Make(t, base, repoTree...)
	lock, problems := lockRepo(t, base, walker.DefaultConfig())
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	const (
		pdf   = ".claude/skills/pdf/"
		agent = ".claude/agents/reviewer.md"
	)
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		cfg    func(*walker.Config)
		want   []string
	}{
		{name: "unchanged tree matches", change: func(*testing.T, string) {}},
		{name: "file content modified",
			change: func(t *testing.T, d string) { testtree.Make(t, d, pdf+"SKILL.md=changed") },
			want:   []string{"changed .claude/skills/pdf: modified SKILL.md"}},
		{name: "file added, file removed, directory added",
			change: func(t *testing.T, d string) {
				testtree.Make(t, d, pdf+"new.md=x", pdf+"more/", pdf+"more/f=y")
				rm(t, d, pdf+"scripts/run.sh")
			},
			want: []string{"changed .claude/skills/pdf: added more, added more/f, added new.md, removed scripts/run.sh"}},
		{name: "executable bit set",
			change: func(t *testing.T, d string) { chmod(t, d, pdf+"SKILL.md", 0o744) },
			want:   []string{"changed .claude/skills/pdf: modified SKILL.md"}},
		{name: "umask-only mode differences are not changes",
			change: func(t *testing.T, d string) {
				chmod(t, d, pdf+"SKILL.md", 0o664)
				chmod(t, d, pdf+"scripts", 0o775)
				chmod(t, d, pdf+"scripts/run.sh", 0o700)
			}},
		{name: "hostile file name modified, shown as hex",
			change: func(t *testing.T, d string) { testtree.Make(t, d, pdf+"scripts/$(touch pwned)\n\xff=other") },
			want:   []string{"changed .claude/skills/pdf: modified hex:" + fmt.Sprintf("%x", "scripts/$(touch pwned)\n\xff")}},
		{name: "candidate added and removed",
			change: func(t *testing.T, d string) {
				testtree.Make(t, d, ".claude/skills/new/", ".claude/skills/new/SKILL.md=new", ".claude/commands/extra.md=x")
				rm(t, d, agent)
			},
			want: []string{"added .claude/commands/extra.md", "added .claude/skills/new", "removed .claude/agents/reviewer.md"}},
		{name: "a loose file in a skills root is no candidate",
			change: func(t *testing.T, d string) { testtree.Make(t, d, ".claude/skills/NOTES.md=x") }},
		{name: "an agent file replaced by a directory",
			change: func(t *testing.T, d string) {
				rm(t, d, agent)
				testtree.Make(t, d, agent+"/", agent+"/x=1")
			},
			want: []string{"changed .claude/agents/reviewer.md: modified (itself), added x"}},
		{name: "a candidate swapped for a link to an identical copy",
			change: func(t *testing.T, d string) {
				if err := os.Rename(filepath.Join(d, ".claude/skills/web"), filepath.Join(d, "web-copy")); err != nil {
					t.Fatal(err)
				}
				testtree.Make(t, d, ".claude/skills/web -> ../../web-copy")
			},
			want: []string{"changed .claude/skills/web: modified (itself)"}},
		{name: "a nested link is anomalous, never changed or matched",
			change: func(t *testing.T, d string) { testtree.Make(t, d, pdf+"etc -> /etc") },
			want:   []string{"anomalous .claude/skills/pdf: symlink"}},
		{name: "a FIFO is anomalous",
			change: func(t *testing.T, d string) { testtree.Make(t, d, pdf+"pipe|") },
			want:   []string{"anomalous .claude/skills/pdf: special"}},
		{name: "a name failing the display gate is anomalous, shown as hex",
			change: func(t *testing.T, d string) {
				testtree.Make(t, d, ".claude/skills/$(id)\n/", ".claude/skills/$(id)\n/SKILL.md=x")
			},
			want: []string{"anomalous .claude/skills/hex:" + fmt.Sprintf("%x", "$(id)\n") + ": badname"}},
		{name: "a root that is not a directory hides nothing",
			change: func(t *testing.T, d string) {
				rm(t, d, ".claude/commands")
				testtree.Make(t, d, ".claude/commands=now a file")
			},
			want: []string{"anomalous .claude/commands (the root): root"}},
		{name: "a partial observation never matches",
			change: func(*testing.T, string) {},
			cfg:    func(c *walker.Config) { c.MaxEntries = 6 },
			want:   []string{"anomalous .claude/skills/pdf: budget"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Make(t, dir, repoTree...)
			tc.change(t, dir)
			cfg := walker.DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			r := verifyRepo(t, dir, lock, cfg)
			got := summary(r)
			if !slices.Equal(got, tc.want) {
				t.Errorf("report:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if r.OK() != (len(tc.want) == 0) {
				t.Errorf("OK() = %v with findings %q", r.OK(), got)
			}
		})
	}
}

func rm(t *testing.T, dir, p string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, dir, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, p), m); err != nil {
		t.Fatal(err)
	}
}

func TestLockRefusesAnomalousAndPartialCandidates(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	testtree.Make(t, dir, ".claude/skills/web/pipe|", ".claude/skills/bad name/", ".claude/agents/link.md -> no-such-target")
	l, problems := lockRepo(t, dir, walker.DefaultConfig())
	var got []string
	for _, p := range problems {
		got = append(got, ProblemLabel(p)+": "+ReasonList(p.Reasons))
	}
	want := []string{
		".claude/agents/link.md: root",
		".claude/skills/hex:" + fmt.Sprintf("%x", "bad name") + ": badname",
		".claude/skills/web: special",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	for _, c := range l.Candidates {
		if string(c.Name) == "web" || string(c.Name) == "bad name" || string(c.Name) == "link.md" {
			t.Errorf("anomalous candidate %s was put in the lock", NameLabel(c.Root, c.Name))
		}
	}
}

func TestVerdictsSurviveOnlyAnUnchangedDigest(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	prev, _ := lockRepo(t, dir, walker.DefaultConfig())
	setVerdict(t, prev, "pdf", Verdict(verdict.Safe))
	setVerdict(t, prev, "web", Verdict(verdict.Block))
	setVerdict(t, prev, "ship.md", Verdict(verdict.Suspect))

	testtree.Make(t, dir, ".claude/skills/pdf/SKILL.md=changed after review")
	rm(t, dir, ".claude/commands/ship.md")
	next, _ := lockRepo(t, dir, walker.DefaultConfig())
	dropped := next.KeepVerdicts(prev)

	var got []string
	for _, d := range dropped {
		got = append(got, d.Label()+" "+string(d.Verdict))
	}
	if want := []string{".claude/commands/ship.md SUSPECT", ".claude/skills/pdf SAFE-TO-PROPOSE"}; !slices.Equal(got, want) {
		t.Errorf("dropped %q, want %q", got, want)
	}
	for _, c := range next.Candidates {
		want := None
		if string(c.Name) == "web" {
			want = Verdict(verdict.Block)
		}
		if c.Verdict != want {
			t.Errorf("%s: verdict %q, want %q", NameLabel(c.Root, c.Name), c.Verdict, want)
		}
	}

	// The kept BLOCK is a finding even though the tree matches.
	r := verifyRepo(t, dir, next, walker.DefaultConfig())
	if got, want := summary(r), []string{"adverse .claude/skills/web BLOCK"}; !slices.Equal(got, want) {
		t.Errorf("report %q, want %q", got, want)
	}
}

func setVerdict(t *testing.T, l *Lock, name string, v Verdict) {
	t.Helper()
	for i := range l.Candidates {
		if string(l.Candidates[i].Name) == name {
			l.Candidates[i].Verdict = v
			return
		}
	}
	t.Fatalf("no candidate %s", name)
}

func TestARootCreatedAfterLockingIsVerified(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	rm(t, dir, ".claude/commands")
	lock, _ := lockRepo(t, dir, walker.DefaultConfig())
	testtree.Make(t, dir, ".claude/commands/", ".claude/commands/deploy.md=rm -rf ~")
	r := verifyRepo(t, dir, lock, walker.DefaultConfig())
	if got, want := summary(r), []string{"added .claude/commands/deploy.md"}; !slices.Equal(got, want) {
		t.Errorf("report %q, want %q", got, want)
	}
}

func TestVerifyAlwaysChecksTheDefaultRoots(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	lock, _ := lockRepo(t, dir, walker.DefaultConfig())
	// A hand edit drops the agents root and its candidate from the lock.
	lock.Roots = slices.DeleteFunc(lock.Roots, func(r Root) bool { return r.Kind == claude.Agents })
	lock.Candidates = slices.DeleteFunc(lock.Candidates, func(c Candidate) bool { return c.Root == ".claude/agents" })
	if err := lock.Validate(); err != nil {
		t.Fatal(err)
	}
	r := verifyRepo(t, dir, lock, walker.DefaultConfig())
	if got, want := summary(r), []string{"added .claude/agents/reviewer.md"}; !slices.Equal(got, want) {
		t.Errorf("report %q, want %q", got, want)
	}
}

func TestExtraRootsAreLockedAndVerified(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, repoTree...)
	testtree.Make(t, dir, "plugins/p/commands/", "plugins/p/commands/go.md=go")
	extra, err := ParseRoot("plugins/p/commands")
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := lockRepo(t, dir, walker.DefaultConfig(), extra)
	if !slices.ContainsFunc(lock.Candidates, func(c Candidate) bool { return c.Root == extra.Path && string(c.Name) == "go.md" }) {
		t.Fatalf("plugins/p/commands/go.md not locked")
	}
	testtree.Make(t, dir, "plugins/p/commands/go.md=went")
	r := verifyRepo(t, dir, lock, walker.DefaultConfig())
	if got, want := summary(r), []string{"changed plugins/p/commands/go.md: modified (itself)"}; !slices.Equal(got, want) {
		t.Errorf("report %q, want %q", got, want)
	}
}

func TestLabelsNeverShowRawBytes(t *testing.T) {
	for _, n := range []string{"a\nb", "$(id)", "`id`", "\xff\xfe", "\x1b[31m", "ok name", "swabcdefghijklmn", "-rf"} {
		if l := NameLabel(".claude/skills", []byte(n)); l != "hex:"+fmt.Sprintf("%x", n) {
			t.Errorf("NameLabel(%q) = %q", n, l)
		}
	}
	if l := NameLabel(".claude/skills", []byte("pdf-2.1_x")); l != "pdf-2.1_x" {
		t.Errorf("a gated name is shown as %q", l)
	}
	if l := FileLabel([]byte("a/b.md")); l != "a/b.md" {
		t.Errorf("a plain path is shown as %q", l)
	}
	if l := FileLabel([]byte("a/.hidden")); l != "hex:"+fmt.Sprintf("%x", "a/.hidden") {
		t.Errorf("a path with a gated-out component is shown as %q", l)
	}
	if !anomaly.Gate([]byte("pdf-2.1_x")) {
		t.Fatal("test name should pass the gate")
	}
}
