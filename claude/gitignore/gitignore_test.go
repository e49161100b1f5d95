package gitignore

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
)

// world is a repository in a temp folder, with a home of its own: git and
// this package see the same environment, and nothing of the machine's.
type world struct {
	t         testing.TB
	top, home string
	env       map[string]string
}

func newWorld(t testing.TB, specs ...string) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: the corpus is judged by git check-ignore, as Claude Code asks it")
	}
	root := t.TempDir()
	w := &world{t: t, top: root + "/repo", home: root + "/home"}
	w.env = map[string]string{"HOME": w.home, "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.Getenv("PATH")}
	testtree.Must(t, os.MkdirAll(w.home, 0o755))
	testtree.Must(t, os.MkdirAll(w.top, 0o755))
	w.git("init", "-q")
	testtree.Make(t, w.top, specs...)
	return w
}

func (w *world) git(args ...string) string {
	w.t.Helper()
	out, err := w.cmd(args...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func (w *world) cmd(args ...string) *exec.Cmd {
	c := exec.Command("git", args...)
	c.Dir = w.top
	c.Env = nil
	for k, v := range w.env {
		c.Env = append(c.Env, k+"="+v)
	}
	return c
}

func (w *world) lookup(k string) (string, bool) { v, ok := w.env[k]; return v, ok }

// dirs are every folder of the work tree but .git's.
func (w *world) dirs() []string {
	var out []string
	filepath.WalkDir(w.top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir() && p != w.top:
			out = append(out, p)
		}
		return nil
	})
	return out
}

// ours is what this package calls ignored.
func (w *world) ours(dirs []string) map[string]bool {
	return Open(Config{Top: w.top, LookupEnv: w.lookup}).Ignored(dirs)
}

// theirs is what Claude Code takes for ignored: `git check-ignore -- dir`
// run in the project exits 0. Any other exit (1, or 128 for a refusal)
// loads the folder.
func (w *world) theirs(dirs []string) map[string]bool {
	out := map[string]bool{}
	for _, d := range dirs {
		err := w.cmd("check-ignore", "-q", "--", d).Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			w.t.Fatalf("git check-ignore %s: %v", d, err)
		}
		if err == nil {
			out[d] = true
		}
	}
	return out
}

func (w *world) rel(set map[string]bool) []string {
	var out []string
	for d := range set {
		out = append(out, strings.TrimPrefix(d, w.top+"/"))
	}
	slices.Sort(out)
	return out
}

type corpusCase struct {
	name  string
	specs []string
	setup func(w *world)
	// conservative: this package may call fewer folders ignored than git
	// (an input it refuses to judge), never more.
	conservative bool
}

