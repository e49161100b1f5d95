package hookstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillwire/skillwire/baseline/internal/storefile"
	bolt "go.etcd.io/bbolt"
)

// A folder a person adds mid-session (/add-dir) is on no command line and in
// no environment. So its DirectoryAdded hook keeps it here, by session. The
// session's next gate hook then judges the names served from it. A folder
// that could not be kept marks the session as having folders skillwire cannot
// observe.

// SessionFolders are the folders one session added mid-session.
type SessionFolders struct {
	Dirs []string `json:"dirs,omitempty"`
	// Unknown, in fixed words, is why a folder the session added is not among
	// Dirs. It is "" when every one is.
	Unknown string    `json:"unknown,omitempty"`
	At      time.Time `json:"at"`
}

// Bounds of the folders kept: per session (past it the session is Unknown),
// sessions kept (the oldest dropped), and their age.
const (
	MaxSessionDirs = 32
	maxSessions    = 256
	sessionTTL     = 30 * 24 * time.Hour
	maxDirLen      = 4096
	maxUnknownLen  = 256
)

// UnknownTooMany is a session's Unknown past MaxSessionDirs.
const UnknownTooMany = "more folders were added than skillwire keeps"

// UnknownLetGo is a session's Unknown when its record was let go: too
// many sessions since, or too long ago.
const UnknownLetGo = "skillwire let go what it kept of this session: too many sessions since, or too long ago"

// ErrSessionDir: a folder or reason skillwire does not keep. A folder is kept
// as an absolute UTF-8 path of at most 4096 bytes, without NUL. A reason must
// be printable.
var ErrSessionDir = errors.New("hookstate: session folder not kept")

var bucketSessionDirs = []byte("session-dirs")

// SessionDirs is the folders sessions added mid-session (bucket
// session-dirs).
type SessionDirs struct{ tx *bolt.Tx }

// SessionDirsOf is the sessions' added folders of tx.
func SessionDirsOf(tx *bolt.Tx) SessionDirs { return SessionDirs{tx} }

// Of is what session added; the zero value when nothing.
func (sd SessionDirs) Of(session string) (SessionFolders, error) {
	return sessionRecord(sd.tx, bucketSessionDirs, session, "session folders",
		func(f *SessionFolders) bool { return len(f.Dirs) <= MaxSessionDirs }, SessionFolders{Unknown: UnknownLetGo})
}

// sessionRecord is session's record in bucket, decoded strictly and checked
// by ok. It is the zero value when there is none, or the session id is not
// one skillwire keeps; gone when it was let go (letgo.go). It is storefile.ErrCorrupt, naming what, when it does
// not decode or ok refuses it.
func sessionRecord[T any](tx *bolt.Tx, bucket []byte, session, what string, ok func(*T) bool, gone T) (T, error) {
	var rec T
	if !validToken(session, MaxSessionLen) {
		return rec, nil
	}
	var v []byte
	if b := tx.Bucket(bucket); b != nil {
		v = b.Get([]byte(session))
	}
	if v == nil {
		if letGo(tx, bucket, session) {
			return gone, nil
		}
		return rec, nil
	}
	if err := storefile.DecodeStrict(v, &rec); err != nil || !ok(&rec) {
		var zero T
		return zero, fmt.Errorf("%w: %s", storefile.ErrCorrupt, what)
	}
	return rec, nil
}

// Add keeps dir for session: once, and past MaxSessionDirs the session is
// Unknown instead.
func (sd SessionDirs) Add(session, dir string, now time.Time) (SessionFolders, error) {
	if !strings.HasPrefix(dir, "/") || len(dir) > maxDirLen || !utf8.ValidString(dir) || strings.IndexByte(dir, 0) >= 0 {
		return SessionFolders{}, ErrSessionDir
	}
	return sd.update(session, now, func(f *SessionFolders) {
		switch {
		case slices.Contains(f.Dirs, dir):
		case len(f.Dirs) == MaxSessionDirs:
			if f.Unknown == "" {
				f.Unknown = UnknownTooMany
			}
		default:
			f.Dirs = append(f.Dirs, dir)
		}
	})
}

