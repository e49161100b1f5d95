package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// reconcileFixture is a home with one global skills root holding skill s.
type reconcileFixture struct {
	t     *testing.T
	home  string
	root  string
	since time.Time
	now   time.Time
}

func newReconcileFixture(t *testing.T) *reconcileFixture {
	f := &reconcileFixture{t: t, home: t.TempDir()}
	f.root = filepath.Join(f.home, ".claude", "skills")
	f.write("s/SKILL.md", "v1")
	f.write("s/lib/x.py", "x")
	f.since = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	f.now = f.since.Add(time.Hour)
	return f
}

func (f *reconcileFixture) path(rel string) string { return filepath.Join(f.root, rel) }

func (f *reconcileFixture) write(rel, content string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *reconcileFixture) observe(name string) *snapshot.Manifest {
	f.t.Helper()
	c := walker.Observe(context.Background(), f.root, []byte(name), walker.DefaultConfig())
	return &c.Manifest
}

// entry is an audit entry at minutes after the observation.
func entry(minutes int, op auditlog.Operation, path string) auditlog.Entry {
	return auditlog.Entry{Timestamp: time.Date(2026, 11, 29, 10, minutes, 0, 0, time.UTC), Operation: op, FilePath: path, Source: "test"}
}

func withSHA(e auditlog.Entry, content string) auditlog.Entry {
	sum := sha256.Sum256([]byte(content))
	e.SHA256 = hex.EncodeToString(sum[:])
	return e
}

func (f *reconcileFixture) reconcile(stored, current *snapshot.Manifest, entries ...auditlog.Entry) Result {
	return Run(Input{
		Candidates: []Candidate{{ID: "swtest", Root: f.root, Name: []byte("s"), Since: f.since, Stored: stored, Current: current}},
		Sources:    []Source{{Entries: entries, Scopes: []auditlog.Scope{{Base: f.home, Roots: []string{f.root}}}}},
		Now:        f.now,
	})
}

