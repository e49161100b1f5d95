package hookstate

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline/internal/storefile"
	"github.com/skillwire/skillwire/snapshot"
	bolt "go.etcd.io/bbolt"
)

// Claude Code reads a nested skills folder (sub/.claude/skills) when a Read,
// Edit or Write first touches a file below sub/. It reads it again before its
// next request, and then never again in the session. It serves that copy
// (pinned by e2e/served_test.go). The gate judges the disk at a use. So the
// PostToolUse of the touching call keeps here, by session, what each skill of
// the folder was then: its digest and the stamp of its files. A use is judged
// on that copy. A stamp moved since means the skill was written after the
// client read it, even if its bytes were put back.

// ServedSkill is one skill of a folder as the client read it.
type ServedSkill struct {
	ID string `json:"id"`
	// Digest is nil when the skill could not be read whole.
	Digest *snapshot.Hash `json:"digest,omitempty"`
	// Stamp is the identity of its files (device, inode, size, mode, times)
	// taken before the digest was. Any write moves it.
	Stamp snapshot.Hash `json:"stamp"`
	// Racy: a file was written too close to the stamp. A write in the same
	// clock tick would leave the stamp as it was.
	Racy bool `json:"racy,omitempty"`
}

// ServedFolder is one nested skills folder the session's client read.
type ServedFolder struct {
	Path   string        `json:"path"`
	Skills []ServedSkill `json:"skills,omitempty"`
	// Unknown, in fixed words, is why what the folder held is not all kept.
	Unknown string `json:"unknown,omitempty"`
}

// Served is what one session's client read of nested skills folders.
type Served struct {
	Folders []ServedFolder `json:"folders,omitempty"`
	At      time.Time      `json:"at"`
}

// Bounds of what is kept: folders per session and skills per folder. Past
// either, what the client read is Unknown.
const (
	MaxServedFolders = 64
	MaxServedSkills  = 64
)

// UnknownTooManySkills is a folder's Unknown past MaxServedSkills.
const UnknownTooManySkills = "the folder holds more skills than skillwire keeps"

// ErrServed: a folder, skill or reason skillwire does not keep. A folder is
// an absolute UTF-8 path of at most 4096 bytes, without NUL. A skill is
// named by a minted id. A reason is printable.
var ErrServed = errors.New("hookstate: served copy not kept")

var bucketSessionServed = []byte("session-served")

// SessionServed is what sessions' clients read of nested skills folders
// (bucket session-served).
type SessionServed struct{ tx *bolt.Tx }

// SessionServedOf is the sessions' served copies of tx.
func SessionServedOf(tx *bolt.Tx) SessionServed { return SessionServed{tx} }

// Of is what session's client read; the zero value when nothing was kept.
// A record that does not decode, or holds what Keep never writes, is
// storefile.ErrCorrupt.
func (ss SessionServed) Of(session string) (Served, error) {
	return sessionRecord(ss.tx, bucketSessionServed, session, "session served copies", validServed)
}

// Folder is what was kept of the folder at path.
func (s Served) Folder(path string) (ServedFolder, bool) {
	i := slices.IndexFunc(s.Folders, func(f ServedFolder) bool { return f.Path == path })
	if i < 0 {
		return ServedFolder{}, false
	}
	return s.Folders[i], true
}

// Skill is the copy kept of the skill id.
func (f ServedFolder) Skill(id string) (ServedSkill, bool) {
	i := slices.IndexFunc(f.Skills, func(s ServedSkill) bool { return s.ID == id })
	if i < 0 {
		return ServedSkill{}, false
	}
	return f.Skills[i], true
}

// Keep keeps the folder at path as the client read it: skills, and why not
// all of them when unknown is set. The first copy kept of a folder stays. The
// client does not read it again, so a later touch keeps nothing. Past
// MaxServedSkills the folder is Unknown. Past MaxServedFolders a folder is
// not kept, now or later: a use of its skills is judged as not kept.
func (ss SessionServed) Keep(session, path string, skills []ServedSkill, unknown string, now time.Time) (Served, error) {
	if !validToken(session, MaxSessionLen) {
		return Served{}, ErrToolUseID
	}
	if !validFolder(path) || unknown != "" && !validReason(unknown) {
		return Served{}, ErrServed
	}
	for _, s := range skills {
		if !anomaly.IsID(s.ID) {
			return Served{}, ErrServed
		}
	}
	s, err := ss.Of(session)
	if errors.Is(err, storefile.ErrCorrupt) {
		// What was kept is not known. A fresh record keeps nothing of the
		// folders before, so their uses are asked.
		s, err = Served{}, nil
	}
	if err != nil {
		return Served{}, err
	}
	if _, ok := s.Folder(path); ok || len(s.Folders) == MaxServedFolders {
		return s, nil
	}
	b, err := storefile.Bucket(ss.tx, bucketSessionServed)
	if err != nil {
		return Served{}, err
	}
	if err := pruneSessions(b, session, now); err != nil {
		return Served{}, err
	}
	f := ServedFolder{Path: path, Unknown: unknown}
	for _, sk := range skills {
		switch {
		case slices.ContainsFunc(f.Skills, func(o ServedSkill) bool { return o.ID == sk.ID }):
		case len(f.Skills) == MaxServedSkills:
			f.Unknown = UnknownTooManySkills
		default:
			f.Skills = append(f.Skills, sk)
		}
	}
	s.Folders, s.At = append(s.Folders, f), now
	v, err := json.Marshal(s)
	if err != nil {
		return Served{}, err
	}
	return s, b.Put([]byte(session), v)
}

func validFolder(p string) bool {
	return strings.HasPrefix(p, "/") && len(p) <= maxDirLen && utf8.ValidString(p) && strings.IndexByte(p, 0) < 0
}

func validReason(r string) bool {
	return len(r) <= maxUnknownLen && storefile.Printable(r, maxUnknownLen) == r
}

// validServed holds a record to what Keep writes.
func validServed(s *Served) bool {
	if len(s.Folders) > MaxServedFolders {
		return false
	}
	for _, f := range s.Folders {
		if !validFolder(f.Path) || f.Unknown != "" && !validReason(f.Unknown) || len(f.Skills) > MaxServedSkills {
			return false
		}
		for _, sk := range f.Skills {
			if !anomaly.IsID(sk.ID) {
				return false
			}
		}
	}
	return true
}
