package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
)

// Status is how a candidate came to be known.
type Status string

const (
	// StatusBaseline: accepted on first use, when the store was created.
	StatusBaseline Status = "baseline"
	// StatusSeen: observed and delivered, but no verdict applies to it.
	StatusSeen Status = "seen"
	// StatusVetted: a verdict is bound to exactly its current digest.
	StatusVetted Status = "vetted"
	// StatusPending is derived, never stored. A SAFE review exists, the
	// content now differs from it, and no adverse verdict is in force.
	StatusPending Status = "pending"
	// StatusHalted is derived, never stored: pending, and auto-accept
	// refused the change (Record.Halt says why).
	StatusHalted Status = "halted"
)

// Verdict is a human's judgement bound to a digest. Digest is nil when the
// tree had no complete digest (an adverse verdict on a partial tree). The
// verdict then applies to the candidate, whatever its content.
type Verdict struct {
	Verdict  string         `json:"verdict"`
	Digest   *snapshot.Hash `json:"digest"`
	Reviewer string         `json:"reviewer,omitempty"`
	At       time.Time      `json:"at"`
	// From is set when the verdict was inherited from another candidate with
	// the same content. It is "import" when imported.
	From string `json:"from,omitempty"`
}

// Record is everything the store keeps about one candidate.
type Record struct {
	ID string `json:"id"`
	// Root is the root's path, kept as raw bytes (base64 in JSON). So a
	// non-UTF-8 project path survives a round trip exactly.
	Root  []byte       `json:"root"`
	Scope claude.Scope `json:"scope"`
	Kind  claude.Kind  `json:"kind"`
	Name  []byte       `json:"name"` // raw bytes (base64 in JSON)
	// Digest and Anomalies are the last observation delivered to the user.
	// Digest is nil until a complete observation was delivered.
	Digest    *snapshot.Hash   `json:"digest"`
	Anomalies []anomaly.Reason `json:"anomalies,omitempty"`
	// Observed is when Digest and the stored manifest were delivered.
	Observed time.Time `json:"observed"`
	Status   Status    `json:"status"`
	// Removed: the candidate was gone at the last delivered observation.
	Removed bool `json:"removed,omitempty"`
	// Verdict is the verdict in force. History holds the ones it replaced, or
	// that stopped applying when the content changed.
	Verdict   *Verdict  `json:"verdict,omitempty"`
	History   []Verdict `json:"history,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	Updated   time.Time `json:"updated"`
	// Review is the last SAFE verdict, kept across content changes. It is
	// what a person (or "auto:SOURCE") vouched for. So a later change stays
	// pending until someone acts.
	Review *Verdict `json:"review,omitempty"`
	// Halt is set when auto-accept refused a change; only a recorded
	// verdict clears it.
	Halt *Halt `json:"halt,omitempty"`
	// Auto is what auto-accept has accepted since the last human verdict.
	Auto *Auto `json:"auto,omitempty"`
	// Renamed is set when the review was carried over from a removed
	// candidate this one replaced. It is pending until a person acts.
	Renamed *Renamed `json:"renamed,omitempty"`
	// Allowed is a person's allow at use of one version (AllowedAt).
	Allowed *Allowed `json:"allowed,omitempty"`
	// Told counts the sessions told of the pending change since ToldSince.
	Told      int       `json:"told,omitempty"`
	ToldSince time.Time `json:"told_since,omitzero"`
}

// Auto bounds auto-accept between two human verdicts.
type Auto struct {
	// HumanWords is the word count of the version a person reviewed.
	HumanWords int `json:"human_words"`
	// Drift is the drift, in words, accepted since that review.
	Drift int `json:"drift"`
	// Replaced are the digests auto-accepts moved the review away from.
	// Content returning to one of them is a contradiction (a reversal).
	Replaced []snapshot.Hash `json:"replaced"`
	// ReplacedContent are the same versions' content identities
	// (reconcile.ContentIdentity): a reversal is one even after a chmod.
	ReplacedContent []snapshot.Hash `json:"replaced_content,omitempty"`
	// Untold is the last auto-accept's text until a session that names it is
	// delivered (MarkAutoTold). A held-over or undelivered advisory leaves it
	// to be told next time.
	Untold string `json:"untold,omitempty"`
}

// maxReplaced bounds Auto.Replaced and ReplacedContent; the oldest go first.
const maxReplaced = 64

// Halt is auto-accept's refusal of a change, in one line.
type Halt struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// maxRecord bounds a stored record; history is capped below it.
const (
	maxRecord  = 1 << 20
	maxHistory = 64
)

var errRecord = errors.New("baseline: invalid record")

func encodeRecord(r *Record) ([]byte, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	if len(r.History) > maxHistory {
		r.History = r.History[len(r.History)-maxHistory:]
	}
	return json.Marshal(r)
}

// decodeRecord is strict: unknown fields, trailing data and invalid values
// are refused. So a tampered or damaged record is reported, never half-used.
func decodeRecord(b []byte) (*Record, error) {
	if len(b) > maxRecord {
		return nil, fmt.Errorf("%w: too large", errRecord)
	}
	var r Record
	if err := decodeStrict(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", errRecord, err)
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

func (r *Record) validate() error {
	switch {
	case !anomaly.IsID(r.ID):
		return fmt.Errorf("%w: id", errRecord)
	case len(r.Root) == 0:
		return fmt.Errorf("%w: root", errRecord)
	case !r.Scope.Valid():
		return fmt.Errorf("%w: scope", errRecord)
	case !r.Kind.Valid():
		return fmt.Errorf("%w: kind", errRecord)
	case !claude.ValidName(r.Kind, r.Name):
		return fmt.Errorf("%w: name", errRecord)
	case r.Status != StatusBaseline && r.Status != StatusSeen && r.Status != StatusVetted:
		return fmt.Errorf("%w: status", errRecord)
	case r.Status == StatusVetted && (r.Verdict == nil || r.Verdict.Digest == nil || r.Digest == nil || *r.Verdict.Digest != *r.Digest):
		return fmt.Errorf("%w: vetted without a verdict on its digest", errRecord)
	}
	for _, a := range r.Anomalies {
		if !a.Valid() {
			return fmt.Errorf("%w: anomaly", errRecord)
		}
	}
	if r.Review != nil && (r.Review.Verdict != verdict.Safe || r.Review.Digest == nil) {
		return fmt.Errorf("%w: review", errRecord)
	}
	if r.Halt != nil && (r.Review == nil || r.Halt.Reason == "" || printable(r.Halt.Reason, maxNoteText) != r.Halt.Reason) || r.Told < 0 {
		return fmt.Errorf("%w: halt", errRecord)
	}
	if r.Renamed != nil && (r.Review == nil || !anomaly.IsID(r.Renamed.From) || len(r.Renamed.Name) == 0) {
		return fmt.Errorf("%w: renamed", errRecord)
	}
	if r.Auto != nil && (r.Review == nil || r.Auto.HumanWords < 0 || r.Auto.Drift < 0) {
		return fmt.Errorf("%w: auto", errRecord)
	}
	if r.Verdict != nil && !verdict.Valid(r.Verdict.Verdict) {
		return fmt.Errorf("%w: verdict", errRecord)
	}
	for _, v := range r.History {
		if !verdict.Valid(v.Verdict) {
			return fmt.Errorf("%w: history", errRecord)
		}
	}
	return nil
}

// SanitizeReviewer keeps printable ASCII only, at most 200 characters. The
// reviewer text is shown back to people and to the model.
func SanitizeReviewer(s string) string {
	b := make([]byte, 0, min(len(s), 200))
	for i := 0; i < len(s) && len(b) < 200; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '`' && c != '$' {
			b = append(b, c)
		}
	}
	return string(b)
}

// decodeStrict decodes exactly one JSON value with no unknown fields and no
// trailing data.
func decodeStrict(b []byte, v any) error { return storefile.DecodeStrict(b, v) }
