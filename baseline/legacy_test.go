package baseline

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/legacy"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

func TestImportCarriesAdverseVerdictsAndDemotesSafeOnes(t *testing.T) {
	st, _ := openNew(t)
	w := newWorld(t)
	w.write("bad/f", "x")
	w.write("good/f", "y")
	roots := walker.Discover([]walker.RootSpec{w.root.Spec()}, walker.DefaultConfig())
	matches := map[string][]Target{}
	for _, c := range roots[0].Candidates {
		k := legacy.KeyOf(claude.Global, c.Name)
		matches[k] = append(matches[k], Target{ID: st.ID(w.root.Path, c.Name), Root: w.root, Name: c.Name})
	}
	file := `{"schema": 3, "policy": "p", "entries": {
		"` + legacy.KeyOf(claude.Global, []byte("bad")) + `": {"digest": "sha256:00", "status": "vetted", "verdict": "BLOCK"},
		"` + legacy.KeyOf(claude.Global, []byte("good")) + `": {"digest": "sha256:01", "status": "vetted", "verdict": "SAFE-TO-PROPOSE"},
		"` + legacy.KeyOf(claude.Global, []byte("gone")) + `": {"digest": "sha256:02", "status": "seen"},
		"world|$(rm -rf ~)": {"digest": "x", "status": "seen"},
		"` + legacy.KeyOf(claude.Project, []byte("p")) + `": {"digest": "d", "status": "seen", "verdict": "MAYBE"}}}`
	entries, skipped, err := legacy.Parse([]byte(file))
	must(t, err)
	if len(entries) != 3 || len(skipped) != 2 {
		t.Fatalf("entries %d, skipped %v", len(entries), skipped)
	}
	for k := range skipped {
		if strings.Contains(k, "$(") {
			t.Fatalf("a malformed key is shown raw: %q", k)
		}
	}
	sum := sha256.Sum256([]byte(file))
	var n int
	must(t, st.Update(func(tx *Tx) (err error) { n, err = tx.Import(sum, matches, entries, time.Now().UTC()); return }))
	if n != 2 {
		t.Fatalf("imported %d", n)
	}
	var rep Report
	must(t, st.View(func(tx *Tx) (err error) { rep, err = tx.Report(); return }))
	if len(rep.Adverse) != 1 || string(rep.Adverse[0].Name) != "bad" || len(rep.Unvetted) != 1 || len(rep.Safe) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if h := rep.Unvetted[0].History; len(h) != 1 || h[0].Verdict != verdict.Safe || h[0].From != "import" {
		t.Fatalf("safe verdict not kept as history: %+v", h)
	}
	// Read once: the same bytes are refused the second time.
	err = st.Update(func(tx *Tx) error { _, err := tx.Import(sum, matches, entries, time.Now()); return err })
	if !errors.Is(err, ErrImported) {
		t.Fatalf("second import: %v", err)
	}
	// The imported BLOCK applies whatever the content becomes.
	w.write("bad/f", "changed")
	if v := compare(t, st, w.observe(walker.DefaultConfig()))["bad"].Verdict; v == nil || v.Verdict != verdict.Block {
		t.Fatal("imported BLOCK does not apply to the candidate")
	}
}

func TestParseLegacyRefusesOtherFiles(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"entries": {}}`, `{"schema": 1}`, `not json`} {
		if _, _, err := legacy.Parse([]byte(b)); !errors.Is(err, legacy.ErrLegacy) {
			t.Errorf("%q: %v", b, err)
		}
	}
}