var realCorpus = []corpusCase{
	{name: "names anywhere, folders only with a slash", specs: []string{
		".gitignore=node_modules/\nbuild\n*.log\n",
		"node_modules/x/", "a/node_modules/", "a/build/", "build/", "x.log/", "a/b.log/c/", "keep/",
	}},
	{name: "anchored with a leading or middle slash", specs: []string{
		".gitignore=/out\nsrc/gen\n",
		"out/", "a/out/", "src/gen/", "a/src/gen/", "src/other/",
	}},
	{name: "negation re-includes what a pattern excluded", specs: []string{
		".gitignore=*\n!*/\n!keep\n",
		"a/", "keep/", "a/keep/",
	}},
	{name: "negation after a folder's contents", specs: []string{
		".gitignore=dir/*\n!dir/sub/\n",
		"dir/sub/x/", "dir/other/", "dir/sub/y/",
	}},
	{name: "a negation cannot reach below an excluded folder", specs: []string{
		".gitignore=build/\n!build/keep/\n",
		"build/keep/", "build/other/",
	}},
	{name: "double star leading, middle and trailing", specs: []string{
		".gitignore=**/gen/\na/**/b\ndocs/**\n",
		"gen/", "x/y/gen/", "a/b/", "a/x/y/b/", "docs/", "docs/api/", "docsx/",
	}},
	{name: "a negation opening with a double star", specs: []string{
		".gitignore=/c\n*.d\n!**/c\n!**/x.d\n",
		"c/", "a/c/", "x.d/", "a/x.d/", "y.d/",
	}},
	{name: "double star alone and inside a name", specs: []string{
		".gitignore=x/**/\nfoo**bar\n",
		"x/", "x/y/", "foobar/", "fooXbar/", "a/fooYbar/",
	}},
	{name: "escaped hash, bang and trailing space", specs: []string{
		".gitignore=\\#hash\n\\!bang\nsp\\ \ntrail   \n#comment\n",
		"#hash/", "!bang/", "sp /", "trail/", "comment/", "#comment/",
	}},
	{name: "wildcards and classes", specs: []string{
		".gitignore=?x\n[ab]c\n[!d]e\n[^f]g\n[a-c]i\n",
		"ax/", "abx/", "ac/", "cc/", "de/", "ee/", "fg/", "gg/", "bi/", "di/",
	}},
	{name: "a nested .gitignore overrides the top's", specs: []string{
		".gitignore=gen/\nlogs/\n",
		"src/.gitignore=!gen/\ntmp/\n",
		"gen/", "src/gen/", "src/tmp/", "tmp/", "src/deep/logs/",
	}},
	{name: "a nested .gitignore speaks only below its folder", specs: []string{
		"a/.gitignore=/b\nc\n",
		"a/b/", "b/", "a/x/b/", "a/x/c/", "c/",
	}},
	{name: "case matters", specs: []string{
		".gitignore=Build/\n",
		"Build/", "build/",
	}},
	{name: "CRLF lines and a BOM", specs: []string{
		".gitignore=\xef\xbb\xbfbom\r\ncr\r\n",
		"bom/", "cr/",
	}},
	{name: "a folder holding a tracked file is not ignored", specs: []string{
		"build/x/f", "build/y/", "dist/g", "dist/h/",
	}, setup: func(w *world) {
		w.git("add", "build/x/f", "dist/g")
		testtree.Make(w.t, w.top, ".gitignore=build\ndist/\n")
	}},
	{name: "tracked in index version 4", specs: []string{
		"build/x/f", "build/y/", "lib/a/f",
	}, setup: func(w *world) {
		w.git("add", "build/x/f", "lib/a/f")
		w.git("update-index", "--index-version", "4")
		testtree.Make(w.t, w.top, ".gitignore=build\nlib/\n")
	}},
	{name: "an intent-to-add entry is tracked", specs: []string{
		"build/x/f", "build/y/",
	}, setup: func(w *world) {
		w.git("add", "-N", "build/x/f")
		testtree.Make(w.t, w.top, ".gitignore=build\n")
	}},
	{name: "a submodule's inside is refused by git", specs: []string{
		".gitignore=x\n", "vendor/lib/x/", "other/x/",
	}, setup: func(w *world) {
		w.git("update-index", "--add", "--cacheinfo", "160000,4b825dc642cb6eb9a060e54bf8d69288fbee4904,vendor/lib")
	}},
	{name: "info/exclude and the default global file", specs: []string{
		"a/", "b/", "c/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.top, ".git/info/exclude=a\n")
		testtree.Make(w.t, w.home, ".config/git/ignore=b\n")
	}},
	{name: "core.excludesFile replaces the default global file", specs: []string{
		"a/", "b/", "c/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.home, ".config/git/ignore=b\n", "mine=c\n", ".gitconfig=[core]\n\texcludesFile = ~/mine\n")
	}},
	{name: "info/exclude re-includes what the global file ignores", specs: []string{
		"a/", "b/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.top, ".git/info/exclude=!a\n")
		testtree.Make(w.t, w.home, ".config/git/ignore=a\nb\n")
	}},
	{name: "the repository's core.excludesFile wins", specs: []string{
		"a/", "b/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.home, ".config/git/ignore=a\n", "repo-ignore=b\n")
		w.git("config", "core.excludesFile", w.home+"/repo-ignore")
	}},
	{name: "a linked work tree", specs: []string{
		"f",
	}, setup: func(w *world) {
		w.git("add", "f")
		w.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "f")
		testtree.Make(w.t, w.top, ".git/info/exclude=ex\n")
		wt := w.top + "-wt"
		w.git("worktree", "add", "-q", wt)
		w.top = wt
		testtree.Make(w.t, w.top, ".gitignore=gen/\n", "gen/", "ex/", "src/")
	}},
	{name: "odd bytes in names and patterns", specs: []string{
		".gitignore=a\x01b\nsp ace/\nü*\n\x1b\n",
		"a\x01b/", "sp ace/", "über/", "\x1b/", "plain/",
	}},
}