// verdicts renders each change as "type path: expected|why[ implied]".
func verdicts(r Result) []string {
	out := []string{}
	for _, c := range r.Changes {
		v := string(c.Why)
		if c.Expected {
			v = "expected"
		}
		if c.Implied {
			v += " implied"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", c.Change.Type, c.Change.Path, v))
	}
	return out
}

const rel = ".claude/skills/s/"

// TestReconcileRules names each rule of Run by a case. The cases say how an
// entry names a file, and its window. They say which operation fits which
// change. They say how the last entry must agree with the disk. Implied
// changes close the table.
func TestReconcileRules(t *testing.T) {
	edit := func(f *reconcileFixture) { f.write("s/SKILL.md", "v2") }
	for _, tc := range []struct {
		name       string
		mutate     func(f *reconcileFixture)
		entries    func(f *reconcileFixture) []auditlog.Entry
		want       []string
		suspicious int
	}{
		{"unannounced edit", edit, nil, []string{"modified SKILL.md: no-entry"}, 0},
		{"announced edit, relative spelling", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(5, auditlog.Update, rel+"SKILL.md"), "v2")}
			},
			[]string{"modified SKILL.md: expected"}, 0},
		{"announced edit, absolute spelling", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(5, auditlog.Refine, f.path("s/SKILL.md")), "v2")}
			},
			[]string{"modified SKILL.md: expected"}, 0},
		{"announced edit without a sha256 is not verified", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, rel+"SKILL.md")}
			},
			[]string{"modified SKILL.md: unverified"}, 0},
		{"audited update with the right sha256", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(5, auditlog.Update, rel+"SKILL.md"), "v2")}
			},
			[]string{"modified SKILL.md: expected"}, 0},
		{"audited update with a wrong sha256", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(5, auditlog.Update, rel+"SKILL.md"), "what the tool wrote")}
			},
			[]string{"modified SKILL.md: sha256"}, 0},
		{"entry older than the observation", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				e := entry(0, auditlog.Update, rel+"SKILL.md")
				e.Timestamp = f.since.Add(-time.Second)
				return []auditlog.Entry{e}
			},
			[]string{"modified SKILL.md: stale"}, 0},
		{"entry at the very instant of the observation", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				e := entry(0, auditlog.Update, rel+"SKILL.md")
				e.Timestamp = f.since
				return []auditlog.Entry{e}
			},
			[]string{"modified SKILL.md: stale"}, 0},
		{"entry from the future", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				e := entry(0, auditlog.Update, rel+"SKILL.md")
				e.Timestamp = f.now.Add(auditlog.ClockSkew + time.Second)
				return []auditlog.Entry{e}
			},
			[]string{"modified SKILL.md: stale"}, 0},
		{"entry ahead of now within the clock skew", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				e := withSHA(entry(0, auditlog.Update, rel+"SKILL.md"), "v2")
				e.Timestamp = f.now.Add(auditlog.ClockSkew - time.Second)
				return []auditlog.Entry{e}
			},
			[]string{"modified SKILL.md: expected"}, 0},
		{"entry for another file", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, rel+"lib/x.py")}
			},
			[]string{"modified SKILL.md: no-entry"}, 0},
		{"operation that does not fit", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Create, rel+"SKILL.md")}
			},
			[]string{"modified SKILL.md: operation"}, 0},
		{"dot-dot path never matches", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, ".claude/skills/other/../s/SKILL.md")}
			},
			[]string{"modified SKILL.md: no-entry"}, 1},
		{"absolute dot-dot path never matches", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, f.root+"/s/lib/../SKILL.md")}
			},
			[]string{"modified SKILL.md: no-entry"}, 1},
		{"dot and doubled slash never match", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, rel+"./SKILL.md"), entry(6, auditlog.Update, ".claude/skills//s/SKILL.md")}
			},
			[]string{"modified SKILL.md: no-entry"}, 2},
		{"entries outside the roots are suspicious", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(5, auditlog.Update, "/etc/passwd"), entry(5, auditlog.Update, ".claude/settings.json"),
					entry(5, auditlog.Update, ".claude/skills")}
			},
			[]string{"modified SKILL.md: no-entry"}, 3},
		{"mode change announced", func(f *reconcileFixture) { os.Chmod(f.path("s/lib/x.py"), 0o755) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(5, auditlog.Migrate, rel+"lib/x.py"), "x")}
			},
			[]string{"mode lib/x.py: expected"}, 0},
		{"add, modify and remove at once", func(f *reconcileFixture) {
			f.write("s/NEW.md", "new")
			f.write("s/SKILL.md", "v2")
			os.Remove(f.path("s/lib/x.py"))
		}, func(f *reconcileFixture) []auditlog.Entry {
			return []auditlog.Entry{
				withSHA(entry(1, auditlog.Create, rel+"NEW.md"), "new"),
				withSHA(entry(2, auditlog.Rollback, rel+"SKILL.md"), "v2"),
				entry(3, auditlog.Delete, rel+"lib/x.py"),
			}
		}, []string{"added NEW.md: expected", "modified SKILL.md: expected", "removed lib/x.py: expected"}, 0},
		{"add, modify and remove at once, none announced", func(f *reconcileFixture) {
			f.write("s/NEW.md", "new")
			f.write("s/SKILL.md", "v2")
			os.Remove(f.path("s/lib/x.py"))
		}, nil, []string{"added NEW.md: no-entry", "modified SKILL.md: no-entry", "removed lib/x.py: no-entry"}, 0},
		{"created then refined: the last entry speaks for the content", func(f *reconcileFixture) { f.write("s/NEW.md", "second") },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"NEW.md"), "first"), withSHA(entry(2, auditlog.Refine, rel+"NEW.md"), "second")}
			},
			[]string{"added NEW.md: expected"}, 0},
		{"a right hash followed by a wrong one", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(1, auditlog.Update, rel+"SKILL.md"), "v2"), withSHA(entry(2, auditlog.Update, rel+"SKILL.md"), "v3")}
			},
			[]string{"modified SKILL.md: sha256"}, 0},
		{"deleted, yet there", edit,
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Update, rel+"SKILL.md"), entry(2, auditlog.Delete, rel+"SKILL.md")}
			},
			[]string{"modified SKILL.md: state"}, 0},
		{"updated, yet gone", func(f *reconcileFixture) { os.Remove(f.path("s/SKILL.md")) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Delete, rel+"SKILL.md"), entry(2, auditlog.Update, rel+"SKILL.md")}
			},
			[]string{"removed SKILL.md: state"}, 0},
		{"a delete's sha256 is not compared", func(f *reconcileFixture) { os.Remove(f.path("s/SKILL.md")) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(1, auditlog.Delete, rel+"SKILL.md"), "not the content")}
			},
			[]string{"removed SKILL.md: expected"}, 0},
		{"a file the walker cannot hash matches no sha256", func(f *reconcileFixture) {
			os.Remove(f.path("s/SKILL.md"))
			os.Symlink("/etc/passwd", f.path("s/SKILL.md"))
		}, func(f *reconcileFixture) []auditlog.Entry {
			b, _ := os.ReadFile("/etc/passwd")
			return []auditlog.Entry{withSHA(entry(1, auditlog.Update, rel+"SKILL.md"), string(b))}
		}, []string{"modified SKILL.md: sha256"}, 0},
		{"new directory implied by the file announced in it", func(f *reconcileFixture) { f.write("s/a/b/f.md", "f") },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"a/b/f.md"), "f")}
			},
			[]string{"added a: expected implied", "added a/b: expected implied", "added a/b/f.md: expected"}, 0},
		{"an empty new directory needs its own entry", func(f *reconcileFixture) { os.Mkdir(f.path("s/empty"), 0o755) },
			nil, []string{"added empty: no-entry"}, 0},
		{"a new directory with an unannounced file", func(f *reconcileFixture) {
			f.write("s/a/f.md", "f")
			f.write("s/a/g.md", "g")
		}, func(f *reconcileFixture) []auditlog.Entry {
			return []auditlog.Entry{withSHA(entry(1, auditlog.Create, rel+"a/f.md"), "f")}
		},
			[]string{"added a: no-entry", "added a/f.md: expected", "added a/g.md: no-entry"}, 0},
		{"a deleted directory takes its contents", func(f *reconcileFixture) { os.RemoveAll(f.path("s/lib")) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Delete, rel+"lib")}
			},
			[]string{"removed lib: expected", "removed lib/x.py: expected implied"}, 0},
		{"a directory removed file by file", func(f *reconcileFixture) { os.RemoveAll(f.path("s/lib")) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Delete, rel+"lib/x.py")}
			},
			[]string{"removed lib: expected implied", "removed lib/x.py: expected"}, 0},
		{"a file named in the window is judged by its entry, never implied", func(f *reconcileFixture) { os.RemoveAll(f.path("s/lib")) },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Delete, rel+"lib"), entry(2, auditlog.Update, rel+"lib/x.py")}
			},
			[]string{"removed lib: expected", "removed lib/x.py: operation"}, 0},
		{"a directory named in the window is judged by its entry, never implied", func(f *reconcileFixture) { f.write("s/a/f.md", "f") },
			func(f *reconcileFixture) []auditlog.Entry {
				return []auditlog.Entry{entry(1, auditlog.Update, rel+"a"), withSHA(entry(2, auditlog.Create, rel+"a/f.md"), "f")}
			},
			[]string{"added a: operation", "added a/f.md: expected"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReconcileFixture(t)
			stored := f.observe("s")
			tc.mutate(f)
			var entries []auditlog.Entry
			if tc.entries != nil {
				entries = tc.entries(f)
			}
			r := f.reconcile(stored, f.observe("s"), entries...)
			if got := verdicts(r); !slices.Equal(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			unexpected := 0
			for _, w := range tc.want {
				if !strings.Contains(w, "expected") {
					unexpected++
				}
			}
			if r.Unexpected != unexpected || r.Suspicious != tc.suspicious {
				t.Fatalf("unexpected %d, suspicious %d; want %d, %d", r.Unexpected, r.Suspicious, unexpected, tc.suspicious)
			}
		})
	}
}

