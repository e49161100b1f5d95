package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/snapshot"
)

// Telling the model of a candidate is no review: the model is the party an
// attacker speaks to. A candidate no person decided on is asked at its
// first use; when the person allows that use and the tool runs, the
// allowance is kept on the record, bound to the exact bytes asked about,
// and later uses of those bytes are familiar. The ask is bound to the one
// tool call Claude Code made (its tool_use_id), so only the call the
// person answered can carry an allowance.

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

// Asked is one candidate version the gate asked the person about.
type Asked struct {
	ID     string        `json:"id"`
	Digest snapshot.Hash `json:"digest"`
}

// Ask is the gate's ask at one tool call, kept until the call's
// PostToolUse says the person allowed it: bound to the session, the tool
// and the name asked about as well as the call's id, so that no other
// call's PostToolUse can take it (ids are the API's to mint, and a stream
// that repeats them must not carry an allow across).
type Ask struct {
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool"`
	Name    string    `json:"name"`
	At      time.Time `json:"at"`
	Asked   []Asked   `json:"asked"`
}

// NoteAllowed: a person allowed an asked use and the tool ran.
const NoteAllowed = "allowed-at-use"

var bucketAsks = []byte("asks")

// maxAsks bounds the asks kept; asks older than askTTL are dropped when
// another is kept (an ask never answered leaves nothing behind for long).
const (
	maxAsks       = 256
	askTTL        = 24 * time.Hour
	maxToolUseID  = 128
	maxSessionLen = 128
)

// ErrToolUseID: a tool_use_id or session id skillwire does not keep.
var ErrToolUseID = errors.New("baseline: tool use id or session id not kept")

func validToken(s string, n int) bool {
	return s != "" && len(s) <= n && printable(s, n) == s
}

// askKey is where the ask at a session's tool call is kept.
func askKey(session, toolUseID string) []byte { return []byte(session + " " + toolUseID) }

// Keep keeps the gate's ask at tool call toolUseID of a.Session.
func (as Asks) Keep(toolUseID string, a Ask) error {
	if !validToken(toolUseID, maxToolUseID) || !validToken(a.Session, maxSessionLen) || strings.Contains(a.Session, " ") {
		return ErrToolUseID
	}
	for _, x := range a.Asked {
		if !anomaly.IsID(x.ID) {
			return fmt.Errorf("%w: asked id", ErrNote)
		}
	}
	b, err := as.t.bucket(bucketAsks)
	if err != nil {
		return err
	}
	// Drop the stale, then the oldest past the bound.
	var keys [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var old Ask
		if json.Unmarshal(v, &old) != nil || a.At.Sub(old.At) > askTTL {
			if err := c.Delete(); err != nil {
				return err
			}
			continue
		}
		keys = append(keys, append([]byte(nil), k...))
	}
	if len(keys) >= maxAsks {
		oldest, at := keys[0], time.Time{}
		for _, k := range keys {
			var old Ask
			if json.Unmarshal(b.Get(k), &old) == nil && (at.IsZero() || old.At.Before(at)) {
				oldest, at = k, old.At
			}
		}
		if err := b.Delete(oldest); err != nil {
			return err
		}
	}
	v, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return b.Put(askKey(a.Session, toolUseID), v)
}

// Take returns and forgets the ask kept at tool call toolUseID of
// session; nil when there is none (the gate did not ask about that call).
func (as Asks) Take(session, toolUseID string) (*Ask, error) {
	if !validToken(toolUseID, maxToolUseID) || !validToken(session, maxSessionLen) {
		return nil, nil
	}
	b := as.t.tx.Bucket(bucketAsks)
	if b == nil {
		return nil, nil
	}
	key := askKey(session, toolUseID)
	v := b.Get(key)
	if v == nil {
		return nil, nil
	}
	var a Ask
	if err := json.Unmarshal(v, &a); err != nil {
		return nil, fmt.Errorf("%w: ask: %v", ErrCorrupt, err)
	}
	if as.t.tx.Writable() {
		if err := b.Delete(key); err != nil {
			return nil, err
		}
	}
	return &a, nil
}

// Allow records that a person allowed the use of id's content d in
// session, and notes it in the candidate's history. A candidate without a
// record (never delivered) keeps nothing: the next session tells it.
func (t *Tx) Allow(id string, d snapshot.Hash, session string, at time.Time) error {
	rec, err := t.Record(id)
	if err != nil || rec == nil {
		return err
	}
	rec.Allowed = &Allowed{Digest: d, At: at.UTC(), Session: printable(session, maxSessionLen)}
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
