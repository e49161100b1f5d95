package arch

import (
	"bufio"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/skillwire/skillwire"

// layer ranks every package of the module. A package imports only
// packages of a lower rank, so no part reaches up to what uses it.
// A package missing here fails TestEveryPackageHasALayer.
var layer = map[string]int{
	// Primitives: no knowledge of the client or the store.
	"internal/pathname":  0,
	"internal/shellword": 0,
	"internal/testtree":  0,
	"internal/otlptest":  0,
	"internal/otlprec":   0,
	"internal/helperbin": 0,
	"anomaly":            0,
	"baseline/verdict":   0,
	"claude/hookio":      0,
	"claude/workflow":    0,
	"claude/jstext":      0,
	"gate/shellcmd":      0,
	"internal/safefile":  1,
	"claude/cmdline":     1,
	"claude/memkey":      3,
	"internal/arch":      1,

	// What a tree is: manifests, digests, the walk, events.
	"snapshot":                    1,
	"baseline/internal/storefile": 1,
	"claude/config/frontmatter":   1,
	"claude/config/jsonread":      1,
	"snapshot/content":            2,
	"snapshot/findings":           2,
	"events":                      2,
	"events/otlp":                 3,
	"walker":                      2,
	"baseline/hookstate":          2,
	"baseline/trust":              2,

	// What the client does.
	"claude/config":          2,
	"claude/config/registry": 3,
	"claude/gitignore":       2,
	"claude/managed":         2,
	"claude":                 4,
	"claude/builtin":         5,
	"baseline/cache":         4,
	"claude/clientproc":      5,
	"claude/resolve":         5,
	"claude/settings":        5,
	"claude/pluginrecord":    5,
	"claude/provenance":      5,
	"baseline/legacy":        5,
	"auditlog":               5,
	"claude/steer":           6,
	"gate/settingschange":    6,
	"gate/match":             6,
	"gate/served":            7,
	"gate/adverse":           7,

	// The store, and what reads it.
	"baseline":           6,
	"snapshot/history":   7,
	"auditlog/reconcile": 7,
	"lockfile":           7,
	"gate/instructions":  7,
	"gate/addeddir":      7,
	"session/mainagent":  7,
	"session/unrecorded": 7,

	// Use cases: none imports another.
	"session":          8,
	"snapshot/restore": 8,
	"monitor":          8,
	"gate":             8,
	"baseline/review":  8,

	// What only a helper binary links: kardianos/service's user service
	// manager, in skillwire-service (the CLI's tests run it too).
	"monitor/kardianos": 9,

	// Entry points.
	"cmd/skillwire":            10,
	"cmd/skillwire-ship":       10,
	"cmd/skillwire-service":    10,
	"internal/bench/daemonlat": 10,
	"internal/bench/floor":     10,
	"internal/bench/gentree":   10,
	"e2e":                      10,
}

// pkg is one package folder of the module.
type pkg struct {
	rel     string   // folder, relative to the module root
	imports []string // the module's packages it imports, relative
	lines   int      // lines of non-test Go files
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// packages reads every package folder of the module, with every build
// tag's imports: e2e and the darwin files count too.
func packages(t *testing.T) []pkg {
	t.Helper()
	top := root(t)
	var out []pkg
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != top && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
			return filepath.SkipDir
		}
		ctx := build.Default
		ctx.UseAllFiles = true
		bp, err := ctx.ImportDir(path, build.ImportComment)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil && !strings.Contains(err.Error(), "found packages") {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(top, path)
		p := pkg{rel: filepath.ToSlash(rel)}
		for _, im := range slices.Concat(bp.Imports, bp.TestImports, bp.XTestImports) {
			if r, ok := strings.CutPrefix(im, module+"/"); ok && !slices.Contains(p.imports, r) {
				p.imports = append(p.imports, r)
			}
		}
		for _, f := range bp.GoFiles {
			p.lines += lines(t, filepath.Join(path, f))
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestEveryPackageHasALayer(t *testing.T) {
	for _, p := range packages(t) {
		if _, ok := layer[p.rel]; !ok {
			t.Errorf("%s has no layer: add it to the table in arch_test.go", p.rel)
		}
	}
}

func TestNothingImportsUpward(t *testing.T) {
	for _, p := range packages(t) {
		for _, im := range p.imports {
			if layer[im] >= layer[p.rel] && im != p.rel {
				t.Errorf("%s (layer %d) imports %s (layer %d)", p.rel, layer[p.rel], im, layer[im])
			}
		}
	}
}

// TestOnlyTheStoreImportsBbolt: DESIGN §1, nothing outside baseline reads
// or writes the store.
func TestOnlyTheStoreImportsBbolt(t *testing.T) {
	ctx := build.Default
	ctx.UseAllFiles = true
	for _, p := range packages(t) {
		if p.rel == "baseline" || strings.HasPrefix(p.rel, "baseline/") {
			continue
		}
		bp, err := ctx.ImportDir(filepath.Join(root(t), p.rel), 0)
		if err != nil && !strings.Contains(err.Error(), "found packages") {
			t.Fatal(err)
		}
		for _, im := range slices.Concat(bp.Imports, bp.TestImports, bp.XTestImports) {
			if strings.HasPrefix(im, "go.etcd.io/bbolt") {
				t.Errorf("%s imports %s", p.rel, im)
			}
		}
	}
}

func TestTheRootHoldsAtMost14PackageFolders(t *testing.T) {
	top := map[string]bool{}
	for _, p := range packages(t) {
		top[strings.Split(p.rel, "/")[0]] = true
	}
	if len(top) > 14 {
		t.Errorf("%d package folders at the root, want at most 14: %v", len(top), top)
	}
}

// TestNoPackageButCmdAndWalkerIsOver2500Lines: a package that grows past
// it is several packages.
func TestNoPackageButCmdAndWalkerIsOver2500Lines(t *testing.T) {
	total, cmd := 0, 0
	for _, p := range packages(t) {
		total += p.lines
		if strings.HasPrefix(p.rel, "cmd/") {
			cmd += p.lines
		}
		if p.lines > 2500 && p.rel != "cmd/skillwire" && p.rel != "walker" {
			t.Errorf("%s has %d lines of non-test Go", p.rel, p.lines)
		}
	}
	if cmd*100 > total*15 {
		t.Errorf("cmd holds %d of %d non-test lines (%.1f%%), want at most 15%%", cmd, total, 100*float64(cmd)/float64(total))
	}
	t.Logf("cmd: %d of %d non-test lines (%.1f%%)", cmd, total, 100*float64(cmd)/float64(total))
}

// TestCommentSentencesAverageAtMost15Words: a comment says what and why
// in short sentences; the record of each edge case lives in tests.
func TestCommentSentencesAverageAtMost15Words(t *testing.T) {
	words, sentences := 0, 0
	for _, p := range packages(t) {
		pw, ps := words, sentences
		dir := filepath.Join(root(t), p.rel)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			w, s := commentSentences(t, filepath.Join(dir, e.Name()))
			words += w
			sentences += s
		}
		if w, s := words-pw, sentences-ps; s > 0 && w > 15*s {
			t.Logf("%-28s %6d words, %.1f a sentence", p.rel, w, float64(w)/float64(s))
		}
	}
	avg := float64(words) / float64(max(sentences, 1))
	t.Logf("%d comment sentences, %d words, %.1f words each", sentences, words, avg)
	if avg > 15 {
		t.Errorf("comment sentences average %.1f words, want at most 15", avg)
	}
}

// commentSentences counts the words and sentences of the // comments of
// one file, each run of comment lines read as one text. Directives and
// code blocks are not prose.
func commentSentences(t *testing.T, path string) (words, sentences int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var block []string
	flush := func() {
		w, s := Sentences(strings.Join(block, " "))
		words += w
		sentences += s
		block = block[:0]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		text, ok := strings.CutPrefix(line, "//")
		if !ok || strings.HasPrefix(text, "go:") || strings.HasPrefix(text, "lint:") || strings.HasPrefix(text, "nolint") {
			flush()
			continue
		}
		if strings.HasPrefix(text, "\t") {
			// A code block in a doc comment is not prose.
			flush()
			continue
		}
		block = append(block, text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	return words, sentences
}

func TestSentences(t *testing.T) {
	for _, c := range []struct {
		text            string
		words, sentence int
	}{
		{"", 0, 0},
		{"One two.", 2, 1},
		{"One two. Three four five!", 5, 2},
		{"It ends (like this.) And on", 6, 2},
		{`"quoted." next`, 2, 2},
		{"no end at all", 4, 1},
	} {
		w, s := Sentences(c.text)
		if w != c.words || s != c.sentence {
			t.Errorf("Sentences(%q) = %d, %d; want %d, %d", c.text, w, s, c.words, c.sentence)
		}
	}
}
