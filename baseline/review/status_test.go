package review

import (
	"context"
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