// MarkUnknown marks session as having added a folder skillwire could not
// keep. Why is in fixed words.
func (sd SessionDirs) MarkUnknown(session, why string, now time.Time) (SessionFolders, error) {
	if why == "" || len(why) > maxUnknownLen || storefile.Printable(why, maxUnknownLen) != why {
		return SessionFolders{}, ErrSessionDir
	}
	return sd.update(session, now, func(f *SessionFolders) {
		if f.Unknown == "" {
			f.Unknown = why
		}
	})
}

func (sd SessionDirs) update(session string, now time.Time, change func(*SessionFolders)) (SessionFolders, error) {
	if !validToken(session, MaxSessionLen) {
		return SessionFolders{}, ErrToolUseID
	}
	f, err := sd.Of(session)
	if err != nil {
		return SessionFolders{}, err
	}
	b, err := storefile.Bucket(sd.tx, bucketSessionDirs)
	if err != nil {
		return SessionFolders{}, err
	}
	if err := pruneSessions(b, bucketSessionDirs, session, now); err != nil {
		return SessionFolders{}, err
	}
	change(&f)
	f.At = now
	v, err := json.Marshal(f)
	if err != nil {
		return SessionFolders{}, err
	}
	return f, b.Put([]byte(session), v)
}

// recordAt is the "at" of a session record, read up to that key: a
// record that puts it first (Served does) is not read whole. ok is false
// when it cannot be read.
func recordAt(v []byte) (at time.Time, ok bool) {
	// Every record written now starts with its "at": that string is read
	// as the decoder reads it (time.Time's UnmarshalJSON), with no
	// decoder. Each put prunes up to maxSessions records, and a session
	// start puts twice: a decoder a record was a tenth of its work (issue
	// 34). An escape, or any other shape, is the decoder's.
	if rest, found := bytes.CutPrefix(v, []byte(`{"at":"`)); found {
		if n := bytes.IndexByte(rest, '"'); n >= 0 && bytes.IndexByte(rest[:n], '\\') < 0 {
			err := at.UnmarshalJSON(v[len(`{"at":`) : len(`{"at":"`)+n+1])
			return at, err == nil
		}
	}
	return decodedAt(v)
}

// decodedAt is recordAt through a JSON decoder, up to the key.
func decodedAt(v []byte) (at time.Time, ok bool) {
	d := json.NewDecoder(bytes.NewReader(v))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return time.Time{}, false
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return time.Time{}, false
		}
		if k == "at" {
			return at, d.Decode(&at) == nil
		}
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

// pruneSessions drops the sessions of bucket b (session-dirs or
// session-plugins) older than sessionTTL. It drops the oldest while
// maxSessions others than keep are kept. A session that cannot be read goes
// first: until then it is kept like the others. Each session dropped is
// marked let go from the bucket named name (markLetGo).
func pruneSessions(b *bolt.Bucket, name []byte, keep string, now time.Time) error {
	type kept struct {
		key string
		at  time.Time
	}
	var ks []kept
	var old [][]byte
	// Deleted after the walk: a bbolt cursor's Next after its Delete skips
	// the following entry. That would keep every other old session.
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		at, ok := recordAt(v)
		switch {
		case ok && now.Sub(at) > sessionTTL:
			old = append(old, slices.Clone(k))
		case string(k) != keep:
			ks = append(ks, kept{string(k), at})
		}
	}
	slices.SortFunc(ks, func(a, b kept) int { return a.at.Compare(b.at) })
	for len(ks) >= maxSessions {
		old = append(old, []byte(ks[0].key))
		ks = ks[1:]
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return markLetGo(b.Tx(), name, old)
}
