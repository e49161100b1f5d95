// Package hookstate is what the gate's hooks keep from one hook of a session
// to a later one. Asks holds the ask at a tool call until its PostToolUse
// says the person allowed it. SessionDirs holds the folders a session added
// mid-session, which its later gate hooks judge. SessionPlugins holds the
// inline plugins a session's start observed, for its later hooks to compare.
// SessionServed holds what a session's client read of nested skills
// folders, for its uses to be judged on. Its views are reached from a store
// transaction (baseline.Tx's Asks, SessionDirs, SessionPlugins and
// SessionServed). It never reads a record.
package hookstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Asked is one candidate version the gate asked the person about.
type Asked struct {
	ID     string        `json:"id"`
	Digest snapshot.Hash `json:"digest"`
}

// Ask is the gate's ask at one tool call, kept until the call's PostToolUse
// says the person allowed it. It is bound to the session, the tool and the
// name asked about, not only the call's id. So no other call's PostToolUse
// can take it. Ids are the API's to mint, and a stream that repeats them must
// not carry an allow across.
type Ask struct {
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool"`
	Name    string    `json:"name"`
	At      time.Time `json:"at"`
	Asked   []Asked   `json:"asked"`
}

var bucketAsks = []byte("asks")

// maxAsks bounds the asks kept. Asks older than askTTL are dropped when
// another is kept. So an ask never answered leaves nothing behind for long.
const (
	maxAsks       = 256
	askTTL        = 24 * time.Hour
	maxToolUseID  = 128
	MaxSessionLen = 128 // a session id kept, at most
)

// ErrToolUseID: a tool_use_id or session id skillwire does not keep.
var ErrToolUseID = errors.New("hookstate: tool use id or session id not kept")

// ErrAskedID: an asked candidate named by other than a minted id.
var ErrAskedID = errors.New("hookstate: asked id is not a minted id")

// Asks is the gate's asks kept until the person's answer (bucket asks).
type Asks struct{ tx *bolt.Tx }

// AsksOf is the asks of tx.
func AsksOf(tx *bolt.Tx) Asks { return Asks{tx} }

func validToken(s string, n int) bool {
	return s != "" && len(s) <= n && storefile.Printable(s, n) == s
}

// askKey is where the ask at a session's tool call is kept.
func askKey(session, toolUseID string) []byte { return []byte(session + " " + toolUseID) }

// Keep keeps the gate's ask at tool call toolUseID of a.Session.
func (as Asks) Keep(toolUseID string, a Ask) error {
	if !validToken(toolUseID, maxToolUseID) || !validToken(a.Session, MaxSessionLen) || strings.Contains(a.Session, " ") {
		return ErrToolUseID
	}
	for _, x := range a.Asked {
		if !anomaly.IsID(x.ID) {
			return ErrAskedID
		}
	}
	b, err := storefile.Bucket(as.tx, bucketAsks)
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

// Take returns and forgets the ask kept at tool call toolUseID of session. It
// is nil when the gate did not ask about that call.
func (as Asks) Take(session, toolUseID string) (*Ask, error) {
	if !validToken(toolUseID, maxToolUseID) || !validToken(session, MaxSessionLen) {
		return nil, nil
	}
	b := as.tx.Bucket(bucketAsks)
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
		return nil, fmt.Errorf("%w: ask: %v", storefile.ErrCorrupt, err)
	}
	if as.tx.Writable() {
		if err := b.Delete(key); err != nil {
			return nil, err
		}
	}
	return &a, nil
}
