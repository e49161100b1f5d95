package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/verdict"
)

// The predecessor tool kept skill-vetting/baseline.json: {"schema",
// "policy", "entries": {"<scope>|<sha256 of name>": {"digest", "status",
// "verdict"?, "provenance"?}}}. Its digests are of another encoding and can
// never match ours, so only verdicts carry over: an adverse one stays in
// force on the candidate whatever its content; a safe one becomes history,
// and the candidate must be reviewed again.

// LegacyEntry is one predecessor record.
type LegacyEntry struct {
	Key     string // "<scope>|<sha256 hex of the raw name>"
	Status  string
	Verdict string // "" when none
}

// MaxLegacySize bounds the file import reads.
const MaxLegacySize = 16 << 20

var ErrLegacy = errors.New("not a predecessor baseline")

// ParseLegacy validates a predecessor baseline. Entries it cannot use are
// returned in skipped with the reason, never silently dropped.
func ParseLegacy(b []byte) (entries []LegacyEntry, skipped map[string]string, err error) {
	var f struct {
		Schema  json.RawMessage `json:"schema"`
		Policy  json.RawMessage `json:"policy"`
		Entries map[string]struct {
			Digest     string          `json:"digest"`
			Status     string          `json:"status"`
			Verdict    *string         `json:"verdict"`
			Provenance json.RawMessage `json:"provenance"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrLegacy, err)
	}
	if f.Schema == nil || f.Entries == nil {
		return nil, nil, fmt.Errorf("%w: no schema or entries", ErrLegacy)
	}
	skipped = map[string]string{}
	for k, e := range f.Entries {
		switch {
		case !legacyKey(k):
			skipped[safeKey(k)] = "key is not <scope>|<sha256>"
		case e.Verdict != nil && !verdict.Valid(*e.Verdict):
			skipped[safeKey(k)] = "unknown verdict"
		default:
			le := LegacyEntry{Key: k, Status: e.Status}
			if e.Verdict != nil {
				le.Verdict = *e.Verdict
			}
			entries = append(entries, le)
		}
	}
	slices.SortFunc(entries, func(a, b LegacyEntry) int { return strings.Compare(a.Key, b.Key) })
	return entries, skipped, nil
}

func legacyKey(k string) bool {
	scope, sum, ok := strings.Cut(k, "|")
	if !ok || scope != string(claude.Global) && scope != string(claude.Project) || len(sum) != 64 {
		return false
	}
	_, err := hex.DecodeString(sum)
	return err == nil && strings.ToLower(sum) == sum
}

// safeKey shows a key from the file only if it is of the expected shape;
// anything else could be an attacker's text.
func safeKey(k string) string {
	if legacyKey(k) {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "(malformed key " + hex.EncodeToString(sum[:6]) + ")"
}

// LegacyKeyOf is the predecessor's key for a candidate.
func LegacyKeyOf(scope claude.Scope, name []byte) string {
	sum := sha256.Sum256(name)
	return string(scope) + "|" + hex.EncodeToString(sum[:])
}

// ErrImported means these exact bytes were imported before: a legacy
// baseline is read once and never consulted again.
var ErrImported = errors.New("this baseline was already imported")

// Import applies the predecessor's verdicts to the matched candidates.
// fileSum identifies the imported bytes.
func (t *Tx) Import(fileSum [32]byte, matches map[string][]Target, entries []LegacyEntry, at time.Time) (imported int, err error) {
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

func (t *Tx) importOne(tg Target, e LegacyEntry, at time.Time) error {
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