func TestReconcileReportsTheEntryThatExplainsOrComesClosest(t *testing.T) {
	f := newReconcileFixture(t)
	stored := f.observe("s")
	f.write("s/NEW.md", "x")
	f.write("s/SKILL.md", "v2")
	create := entry(1, auditlog.Create, rel+"NEW.md")
	refine := withSHA(entry(2, auditlog.Refine, rel+"NEW.md"), "x")
	old := entry(0, auditlog.Update, rel+"SKILL.md")
	old.Timestamp = f.since.Add(-time.Hour)
	r := f.reconcile(stored, f.observe("s"), create, refine, old)
	if r.Changes[0].Entry == nil || r.Changes[0].Entry.Operation != auditlog.Create {
		t.Fatalf("added file explained by %+v, want the create", r.Changes[0].Entry)
	}
	if r.Changes[1].Entry == nil || !r.Changes[1].Entry.Timestamp.Equal(old.Timestamp) || r.Changes[1].Expected {
		t.Fatalf("stale entry not reported: %+v", r.Changes[1])
	}
}

func TestReconcileWholeCandidateRemovedAndReappeared(t *testing.T) {
	f := newReconcileFixture(t)
	stored := f.observe("s")
	os.RemoveAll(f.path("s"))
	r := f.reconcile(stored, nil, entry(1, auditlog.Delete, rel[:len(rel)-1]))
	if got, want := verdicts(r), []string{
		"removed : expected", "removed SKILL.md: expected implied", "removed lib: expected implied", "removed lib/x.py: expected implied",
	}; !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	f.write("s/SKILL.md", "back")
	r = f.reconcile(nil, f.observe("s"), withSHA(entry(1, auditlog.Create, rel+"SKILL.md"), "back"))
	if got, want := verdicts(r), []string{"added : expected implied", "added SKILL.md: expected"}; !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestReconcileHashesThroughATopLevelLinkOnly(t *testing.T) {
	f := newReconcileFixture(t)
	checkout := filepath.Join(f.home, "checkout", "s2")
	os.MkdirAll(checkout, 0o755)
	os.WriteFile(filepath.Join(checkout, "SKILL.md"), []byte("v1"), 0o644)
	os.Symlink(checkout, f.path("s2"))
	c := walker.Observe(context.Background(), f.root, []byte("s2"), walker.DefaultConfig())
	stored := c.Manifest
	os.WriteFile(filepath.Join(checkout, "SKILL.md"), []byte("v2"), 0o644)
	c = walker.Observe(context.Background(), f.root, []byte("s2"), walker.DefaultConfig())
	r := Run(Input{
		Candidates: []Candidate{{ID: "swtest", Root: f.root, Name: []byte("s2"), Since: f.since, Stored: &stored, Current: &c.Manifest}},
		Sources: []Source{{Entries: []auditlog.Entry{withSHA(entry(1, auditlog.Update, ".claude/skills/s2/SKILL.md"), "v2")},
			Scopes: []auditlog.Scope{{Base: f.home, Roots: []string{f.root}}}}},
		Now: f.now,
	})
	if got, want := verdicts(r), []string{"modified SKILL.md: expected"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReconcileScopesOfOneSharedLog(t *testing.T) {
	// One log ($SKILLWIRE_AUDIT_LOG) serves the global roots and the
	// project's. Paths are relative to the home in one, to the project in
	// the other. The same relative spelling names a file in each scope. It
	// names one only within the roots of that scope.
	home := t.TempDir()
	project := filepath.Join(home, "proj")
	groot := filepath.Join(home, ".claude", "skills")
	proot := filepath.Join(project, ".claude", "skills")
	for _, r := range []string{groot, proot} {
		os.MkdirAll(filepath.Join(r, "s"), 0o755)
		os.WriteFile(filepath.Join(r, "s", "f"), []byte("1"), 0o644)
	}
	obs := func(root string) *snapshot.Manifest {
		c := walker.Observe(context.Background(), root, []byte("s"), walker.DefaultConfig())
		return &c.Manifest
	}
	gs, ps := obs(groot), obs(proot)
	os.WriteFile(filepath.Join(groot, "s", "f"), []byte("2"), 0o644)
	os.WriteFile(filepath.Join(proot, "s", "f"), []byte("2"), 0o644)
	since := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	in := Input{
		Candidates: []Candidate{
			{ID: "swglobal", Root: groot, Name: []byte("s"), Since: since, Stored: gs, Current: obs(groot)},
			{ID: "swproject", Root: proot, Name: []byte("s"), Since: since, Stored: ps, Current: obs(proot)},
		},
		Sources: []Source{{
			Entries: []auditlog.Entry{
				withSHA(entry(1, auditlog.Update, ".claude/skills/s/f"), "2"),
				// From the home, this spelling reaches into the project's
				// roots. The global scope does not speak for them.
				withSHA(entry(1, auditlog.Update, "proj/.claude/skills/s/f"), "2"),
			},
			Scopes: []auditlog.Scope{{Base: home, Roots: []string{groot}}, {Base: project, Roots: []string{proot}}},
		}},
		Now: since.Add(time.Hour),
	}
	r := Run(in)
	if r.Unexpected != 0 || len(r.Changes) != 2 {
		t.Fatalf("got %q", verdicts(r))
	}
	if r.Suspicious != 1 {
		t.Fatalf("suspicious %d, want 1", r.Suspicious)
	}
}

func TestReconcileNeverComparesAPartialObservation(t *testing.T) {
	f := newReconcileFixture(t)
	stored := f.observe("s")
	cfg := walker.DefaultConfig()
	cfg.MaxEntries = 2
	c := walker.Observe(context.Background(), f.root, []byte("s"), cfg)
	if !c.Partial() {
		t.Fatal("the fixture is not partial")
	}
	r := f.reconcile(stored, &c.Manifest)
	if len(r.Changes) != 0 || !slices.Equal(r.Incomplete, []string{"swtest"}) {
		t.Fatalf("got %q, incomplete %v", verdicts(r), r.Incomplete)
	}
}

// The sha256 of an entry vouches only for the content that was observed.
// Content X observed, then Y written and announced, is not explained.
func TestReconcileHashesTheObservedContentNotTheDiskNow(t *testing.T) {
	kept := func(m map[snapshot.Hash][]byte) func(snapshot.Hash) ([]byte, bool) {
		return func(h snapshot.Hash) ([]byte, bool) { b, ok := m[h]; return b, ok }
	}
	for _, tc := range []struct {
		name     string
		announce string // the content the entry's sha256 names; "" for no sha256
		keep     bool   // the observed bytes are kept
		lie      bool   // the store answers other bytes for the observed hash
		want     string
		// class: unknown (never unexpected, never expected) when the
		// observed bytes could not be read to compare (issue #23).
		class Class
	}{
		{"announces what was written after the observation, re-read", "Y", false, false, "modified SKILL.md: sha256", ClassUnknown},
		{"announces what was written after the observation, kept bytes", "Y", true, false, "modified SKILL.md: sha256", ClassUnexpected},
		{"announces what was observed, re-read after a rewrite", "X", false, false, "modified SKILL.md: sha256", ClassUnknown},
		{"announces what was observed, kept bytes", "X", true, false, "modified SKILL.md: expected", ClassExpected},
		{"kept bytes that are not the observed hash are not used", "Y", true, true, "modified SKILL.md: sha256", ClassUnknown},
		{"no sha256 vouches for no bytes", "", false, false, "modified SKILL.md: unverified", ClassUnexpected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReconcileFixture(t)
			stored := f.observe("s")
			f.write("s/SKILL.md", "X")
			current := f.observe("s")
			f.write("s/SKILL.md", "Y")
			store := map[snapshot.Hash][]byte{}
			if tc.keep {
				for _, e := range current.Entries {
					if string(e.Path) == "SKILL.md" {
						store[e.Hash] = []byte("X")
						if tc.lie {
							store[e.Hash] = []byte("Y")
						}
					}
				}
			}
			r := Run(Input{
				Candidates: []Candidate{{ID: "swtest", Root: f.root, Name: []byte("s"), Since: f.since, Stored: stored, Current: current}},
				Sources: []Source{{Entries: []auditlog.Entry{announce(entry(5, auditlog.Update, rel+"SKILL.md"), tc.announce)},
					Scopes: []auditlog.Scope{{Base: f.home, Roots: []string{f.root}}}}},
				Now:     f.now,
				Content: kept(store),
			})
			if got := verdicts(r); !slices.Equal(got, []string{tc.want}) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if got := r.Changes[0].Worth(); got != tc.class || got == ClassUnknown && r.Unexpected != 1 {
				t.Fatalf("class %s (%d unexpected), want %s", got, r.Unexpected, tc.class)
			}
		})
	}
}

// announce is e with the sha256 of content, none for "".
func announce(e auditlog.Entry, content string) auditlog.Entry {
	if content == "" {
		return e
	}
	return withSHA(e, content)
}
