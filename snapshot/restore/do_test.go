package restore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/snapshot/content"
)

// doRequest is fx's request as the command makes it for Do. It has a store
// that exists and an audit log beside it. The current candidate is left to
// Do.
func (fx *fixture) doRequest(t *testing.T) *Request {
	t.Helper()
	st, err := baseline.Open(baseline.Options{Dir: fx.state, Create: true, LockTimeout: time.Second})
	must(t, err)
	r := fx.request(t)
	r.ID, r.Current = st.ID(fx.root, []byte("s")), nil
	must(t, st.Close())
	r.LockTimeout, r.AuditLog = time.Second, filepath.Join(t.TempDir(), "audit.jsonl")
	return r
}

func yes(Preview) (bool, error) { return true, nil }

func TestNothingIsSwappedWhenConfirmSaysNo(t *testing.T) {
	stop := errors.New("pass --yes to confirm")
	for _, tc := range []struct {
		name string
		err  error
	}{{"a dry run", nil}, {"a refusal", stop}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := setup(t)
			before := digestAt(t, fx.root, "s")
			r := fx.doRequest(t)
			var shown Preview
			o, err := Do(context.Background(), r, func(p Preview) (bool, error) { shown = p; return false, tc.err })
			if err != tc.err || o.Result != nil || o.Already {
				t.Fatalf("Do = %+v, %v; want nothing done and confirm's error %v", o, err, tc.err)
			}
			if shown.Current == nil || shown.Current.Digest != before || len(shown.Files) == 0 {
				t.Fatalf("the preview %+v is not of the candidate now", shown)
			}
			if digestAt(t, fx.root, "s") != before {
				t.Fatal("the candidate was exchanged")
			}
			if left, _ := filepath.Glob(filepath.Join(fx.root, StagePrefix+"*")); len(left) > 0 {
				t.Fatalf("staging written: %v", left)
			}
			if _, err := os.Stat(r.AuditLog); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the audit log was written: %v", err)
			}
		})
	}
}

func TestARefusedOrFinishedRestoreIsNeverPreviewed(t *testing.T) {
	t.Run("the candidate changed since the preview the person saw", func(t *testing.T) {
		fx := setup(t)
		r := fx.doRequest(t)
		r.Expect = &fx.target.Digest
		_, err := Do(context.Background(), r, func(Preview) (bool, error) { t.Fatal("confirm was asked"); return false, nil })
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("Do = %v, want %v", err, ErrChanged)
		}
	})
	t.Run("the candidate already is the target", func(t *testing.T) {
		fx := setup(t)
		r := fx.doRequest(t)
		_, err := Do(context.Background(), r, yes)
		must(t, err)
		o, err := Do(context.Background(), r, func(Preview) (bool, error) { t.Fatal("confirm was asked"); return false, nil })
		if err != nil || !o.Already || o.Result != nil {
			t.Fatalf("Do = %+v, %v", o, err)
		}
	})
}

func TestTheDisplacedContentIsKeptBeforeTheSwap(t *testing.T) {
	fx := setup(t)
	r := fx.doRequest(t)
	var kept, files int
	defer onStep(StepStaged, func() {
		cs, err := content.Open(fx.state, content.Options{})
		must(t, err)
		defer cs.Close()
		for _, e := range r.Current.Manifest.Entries {
			if e.Kind == snapshot.File {
				files++
				if cs.Has(e.Hash) {
					kept++
				}
			}
		}
	})()
	o, err := Do(context.Background(), r, yes)
	must(t, err)
	if o.Result == nil || !o.Result.Verified || files == 0 || kept != files {
		t.Fatalf("%d of the displaced tree's %d files kept before the exchange (%+v)", kept, files, o)
	}
}

func TestTheAuditEntryIsWrittenAfterTheRecord(t *testing.T) {
	t.Run("recorded, then audited", func(t *testing.T) {
		fx := setup(t)
		r := fx.doRequest(t)
		o, err := Do(context.Background(), r, yes)
		must(t, err)
		if o.StoreErr != nil || o.AuditErr != nil || o.Result == nil || !o.Result.Verified {
			t.Fatalf("%+v", o)
		}
		st, err := baseline.Open(baseline.Options{Dir: fx.state, ReadOnly: true, LockTimeout: time.Second})
		must(t, err)
		defer st.Close()
		must(t, st.View(func(tx *baseline.Tx) error {
			rec, err := tx.Record(r.ID)
			if rec == nil || rec.Digest == nil || *rec.Digest != fx.target.Digest {
				t.Fatalf("record %+v: the restore is not recorded", rec)
			}
			return err
		}))
		if b, err := os.ReadFile(r.AuditLog); err != nil || len(b) == 0 {
			t.Fatalf("audit log %q, %v", b, err)
		}
	})
	t.Run("a store that cannot be updated: exchanged, never audited", func(t *testing.T) {
		fx := setup(t)
		r := fx.doRequest(t)
		held, err := baseline.Open(baseline.Options{Dir: fx.state, LockTimeout: time.Second})
		must(t, err)
		defer held.Close()
		r.LockTimeout = 50 * time.Millisecond
		o, err := Do(context.Background(), r, yes)
		if err != nil {
			t.Fatalf("after the exchange Do must return an outcome, not %v", err)
		}
		if o.Result == nil || o.StoreErr == nil || digestAt(t, fx.root, "s") != fx.target.Digest {
			t.Fatalf("%+v: want the exchange made and the store's failure said", o)
		}
		if _, err := os.Stat(r.AuditLog); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("audited without a record: %v", err)
		}
	})
	t.Run("an exchange that is not the target: noted, never audited", func(t *testing.T) {
		fx := setup(t)
		r := fx.doRequest(t)
		defer onStep(StepStaged, func() {
			must(t, os.WriteFile(filepath.Join(stageOf(t, fx.root), "SKILL.md"), []byte("swapped in by a writer\n"), 0o644))
		})()
		o, err := Do(context.Background(), r, yes)
		must(t, err)
		if o.Result == nil || o.Result.Verified || o.StoreErr != nil {
			t.Fatalf("%+v", o)
		}
		if _, err := os.Stat(r.AuditLog); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("an unverified restore was audited: %v", err)
		}
	})
}
