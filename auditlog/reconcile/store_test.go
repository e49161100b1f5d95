package reconcile

import (
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/snapshot"
)

// fileChange is one reconciled change of a file: class "" is unexpected.
func fileChange(path string, t snapshot.ChangeType, class Class, source string) Change {
	c := Change{Candidate: "swid", Change: snapshot.Change{Path: []byte(path), Type: t,
		New: &snapshot.Entry{Kind: snapshot.File}, Old: &snapshot.Entry{Kind: snapshot.File}}}
	if class != "" {
		c.Expected, c.Class = true, class
		c.Entry = &auditlog.Entry{Source: source}
	}
	return c
}

func TestFilesNeverShowHostileBytes(t *testing.T) {
	hostile := []string{"a/\x1b[31m", "\u202eevil", "a/../b", strings.Repeat("a/", 200) + "b", "a b"}
	var r Reconciliation
	for _, p := range hostile {
		r.Changes = append(r.Changes, fileChange(p, snapshot.Modified, "", ""))
	}
	r.Changes = append(r.Changes, fileChange("scripts/run.sh", snapshot.Modified, "", ""))
	fs := r.Files()
	for i, p := range hostile {
		if got := fs[i].Path; strings.Contains(got, p) || !strings.Contains(got, "#") && !strings.HasPrefix(got, "depth") {
			t.Errorf("%q is shown as %q, want its failing components by hash", p, got)
		}
	}
	if got := fs[len(hostile)].Path; got != "scripts/run.sh" {
		t.Errorf("a plain path is shown as %q", got)
	}
}

// A bound script is shown by its name (issue #23), in the JSON contract's
// shape. That is the name its candidate's Names give it.
func TestFilesShowABoundScriptByItsName(t *testing.T) {
	r := Reconciliation{Changes: []Change{fileChange("scripts/0123", snapshot.Modified, "", "")},
		Names: anomaly.Names{"scripts/0123": "~/.claude/hooks/format.sh"}}
	if got := r.Files()[0].Path; got != "~/.claude/hooks/format.sh" {
		t.Errorf("a bound script is shown as %q", got)
	}
}

func TestFilesFollowTheJSONContract(t *testing.T) {
	r := Reconciliation{Changes: []Change{fileChange("SKILL.md", snapshot.Modified, ClassExpected, "skill-creator"),
		fileChange("x", snapshot.Added, "", ""), fileChange("y", snapshot.Removed, ClassAnnouncedByProject, "p")}}
	got := r.Files()
	want := []cache.FileChange{{Path: "SKILL.md", Change: "modified", Class: "expected"}, {Path: "x", Change: "added", Class: "unexpected"},
		{Path: "y", Change: "removed", Class: "announced-by-project"}}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Change != want[i].Change || got[i].Class != want[i].Class {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[0].Source == nil || *got[0].Source != "skill-creator" || got[1].Source != nil {
		t.Errorf("sources: %v %v", got[0].Source, got[1].Source)
	}
}
