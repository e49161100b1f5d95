// Package legacy reads the predecessor tool's baseline
// (skill-vetting/baseline.json) for `skillwire import`. It validates the file
// and its keys. It never shows a key of another shape, which could be an
// attacker's text. Applying the verdicts is baseline's (Tx.Import).
package legacy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
)

// The predecessor tool kept skill-vetting/baseline.json:
//
//	{"schema", "policy", "entries": {"<scope>|<sha256 of name>":
//		{"digest", "status", "verdict"?, "provenance"?}}}
//
// Its digests are of another encoding and can never match ours. So only
// verdicts carry over. An adverse one stays in force on the candidate
// whatever its content. A safe one becomes history, and the candidate must be
// reviewed again.

// Entry is one predecessor record.
type Entry struct {
	Key     string // "<scope>|<sha256 hex of the raw name>"
	Status  string
	Verdict string // "" when none
}

// MaxSize bounds the file import reads.
const MaxSize = 16 << 20

var ErrLegacy = errors.New("not a predecessor baseline")

// Parse validates a predecessor baseline. Entries it cannot use are
// returned in skipped with the reason, never silently dropped.
func Parse(b []byte) (entries []Entry, skipped map[string]string, err error) {
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
		case !validKey(k):
			skipped[safeKey(k)] = "key is not <scope>|<sha256>"
		case e.Verdict != nil && !verdict.Valid(*e.Verdict):
			skipped[safeKey(k)] = "unknown verdict"
		default:
			le := Entry{Key: k, Status: e.Status}
			if e.Verdict != nil {
				le.Verdict = *e.Verdict
			}
			entries = append(entries, le)
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Key, b.Key) })
	return entries, skipped, nil
}

func validKey(k string) bool {
	scope, sum, ok := strings.Cut(k, "|")
	if !ok || scope != string(claude.Global) && scope != string(claude.Project) || len(sum) != 64 {
		return false
	}
	_, err := hex.DecodeString(sum)
	return err == nil && strings.ToLower(sum) == sum
}

// safeKey shows a key from the file only if it is of the expected shape.
// Anything else could be an attacker's text.
func safeKey(k string) string {
	if validKey(k) {
		return k
	}
	sum := sha256.Sum256([]byte(k))
	return "(malformed key " + hex.EncodeToString(sum[:6]) + ")"
}

// KeyOf is the predecessor's key for a candidate.
func KeyOf(scope claude.Scope, name []byte) string {
	sum := sha256.Sum256(name)
	return string(scope) + "|" + hex.EncodeToString(sum[:])
}
