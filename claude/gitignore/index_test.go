package gitignore

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/internal/testtree"
)

// TestIndexNamesAreGitsInEveryVersion: the names read are git ls-files',
// in versions 2, 3 (an extended entry) and 4, and with SHA-256 names.
func TestIndexNamesAreGitsInEveryVersion(t *testing.T) {
	files := []string{"a", "a b/c", "dir/sub/deep/f", "dir/sub/g", "x\x01y", "ü/z"}
	for _, c := range []struct {
		name   string
		init   []string
		setup  []string
		hashSz int
	}{
		{name: "version 2", setup: []string{"update-index", "--index-version", "2"}, hashSz: 20},
		{name: "version 3", setup: []string{"add", "-N", "late"}, hashSz: 20},
		{name: "version 4", setup: []string{"update-index", "--index-version", "4"}, hashSz: 20},
		{name: "SHA-256", init: []string{"--object-format=sha256"}, hashSz: 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.init != nil {
				testtree.Must(t, os.RemoveAll(w.top+"/.git"))
				w.git(append([]string{"init", "-q"}, c.init...)...)
			}
			for _, f := range files {
				testtree.Make(t, w.top, f)
			}
			testtree.Make(t, w.top, "late")
			w.git(append([]string{"add", "--"}, files...)...)
			if c.setup != nil {
				w.git(c.setup...)
			}
			b, err := os.ReadFile(w.top + "/.git/index")
			testtree.Must(t, err)
			var got []string
			if !eachName(b, c.hashSz, func(n []byte) { got = append(got, string(n)) }) {
				t.Fatal("the index did not read whole")
			}
			want := strings.Split(strings.TrimSuffix(w.git("ls-files", "-z"), "\x00"), "\x00")
			if !slices.Equal(got, want) {
				t.Errorf("names %q, git ls-files %q", got, want)
			}
		})
	}
}

// TestASplitIndexIsNotRead: its entries live in another file, so no
// folder may be called untracked from it.
func TestASplitIndexIsNotRead(t *testing.T) {
	w := newWorld(t, "f")
	w.git("add", "f")
	w.git("update-index", "--split-index")
	b, err := os.ReadFile(w.top + "/.git/index")
	testtree.Must(t, err)
	if eachName(b, 20, func([]byte) {}) {
		t.Error("a split index read as whole")
	}
}

// TestAFIFOAsGitignoreNeitherBlocksNorIgnores: git itself blocks on one.
func TestAFIFOAsGitignoreNeitherBlocksNorIgnores(t *testing.T) {
	w := newWorld(t, ".git/info/exclude=b/\n", "a/.gitignore|", "a/b/", "b/")
	got := w.ours(w.dirs())
	if want := []string{"b"}; !slices.Equal(w.rel(got), want) {
		t.Errorf("ignored %q, want %q", w.rel(got), want)
	}
}

func FuzzEachName(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"+strings.Repeat("\x00", 60)+"\x00\x01a\x00"), 20)
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02"+strings.Repeat("\x00", 62)+"\x00ab\x00"+strings.Repeat("\x00", 62)+"\x01c\x00"), 20)
	f.Fuzz(func(t *testing.T, b []byte, hashSize int) {
		if hashSize != 20 && hashSize != 32 {
			return
		}
		eachName(b, hashSize, func(n []byte) {
			if len(n) > len(b)*len(b)+1 {
				t.Fatalf("a name of %d bytes from %d", len(n), len(b))
			}
		})
	})
}

// FuzzReadPatterns: any file parses or is refused, and a refused one is
// never half read.
func FuzzReadPatterns(f *testing.F) {
	for _, c := range append(realCorpus, hostileCorpus...) {
		for _, s := range c.specs {
			if text, ok := strings.CutPrefix(s, ".gitignore="); ok {
				f.Add([]byte(text))
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := dir + "/.gitignore"
		testtree.Must(t, os.WriteFile(p, b, 0o644))
		rules, err := readPatterns(p, []string{"d"})
		if err != nil && rules != nil {
			t.Fatal("a refused file kept rules")
		}
		for _, r := range rules {
			r.Match([]string{"d", "x"}, true)
		}
	})
}

// BenchmarkIgnored is a discovery's questions on a checkout of 20,000
// tracked files: the top's 200 folders and node_modules, then nested ones.
func BenchmarkIgnored(b *testing.B) {
	w := newWorld(b, ".gitignore=node_modules/\nbuild/\n*.log\n/dist\n.env\ncoverage/\n!keep.log\n",
		"node_modules/x/", "build/")
	var dirs []string
	for i := range 200 {
		d := w.top + "/pkg" + strconv.Itoa(i)
		testtree.Must(b, os.MkdirAll(d+"/sub", 0o755))
		for j := range 100 {
			testtree.Must(b, os.WriteFile(d+"/sub/f"+strconv.Itoa(j), nil, 0o644))
		}
		dirs = append(dirs, d)
	}
	w.git("add", ".")
	dirs = append(dirs, w.top+"/node_modules", w.top+"/build", w.top+"/node_modules/x")
	for i := range 10 {
		dirs = append(dirs, w.top+"/pkg"+strconv.Itoa(i)+"/sub")
	}
	for b.Loop() {
		if got := w.ours(dirs); len(got) != 3 {
			b.Fatalf("ignored %q", w.rel(got))
		}
	}
}
