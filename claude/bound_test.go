package claude

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/internal/testtree"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
	"github.com/zeebo/blake3"
)

// observed walks root and returns its candidate name.
func observed(t *testing.T, root Root, name string) walker.Candidate {
	t.Helper()
	w := walker.Scan(context.Background(), []walker.RootSpec{root.Spec()}, walker.DefaultConfig())[0]
	for _, c := range w.Candidates {
		if string(c.Name) == name {
			return c
		}
	}
	t.Fatalf("%s not observed in %s", name, root.Path)
	return walker.Candidate{}
}

// rootOf is the root of p of kind k and scope s.
func rootOf(t *testing.T, p Places, s Scope, k Kind, path string) Root {
	t.Helper()
	for _, r := range p.Roots() {
		if r.Scope == s && r.Kind == k && r.Path == path {
			return r
		}
	}
	t.Fatalf("no %s %s root at %s", s, k, path)
	return Root{}
}

// Readable paths (issue #23): every script a settings file runs is named
// by where it lies. It is bound as scripts/<hash of its path>. The user's
// are under ~ and the project's under $CLAUDE_PROJECT_DIR. Relative ones
// are the project's too, since they run in the project. Elsewhere the path
// is absolute. A link and its target are each named by the link's path.
func TestBoundNamesNameEveryScriptTheWalkerBinds(t *testing.T) {
	dir := t.TempDir()
	home, proj, opt := filepath.Join(dir, "h"), filepath.Join(dir, "h", "p"), filepath.Join(dir, "opt")
	testtree.Make(t, dir,
		`h/.claude/settings.json={"hooks":{"PostToolUse":[{"hooks":[`+
			`{"type":"command","command":"~/.claude/hooks/format.sh"},`+
			`{"type":"command","command":"bash $HOME/.claude/hooks/link.sh"},`+
			`{"type":"command","command":"`+opt+`/tool.sh --fast"}]}]}}`,
		"h/.claude/hooks/format.sh=gofmt", "h/.claude/hooks/link.sh -> format.sh", "opt/tool.sh=x",
		`h/p/.claude/settings.json={"hooks":{"Stop":[{"hooks":[`+
			`{"type":"command","command":"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh"},`+
			`{"type":"command","command":"sh .claude/hooks/y.sh"}]}]}}`,
		"h/p/.claude/hooks/x.sh=x", "h/p/.claude/hooks/y.sh=y")
	p := Places{Config: filepath.Join(home, ".claude"), Home: home, Project: proj}
	for _, tc := range []struct {
		root Root
		want map[string]bool // names, each once
	}{
		{rootOf(t, p, Global, Config, p.Config), map[string]bool{"~/.claude/hooks/format.sh": true, "~/.claude/hooks/link.sh": true,
			"~/.claude/hooks/link.sh (link target)": true, opt + "/tool.sh": true}},
		{rootOf(t, p, Project, Config, filepath.Join(proj, ".claude")), map[string]bool{"$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh": true,
			"$CLAUDE_PROJECT_DIR/.claude/hooks/y.sh": true}},
	} {
		c := observed(t, tc.root, "settings.json")
		names := tc.root.BoundNames(c.Name, c.Canonical)
		seen := 0
		for _, e := range c.Manifest.Entries {
			if !bytes.HasPrefix(e.Path, []byte(walker.ScriptsPath+"/")) {
				continue
			}
			seen++
			if got := names.Show(e.Path); !tc.want[got] {
				t.Errorf("%s: entry %s (%s) is shown as %q, want one of %v", tc.root.Path, e.Path, e.Kind, got, tc.want)
			}
			delete(tc.want, names.Show(e.Path))
		}
		if seen == 0 || len(tc.want) > 0 {
			t.Errorf("%s: %d script entries, names never shown: %v", tc.root.Path, seen, tc.want)
		}
	}
	// Control: a form that runs other scripts names none of these entries,
	// since a name is never a guess. A skill binds nothing to name.
	r := rootOf(t, p, Global, Config, p.Config)
	c := observed(t, r, "settings.json")
	other := r.BoundNames(c.Name, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/other.sh"}]}]}}`))
	for _, e := range c.Manifest.Entries {
		if bytes.HasPrefix(e.Path, []byte(walker.ScriptsPath+"/")) && other.Show(e.Path) != anomaly.ShowPath(e.Path) {
			t.Errorf("entry %s named %q by a form that does not run it", e.Path, other.Show(e.Path))
		}
	}
	if n := (Root{Path: dir, Kind: Skills}).BoundNames([]byte("x"), c.Canonical); len(n) != 1 || n[""] != "x" {
		t.Errorf("a skill names bound files, or itself otherwise than by its name: %v", n)
	}
	// The candidate itself is never "<root>". A settings file shows by
	// where it lies. A name that cannot be shown shows by a hash of it,
	// with no byte of it.
	if got := r.BoundNames(c.Name).Show(nil); got != "~/.claude/settings.json" {
		t.Errorf("the settings file itself is shown as %q", got)
	}
	if got := (Root{Path: dir, Kind: Skills}).BoundNames([]byte("x\x1b[2J")).Show(nil); strings.Contains(got, "\x1b") || !strings.HasPrefix(got, "#") {
		t.Errorf("a hostile name shown as %q", got)
	}
}

// Naming is a display change only. A script's entry is the hash of its
// path as the configuration resolves it, as before issue #23 (golden). A
// digest is the same with names or without.
func TestNamingABoundScriptLeavesTheDigestAsItWas(t *testing.T) {
	if got := string(walker.ScriptEntry("/home/u/.claude/hooks/format.sh")); got != "scripts/4d17dda3b1a58f47fdd6d1ebc296d86d" {
		t.Fatalf("the binding of a script moved: %s", got)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "h")
	testtree.Make(t, dir, `h/.claude/settings.json={"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/.claude/hooks/format.sh"}]}]}}`,
		"h/.claude/hooks/format.sh=gofmt")
	p := Places{Config: filepath.Join(home, ".claude"), Home: home}
	r := rootOf(t, p, Global, Config, p.Config)
	before := observed(t, r, "settings.json")
	names := r.BoundNames(before.Name, before.Canonical)
	after := observed(t, r, "settings.json")
	entry := walker.ScriptEntry(filepath.Join(home, ".claude/hooks/format.sh"))
	if before.Digest != after.Digest || names.Show(entry) != "~/.claude/hooks/format.sh" {
		t.Fatalf("digest %s then %s, the script shown as %q", before.Digest, after.Digest, names.Show(entry))
	}
	found := false
	for _, e := range after.Manifest.Entries {
		found = found || bytes.Equal(e.Path, entry)
	}
	if !found {
		t.Fatalf("the script is not bound as %s", entry)
	}
	if d, err := after.Manifest.Digest(); err != nil || d != after.Digest {
		t.Fatalf("the manifest's digest %s is not the candidate's %s (%v)", d, after.Digest, err)
	}
	m := snapshot.Manifest{Entries: []snapshot.Entry{{Kind: snapshot.File, Mode: 0o644, Size: 5, Hash: blake3.Sum256([]byte("{}"))},
		{Path: walker.ScriptEntry("/home/u/.claude/hooks/format.sh"), Kind: snapshot.File, Mode: 0o755, Size: 5, Hash: blake3.Sum256([]byte("gofmt"))}}}
	if d, err := m.Digest(); err != nil || d.String() != goldenScriptDigest {
		t.Fatalf("a settings manifest with a script digests to %s (%v), want %s as before", d, err, goldenScriptDigest)
	}
}

// goldenScriptDigest is the digest of a settings file and its one script
// as skillwire computed it before bound scripts were named.
const goldenScriptDigest = "blake3:c8dc414813b390e1bef9170622af6372c086432b973aaa3242076c0435044cec"

// A file an instruction file imports is bound like a script. Its name
// comes from the file's own text. Every component that fails the display
// rules is shown by its hash, never its bytes. Such are a control byte,
// bytes that are not UTF-8, a space and shell syntax, one too long. A path
// too long to show keeps the entry's hash.
func TestBoundNamesShowHostileComponentsByHash(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	hostile := []string{"esc\x1b]0;pwn\x07.md", "bad\xff.md", "a b;$x.md", strings.Repeat("x", 70) + ".md"}
	text := "See:\n"
	for _, h := range hostile {
		text += "@notes/" + strings.ReplaceAll(h, " ", `\ `) + "\n"
	}
	text += "@" + strings.Repeat("d/", 90) + "deep.md\n@notes/plain.md\n"
	r := Root{Path: proj, Scope: Project, Kind: Config, Names: []string{"CLAUDE.md"}, Project: proj}
	names := r.BoundNames([]byte("CLAUDE.md"), []byte(text))
	for _, h := range hostile {
		e := walker.ScriptEntry(filepath.Join(proj, "notes", h))
		got := names.Show(e)
		if want := "$CLAUDE_PROJECT_DIR/notes/#" + anomaly.NameHash([]byte(h)); got != want {
			t.Errorf("import %q is shown as %q, want %q", h, got, want)
		}
	}
	if got := names.Show(walker.ScriptEntry(filepath.Join(proj, "notes/plain.md"))); got != "$CLAUDE_PROJECT_DIR/notes/plain.md" {
		t.Errorf("a plain import is shown as %q", got)
	}
	deep := walker.ScriptEntry(filepath.Join(proj, strings.Repeat("d/", 90)+"deep.md"))
	if got := names.Show(deep); got != anomaly.ShowPath(deep) {
		t.Errorf("a path past anomaly.MaxPathShown is shown as %q, want its entry %q", got, anomaly.ShowPath(deep))
	}
}

// The anchor is the deepest that holds the path. The project inside home
// is the project's. Home itself as the project is home's. "/" anchors
// nothing.
func TestBoundNamesAnchorAtTheDeepestDirectory(t *testing.T) {
	for _, tc := range []struct{ home, project, path, want string }{
		{"/h", "/h/p", "/h/p/x.sh", "$CLAUDE_PROJECT_DIR/x.sh"},
		{"/h", "/h/p", "/h/px.sh", "~/px.sh"},
		{"/h", "/h", "/h/x.sh", "~/x.sh"},
		{"/h/", "", "/h/x.sh", "~/x.sh"},
		{"/", "/", "/x.sh", "/x.sh"},
		{"/h", "/p", "/q/../h/x.sh", "/q/../h/x.sh"},
		{"/h", "/p", "/p/../h/x.sh", "$CLAUDE_PROJECT_DIR/../h/x.sh"},
	} {
		r := Root{Home: tc.home, Project: tc.project}
		if got, ok := r.showOutside(tc.path); !ok || got != tc.want {
			t.Errorf("home %q project %q: %q is shown as %q, want %q", tc.home, tc.project, tc.path, got, tc.want)
		}
	}
	if _, ok := (Root{Home: "/h"}).showOutside("rel/x.sh"); ok {
		t.Error("a relative path is named: the walker binds absolute paths only")
	}
}
