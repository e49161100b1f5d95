package reconcile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
)

// classes renders each change as "type path: class[ implied][ hashed]".
func classes(r Result) []string {
	out := []string{}
	for _, c := range r.Changes {
		v := string(c.Class)
		if c.Implied {
			v += " implied"
		}
		if c.Hashed {
			v += " hashed"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", c.Change.Type, c.Change.Path, v))
	}
	return out
}

// reconcileLogs reconciles with two logs speaking for the fixture's root.
// They are the person's (global) and the project's own.
func (f *reconcileFixture) reconcileLogs(stored, current *snapshot.Manifest, global, project []auditlog.Entry) Result {
	sc := []auditlog.Scope{{Base: f.home, Roots: []string{f.root}}}
	return Run(Input{
		Candidates: []Candidate{{ID: "swtest", Root: f.root, Name: []byte("s"), Since: f.since, Stored: stored, Current: current}},
		Sources:    []Source{{Entries: global, Scopes: sc}, {Entries: project, Scopes: sc, ProjectLog: true}},
		Now:        f.now,
	})
}

func TestReconcileClassTellsTheProjectsOwnLogApart(t *testing.T) {
	edit := func(f *reconcileFixture) { f.write("s/SKILL.md", "v2") }
	upd := func(sha string) auditlog.Entry { return withSHA(entry(5, auditlog.Update, rel+"SKILL.md"), sha) }
	for _, tc := range []struct {
		name            string
		mutate          func(f *reconcileFixture)
		global, project []auditlog.Entry
		want            []string
	}{
		{"announced in the person's log with the content's hash", edit, []auditlog.Entry{upd("v2")}, nil,
			[]string{"modified SKILL.md: expected hashed"}},
		{"announced in the person's log without a hash is not verified", edit, []auditlog.Entry{entry(5, auditlog.Update, rel+"SKILL.md")}, nil,
			[]string{"modified SKILL.md: unexpected"}},
		{"announced only by the project's own log", edit, nil, []auditlog.Entry{upd("v2")},
			[]string{"modified SKILL.md: announced-by-project hashed"}},
		{"announced by both", edit, []auditlog.Entry{upd("v2")}, []auditlog.Entry{upd("v2")},
			[]string{"modified SKILL.md: expected hashed"}},
		{"the project's log cannot make a wrong hash in the person's log right", edit,
			[]auditlog.Entry{upd("what the tool wrote")}, []auditlog.Entry{upd("v2")},
			[]string{"modified SKILL.md: announced-by-project hashed"}},
		{"announced by neither", edit, nil, nil, []string{"modified SKILL.md: unexpected"}},
		{"a directory deleted by the project's word takes its contents with that word", func(f *reconcileFixture) { os.RemoveAll(f.path("s/lib")) },
			nil, []auditlog.Entry{entry(1, auditlog.Delete, rel+"lib")},
			[]string{"removed lib: announced-by-project", "removed lib/x.py: announced-by-project implied"}},
		{"a new directory is only as expected as the least of its files", func(f *reconcileFixture) {
			f.write("s/a/f.md", "f")
			f.write("s/a/g.md", "g")
		}, []auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"a/f.md"), "f")}, []auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"a/g.md"), "g")},
			[]string{"added a: announced-by-project implied", "added a/f.md: expected hashed", "added a/g.md: announced-by-project hashed"}},
		{"a new directory all announced in the person's log", func(f *reconcileFixture) { f.write("s/a/f.md", "f") },
			[]auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"a/f.md"), "f")}, nil,
			[]string{"added a: expected implied", "added a/f.md: expected hashed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReconcileFixture(t)
			stored := f.observe("s")
			tc.mutate(f)
			r := f.reconcileLogs(stored, f.observe("s"), tc.global, tc.project)
			if got := classes(r); !slices.Equal(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			for _, c := range r.Changes {
				if c.Expected != (c.Class != ClassUnexpected) {
					t.Fatalf("%s: expected %v but class %s", c.Change.Path, c.Expected, c.Class)
				}
			}
		})
	}
}

func TestReadSourcesReadsEachLogOnce(t *testing.T) {
	home := t.TempDir()
	roots := []claude.Root{
		{Path: filepath.Join(home, ".claude", "skills"), Scope: claude.Global, Kind: claude.Skills, ConfigDir: filepath.Join(home, ".claude")},
		{Path: filepath.Join(home, "p", ".claude", "skills"), Scope: claude.Project, Kind: claude.Skills, ConfigDir: filepath.Join(home, "p", ".claude")},
	}
	for _, r := range roots {
		if err := os.MkdirAll(r.Path, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e := entry(1, auditlog.Update, ".claude/skills/s/f")
	t.Run("a missing log is empty; the project's own log is marked", func(t *testing.T) {
		scopes, err := auditlog.Scopes("", roots)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auditlog.Append(scopes[1].Log, e, auditlog.Options{}); err != nil {
			t.Fatal(err)
		}
		src, skipped, err := ReadSources(scopes, auditlog.Options{})
		if err != nil || skipped != 0 || len(src) != 2 {
			t.Fatalf("%d sources, %d skipped, %v", len(src), skipped, err)
		}
		if len(src[0].Entries) != 0 || src[0].ProjectLog || len(src[1].Entries) != 1 || !src[1].ProjectLog {
			t.Fatalf("sources %+v", src)
		}
	})
	t.Run("one shared log is one source speaking for both scopes, nobody's project", func(t *testing.T) {
		shared := filepath.Join(home, "shared.jsonl")
		scopes, err := auditlog.Scopes(shared, roots)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auditlog.Append(shared, e, auditlog.Options{}); err != nil {
			t.Fatal(err)
		}
		src, _, err := ReadSources(scopes, auditlog.Options{})
		if err != nil || len(src) != 1 || len(src[0].Scopes) != 2 || src[0].ProjectLog || len(src[0].Entries) != 1 {
			t.Fatalf("sources %+v, %v", src, err)
		}
	})
	t.Run("an untrusted log is an error", func(t *testing.T) {
		bad := filepath.Join(home, "bad.jsonl")
		if err := os.Symlink("/etc/passwd", bad); err != nil {
			t.Fatal(err)
		}
		scopes, err := auditlog.Scopes(bad, roots)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadSources(scopes, auditlog.Options{}); !errors.Is(err, auditlog.ErrUntrusted) {
			t.Fatalf("got %v, want ErrUntrusted", err)
		}
	})
}
