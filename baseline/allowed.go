package baseline

import (
	"time"

	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/snapshot"
)

// Telling the model of a candidate is no review: the model is the party an
// attacker speaks to. A candidate no person decided on is asked at its first
// use. The person may allow that use, and the tool runs. The allowance is
// then kept on the record, bound to the exact bytes asked about. Later uses
// of those bytes are familiar. The ask is bound to the one tool call Claude
// Code made (its tool_use_id). So only the call the person answered can carry
// an allowance.

// Allowed is a person's allow at use of one version of a candidate.
type Allowed struct {
	Digest  snapshot.Hash `json:"digest"`
	At      time.Time     `json:"at"`
	Session string        `json:"session,omitempty"`
}

// AllowedAt reports whether a person allowed a use of r's content d.
func (r *Record) AllowedAt(d *snapshot.Hash) bool {
	return r != nil && r.Allowed != nil && d != nil && r.Allowed.Digest == *d
}

// NoteAllowed: a person allowed an asked use and the tool ran.
const NoteAllowed = "allowed-at-use"

// Allow records that a person allowed the use of id's content d in session.
// It notes it in the candidate's history. A candidate without a record (never
// delivered) keeps nothing: the next session tells it.
func (t *Tx) Allow(id string, d snapshot.Hash, session string, at time.Time) error {
	rec, err := t.Record(id)
	if err != nil || rec == nil {
		return err
	}
	rec.Allowed = &Allowed{Digest: d, At: at.UTC(), Session: printable(session, hookstate.MaxSessionLen)}
	rec.Updated = at.UTC()
	if err := t.put(rec); err != nil {
		return err
	}
	text := "allowed at use by the person"
	if rec.Allowed.Session != "" {
		text += ", session " + rec.Allowed.Session
	}
	return t.Notes().Add(Note{ID: id, Kind: NoteAllowed, At: at.UTC(), Text: text, Digest: &d})
}
