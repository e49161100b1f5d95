package baseline

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline/legacy"
	"github.com/skillwire/skillwire/baseline/verdict"
)

// ErrImported means these exact bytes were imported before. A legacy baseline
// is read once and never consulted again.
var ErrImported = errors.New("this baseline was already imported")

// Import applies the predecessor's verdicts to the matched candidates.
// fileSum identifies the imported bytes.
func (t *Tx) Import(fileSum [32]byte, matches map[string][]Target, entries []legacy.Entry, at time.Time) (imported int, err error) {
	meta := t.tx.Bucket(bucketMeta)
	var done []string
	if b := meta.Get(keyImported); b != nil {
		if err := json.Unmarshal(b, &done); err != nil {
			return 0, fmt.Errorf("%w: import list", ErrCorrupt)
		}
	}
	sum := hex.EncodeToString(fileSum[:])
	if slices.Contains(done, sum) {
		return 0, ErrImported
	}
	for _, e := range entries {
		for _, tg := range matches[e.Key] {
			if err := t.importOne(tg, e, at); err != nil {
				return imported, err
			}
			imported++
		}
	}
	b, err := json.Marshal(append(done, sum))
	if err != nil {
		return imported, err
	}
	return imported, meta.Put(keyImported, b)
}

func (t *Tx) importOne(tg Target, e legacy.Entry, at time.Time) error {
	rec, err := t.Record(tg.ID)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &Record{ID: tg.ID, Root: []byte(tg.Root.Path), Scope: tg.Root.Scope, Kind: tg.Root.Kind,
			Name: tg.Name, Status: StatusSeen, FirstSeen: at}
	}
	if e.Verdict != "" {
		v := Verdict{Verdict: e.Verdict, At: at, From: "import"}
		switch {
		case verdict.Adverse(e.Verdict):
			if rec.Verdict != nil {
				rec.History = append(rec.History, *rec.Verdict)
			}
			rec.Verdict = &v
			if rec.Status == StatusVetted {
				rec.Status = StatusSeen
			}
		default:
			rec.History = append(rec.History, v)
		}
	}
	rec.Updated = at
	return t.put(rec)
}