var hostileCorpus = []corpusCase{
	{name: "a .gitignore over MaxFile", specs: []string{
		".gitignore=" + strings.Repeat("#pad\n", MaxFile/5) + "big/\n", "big/", "small/",
	}},
	{name: "a .gitignore over MaxFile below an ignored folder", specs: []string{
		".gitignore=out/\n", "src/.gitignore=" + strings.Repeat("x\n", MaxFile/2+1) + "!y\n",
		"out/", "src/x/", "src/y/",
	}},
	{name: "a linked .gitignore", specs: []string{
		"real=a/\n", ".gitignore -> real", "a/", "sub/.gitignore -> ../real", "sub/a/",
	}},
	{name: "a .gitignore that is a folder", specs: []string{
		".gitignore/", "a/b/",
	}},
	{name: "a NUL byte in a .gitignore", specs: []string{
		".gitignore=a\x00b\nc/\n", "a/", "c/",
	}},
	{name: "invalid UTF-8 in patterns and names", specs: []string{
		".gitignore=\xff*\n[\xfe]x\n\xc3\n", "\xffa/", "\xfex/", "\xc3/", "ok/",
	}},
	{name: "a .gitignore at each of 40 levels", specs: deepSpecs(40)},
	{name: "a POSIX class, which go-git cannot read", specs: []string{
		".gitignore=[[:digit:]]h\n!x[[:alpha:]]\n", "1h/", "xa/",
	}},
	{name: "a class or a ? beside a non-ASCII name", specs: []string{
		".gitignore=?ber\n??ber\n\x1b[31m\n[ü]x\n", "über/x/", "\x1b[31m/", "üx/",
	}},
	{name: "a ? matching a non-ASCII folder above", specs: []string{
		".gitignore=?ber\n", "über/x/",
	}},
	{name: "an unterminated class and a lone backslash", specs: []string{
		".gitignore=[ab\nx\\\n!y[\n", "[ab/", "x\\/", "a/", "y[/",
	}},
	{name: "core.ignoreCase makes git match case apart", specs: []string{
		".gitignore=build/\n", "BUILD/", "build/",
	}, setup: func(w *world) {
		w.git("config", "core.ignoreCase", "true")
	}},
	{name: "a configuration git cannot parse", specs: []string{
		".gitignore=a/\n", "a/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.home, ".gitconfig=[core\nbroken\n")
	}},
	{name: "an include that may set core.excludesFile", specs: []string{
		"a/", "b/",
	}, setup: func(w *world) {
		testtree.Make(w.t, w.home, ".config/git/ignore=a\n", "inc=[core]\n\texcludesFile = ~/other\n",
			"other=b\n", ".gitconfig=[include]\n\tpath = ~/inc\n")
	}},
	{name: "GIT_DIR in the environment", specs: []string{
		".gitignore=a/\n", "a/",
	}, setup: func(w *world) { w.env["GIT_DIR"] = w.top + "/.git" }},
	{name: "a split index", specs: []string{
		"build/x/f", "build/y/",
	}, setup: func(w *world) {
		w.git("add", "build/x/f")
		w.git("update-index", "--split-index")
		testtree.Make(w.t, w.top, ".gitignore=build\n")
	}},
}

func deepSpecs(n int) []string {
	specs := []string{".gitignore=d\n"}
	p := ""
	for i := range n {
		p += "l/"
		specs = append(specs, p+".gitignore=!d\nx"+strings.Repeat("y", i%3)+"\n", p+"d/", p+"xy/")
	}
	return specs
}

// TestIgnoredAgreesWithGitCheckIgnore: on real patterns the answer is
// git's, folder for folder.
func TestIgnoredAgreesWithGitCheckIgnore(t *testing.T) {
	runCorpus(t, realCorpus)
}

// TestHostileInputNeverAddsAnIgnoredFolder: on input this package refuses
// (huge, linked, odd files and configurations), it may call fewer folders
// ignored than git, never one git does not.
func TestHostileInputNeverAddsAnIgnoredFolder(t *testing.T) {
	for i := range hostileCorpus {
		hostileCorpus[i].conservative = true
	}
	runCorpus(t, hostileCorpus)
}

func runCorpus(t *testing.T, cases []corpusCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, c.specs...)
			if c.setup != nil {
				c.setup(w)
			}
			dirs := w.dirs()
			ours, theirs := w.ours(dirs), w.theirs(dirs)
			for d := range ours {
				if !theirs[d] {
					t.Errorf("%q is called ignored; git loads it", strings.TrimPrefix(d, w.top+"/"))
				}
			}
			if !c.conservative && !maps.Equal(ours, theirs) {
				t.Errorf("ignored %q, git %q", w.rel(ours), w.rel(theirs))
			}
		})
	}
}

