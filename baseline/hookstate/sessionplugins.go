package hookstate

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// Claude Code reads the folders given with --plugin-dir once, at its start.
// It serves an inline plugin over an installed one of its name. skillwire
// reads those folders again at every hook. So the SessionStart hook keeps
// here, by session, the inline plugins it observed. A later hook then knows a
// plugin renamed, removed or unreadable since. The name the client still
// serves is no longer among those observed. An installed plugin of that name
// must not answer for it.

// StartPlugins are the inline plugins one session's start observed.
type StartPlugins struct {
	// Kept: a start of the session was kept (the zero value is none).
	Kept  bool     `json:"kept"`
	Names []string `json:"names,omitempty"`
	// Unknown: the start observed a plugin it could not name, or more than
	// MaxSessionPlugins. Or it observed a name skillwire does not keep.
	Unknown bool      `json:"unknown,omitempty"`
	At      time.Time `json:"at"`
}

// MaxSessionPlugins bounds the names kept per session. Past it the session's
// inline plugins are Unknown.
const (
	MaxSessionPlugins = 32
	maxPluginNameLen  = 512
)

// Missing reports whether a plugin the start observed may be served under a
// name not in now. Now is the inline plugins' names observed at this hook. A
// plugin is missing when renamed, removed or unreadable since, or when the
// start could not name it.
func (p StartPlugins) Missing(now []string) bool {
	return p.Unknown || slices.ContainsFunc(p.Names, func(n string) bool { return !slices.Contains(now, n) })
}

var bucketSessionPlugins = []byte("session-plugins")

// SessionPlugins is the inline plugins sessions' starts observed (bucket
// session-plugins).
type SessionPlugins struct{ tx *bolt.Tx }

// SessionPluginsOf is the sessions' start plugins of tx.
func SessionPluginsOf(tx *bolt.Tx) SessionPlugins { return SessionPlugins{tx} }

// Of is what session's start observed. Kept is false when nothing was kept,
// or the session id is not one skillwire keeps. A record let go is Unknown.
func (sp SessionPlugins) Of(session string) (StartPlugins, error) {
	return sessionRecord(sp.tx, bucketSessionPlugins, session, "session plugins",
		func(p *StartPlugins) bool { return p.Kept && len(p.Names) <= MaxSessionPlugins }, StartPlugins{Kept: true, Unknown: true})
}

// Keep adds names (the inline plugins a start of session observed) to those
// kept for it. unknown marks the session Unknown. A start again in the same
// session (a /clear, a compaction, a resume) never drops a name kept. The
// client still serves the plugins it read at its first start. A name is kept
// when it is printable UTF-8 of at most 512 bytes. One that is not, or is
// past MaxSessionPlugins, marks the session Unknown.
func (sp SessionPlugins) Keep(session string, names []string, unknown bool, now time.Time) (StartPlugins, error) {
	if !validToken(session, MaxSessionLen) {
		return StartPlugins{}, ErrToolUseID
	}
	p, err := sp.Of(session)
	if errors.Is(err, storefile.ErrCorrupt) {
		p, err = StartPlugins{Unknown: true}, nil // what was kept is not known
	}
	if err != nil {
		return StartPlugins{}, err
	}
	b, err := storefile.Bucket(sp.tx, bucketSessionPlugins)
	if err != nil {
		return StartPlugins{}, err
	}
	if err := pruneSessions(b, bucketSessionPlugins, session, now); err != nil {
		return StartPlugins{}, err
	}
	p.Kept, p.At = true, now
	p.Unknown = p.Unknown || unknown
	for _, n := range names {
		switch {
		case slices.Contains(p.Names, n):
		case !validToken(n, maxPluginNameLen), len(p.Names) == MaxSessionPlugins:
			p.Unknown = true
		default:
			p.Names = append(p.Names, n)
		}
	}
	v, err := json.Marshal(p)
	if err != nil {
		return StartPlugins{}, err
	}
	return p, b.Put([]byte(session), v)
}
