package review

import (
	"context"
	"strings"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

func (w world) status() Status {
	o := w.store
	o.Create, o.ReadOnly = false, true
	return Report(StatusConfig{Store: o, Roots: []claude.Root{w.root}, Gate: 20, Limits: walker.DefaultLimits,
		Audit: func() ([]reconcile.Source, string) { return nil, "" }})
}

// An absent store has recorded nothing: that is no finding.
func TestAnAbsentStoreIsNoFinding(t *testing.T) {
	s := newWorld(t).status()
	if s.Health != baseline.Absent || s.Err == nil || s.Finding() {
		t.Fatalf("health %s, err %v, finding %v", s.Health, s.Err, s.Finding())
	}
}

func TestAnAdverseVerdictIsAStatusFinding(t *testing.T) {
	w := newWorld(t)
	if _, err := Record(context.Background(), w.request(verdict.Block, nil)); err != nil {
		t.Fatal(err)
	}
	s := w.status()
	if s.Health != baseline.OK || len(s.Adverse) != 1 || !s.Finding() {
		t.Fatalf("health %s, adverse %d, finding %v", s.Health, len(s.Adverse), s.Finding())
	}
}

func TestAVettedCandidateIsNoFinding(t *testing.T) {
	w := newWorld(t)
	if _, err := Record(context.Background(), w.request(verdict.Safe, w.digest(t))); err != nil {
		t.Fatal(err)
	}
	if s := w.status(); len(s.Safe) != 1 || s.Finding() {
		t.Fatalf("safe %d, finding %v", len(s.Safe), s.Finding())
	}
}

// The anomalous are listed again together, each once, and a removed
// candidate's last anomalies are not its own now.
func TestAnomalousListsEachRecordOnceAndNoneRemoved(t *testing.T) {
	a := &baseline.Record{ID: "a", Anomalies: []anomaly.Reason{1}}
	s := Status{Report: baseline.Report{Pending: []*baseline.Record{a}, Adverse: []*baseline.Record{a},
		Safe: []*baseline.Record{{ID: "gone", Removed: true, Anomalies: []anomaly.Reason{1}}, {ID: "clean"}}}}
	got := s.Anomalous()
	if len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("anomalous %v", got)
	}
}

// A mod on disk is a status finding even with no store: a mute mod keeps
// every session start from recording it. A plugin folder not observed
// whole may hide one: that is a finding too, as is a running session's
// plugin folder that could not be read (issue 32). Controls: a plugin without
// modules, and a skills root of no plugin kind.
func TestAModOrAPluginNotSeenWholeIsAStatusFinding(t *testing.T) {
	mod := walker.Candidate{Name: []byte("pd"), Canonical: []byte(`{"hooksModules":[{"file":"hooks/hooks.json","modules":["./r.js"]}]}`)}
	plain := walker.Candidate{Name: []byte("pd"), Canonical: []byte(`{}`)}
	partial := walker.Candidate{Name: []byte("pd")}
	partial.Manifest.Partial = true
	for _, tc := range []struct {
		name    string
		kind    claude.Kind
		c       walker.Candidate
		mods    int
		finding bool
	}{
		{"a mod", claude.Skills, mod, 1, true},
		{"a plugin not seen whole", claude.Plugins, partial, 0, true},
		{"control: no modules", claude.Skills, plain, 0, false},
		{"control: agents hold no plugin", claude.Agents, mod, 0, false},
		{"a running session's plugin folders not all read", claude.Agents, plain, 0, true},
	} {
		w := newWorld(t)
		o := w.store
		o.ReadOnly = true
		obs := []baseline.Observation{{Root: claude.Root{Path: "/r", Kind: tc.kind}, Walk: &walker.Root{Candidates: []walker.Candidate{tc.c}}}}
		unseen := ""
		if strings.HasPrefix(tc.name, "a running session") {
			unseen = "a running client's command line or environment could not be read"
		}
		s := Report(StatusConfig{Store: o, Gate: 1, Observe: func() []baseline.Observation { return obs }, ModsUnseen: unseen})
		if len(s.Mods) != tc.mods || s.Finding() != tc.finding {
			t.Errorf("%s: %d mods, finding %v; want %d, %v", tc.name, len(s.Mods), s.Finding(), tc.mods, tc.finding)
		}
	}
}