// TestRandomPatternsNeverIgnoreWhatGitLoads compares random pattern sets
// with git's answers over one tree. A folder this package calls ignored
// and git does not is a failure: skillwire would stop watching what the
// client loads. The converse is counted.
func TestRandomPatternsNeverIgnoreWhatGitLoads(t *testing.T) {
	w := newWorld(t, "a/b/c/", "a/c/", "b/a/", "c/a/b/", "ab/", "ba/c/", "a.b/", "bc/a/", "üb/a/", "a/üb/")
	dirs := w.dirs()
	words := []string{"a", "b", "c", "*", "?", "**", "a*", "*b", "[ab]", "[!a]", "a.b", "?b", "??b", "ü*"}
	same, runs := 0, 1000
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		top, sub := randomPatterns(rng, words, 5), randomPatterns(rng, words, 3)
		testtree.Make(t, w.top, ".gitignore="+top, "a/.gitignore="+sub)
		ours, theirs := w.ours(dirs), w.batch(dirs)
		for d := range ours {
			if !theirs[d] {
				t.Errorf("seed %d: %q called ignored, git loads it\n.gitignore:\n%sa/.gitignore:\n%s",
					seed, strings.TrimPrefix(d, w.top+"/"), top, sub)
			}
		}
		if maps.Equal(ours, theirs) {
			same++
		}
	}
	t.Logf("%d of %d pattern sets answered as git answers", same, runs)
}

// batch is theirs in one git process, for the many runs above.
func (w *world) batch(dirs []string) map[string]bool {
	c := w.cmd("check-ignore", "--stdin", "-z")
	c.Stdin = strings.NewReader(strings.Join(dirs, "\x00") + "\x00")
	out, err := c.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		w.t.Fatalf("git check-ignore --stdin: %v", err)
	}
	set := map[string]bool{}
	for p := range bytes.SplitSeq(out, []byte{0}) {
		if len(p) > 0 {
			set[string(p)] = true
		}
	}
	return set
}

func randomPatterns(rng *rand.Rand, words []string, max int) string {
	var b strings.Builder
	for range rng.IntN(max + 1) {
		if rng.IntN(3) == 0 {
			b.WriteString("!")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		for i := range 1 + rng.IntN(3) {
			if i > 0 {
				b.WriteString("/")
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		if rng.IntN(3) == 0 {
			b.WriteString("/")
		}
		b.WriteString("\n")
	}
	return b.String()
}
