package gate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
)

// halt does what auto-accept does when its rules refuse a change: the
// pending candidate is halted in the store.
func (tr *tree) halt(key, reason string) {
	tr.t.Helper()
	st := tr.store()
	defer st.Close()
	obs := tr.walk()
	must(tr.t, st.Update(func(tx *baseline.Tx) error {
		sts, err := tx.Compare(obs)
		if err != nil {
			return err
		}
		for i := range sts {
			if string(sts[i].Root.Scope)+"/"+string(sts[i].Name) == key {
				if sts[i].Status() != baseline.StatusPending {
					tr.t.Fatalf("%s is %s before the halt, not pending", key, sts[i].Status())
				}
				return tx.Reviews().Halt(&sts[i], reason, time.Now().UTC())
			}
		}
		tr.t.Fatalf("no standing %s", key)
		return nil
	}))
}

// The two states of the table's rows that only arise from the store
// (halted) or the walker's budget (partial), judged through run, the
// entry the hooks use.
func TestRunAnswersHaltedAndPartialByTheTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		row   State
		setup func(tr *tree)
		want  [3]Answer // audit, balanced, strict
		check func(t *testing.T, tr *tree, f Finding, reason string)
	}{
		{"halted", Pending, func(tr *tree) {
			states[3].setup(tr) // SAFE-reviewed, then changed: pending
			tr.halt("global/pdf", "drift beyond the bounds a person set")
		}, [3]Answer{None, Ask, Deny}, func(t *testing.T, tr *tree, f Finding, reason string) {
			st := tr.store()
			defer st.Close()
			must(t, st.View(func(tx *baseline.Tx) error {
				rec, err := tx.Record(f.Candidate.ID)
				if err != nil || rec == nil || rec.Halt == nil {
					t.Fatalf("record %+v (%v): the candidate is not halted", rec, err)
				}
				return nil
			}))
			if !strings.Contains(reason, "changed since it was reviewed SAFE") {
				t.Fatalf("reason %q", reason)
			}
		}},
		{"partial", Anomalous, func(tr *tree) {
			tr.deliver()
			p := tr.skill("user", "pdf")
			tr.record(tr.deliver()["global/pdf"], verdict.Safe)
			tr.write(filepath.Join(p, "a.txt"), strings.Repeat("a", 4096))
			tr.env.Walker.Budget = walker.Budget{MaxEntries: 1 << 20, MaxBytes: 64}
		}, [3]Answer{None, Ask, Deny}, func(t *testing.T, _ *tree, f Finding, reason string) {
			if !f.Partial {
				t.Fatalf("finding %+v is not partial", f)
			}
			if !strings.Contains(reason, "could only be partly read") {
				t.Fatalf("reason %q", reason)
			}
		}},
	} {
		for i, p := range []Policy{Audit, Balanced, Strict} {
			t.Run(tc.name+"/"+p.String(), func(t *testing.T) {
				tr := newTree(t)
				tc.setup(tr)
				tr.policy(p)
				o := run(context.Background(), Use{Kind: resolve.Skill, Name: "pdf", Event: "PreToolUse"}, tr.env, 2*time.Second)
				if o.Note != "" {
					t.Fatalf("the gate could not judge: %s", o.Note)
				}
				fs := o.Result.Findings
				if len(fs) != 1 || fs[0].State != tc.row {
					t.Fatalf("findings %+v, want one in state %s", fs, tc.row)
				}
				if o.Answer != tc.want[i] {
					t.Fatalf("answer %s under %s, want %s", o.Answer, p, tc.want[i])
				}
				ns := tr.notes(fs[0].Candidate.ID)
				gateNotes := 0
				for _, n := range ns {
					if n.Kind == baseline.NoteGateAsk || n.Kind == baseline.NoteGateDeny {
						gateNotes++
					}
				}
				if o.Answer == None {
					if gateNotes != 0 || o.Reason != "" {
						t.Fatalf("no answer, yet reason %q and notes %+v", o.Reason, ns)
					}
					return
				}
				if gateNotes != 1 {
					t.Fatalf("notes %+v, want the %s journaled once", ns, o.Answer)
				}
				tc.check(t, tr, fs[0], o.Reason)
			})
		}
	}
}
