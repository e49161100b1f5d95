package hookstate

import (
	"cmp"
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
	// Unstamped: the files lie where a stamp proves nothing (a FUSE or
	// network filesystem). Only the digest is kept.
	Unstamped bool `json:"unstamped,omitempty"`
}

// ServedFolder is one nested skills folder the session's client read.
type ServedFolder struct {
	Path   string        `json:"path"`
	Skills []ServedSkill `json:"skills,omitempty"`
	// Unknown, in fixed words, is why what the folder held is not all kept.
	Unknown string `json:"unknown,omitempty"`
}

// Served is what one session's client read of skills folders.
type Served struct {
	At      time.Time      `json:"at"` // first: pruning reads only this
	Folders []ServedFolder `json:"folders,omitempty"`
	// Start: the session's start kept the folders the client read then
	// (KeepStart): the top-level skills, agents and commands folders, the
	// added folders' and the plugins. MarkStart sets it first.
	Start bool `json:"start,omitempty"`
	// Kept: a start's keep was made. Partial: one read more folders than
	// it keeps. So a folder a start kept with neither missing is one its
	// client did not read then (StartRead).
	Kept    bool `json:"kept,omitempty"`
	Partial bool `json:"partial,omitempty"`
}

// StartRead reports whether the session's start may have read the folder
// at path: it is kept, or no whole keep of the start lists it. false: a
// keep of every folder the start read was made without it.
func (s Served) StartRead(path string) bool {
	_, kept := s.Folder(path)
	return kept || !s.Kept || s.Partial
}

// Bounds of what is kept: folders per session, skills per folder and
// skills per session. Past any, what the client read is Unknown. A real
// home holds hundreds of skills in one folder and dozens of plugins; the
// bounds sit well above that, so only a hostile tree meets them.
const (
	MaxServedFolders = 1024
	MaxServedSkills  = 4096
	MaxServedTotal   = 16384
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
// A record let go is a start with nothing kept: its uses are asked.
// A record that does not decode, or holds what Keep never writes, is
// storefile.ErrCorrupt.
func (ss SessionServed) Of(session string) (Served, error) {
	return sessionRecord(ss.tx, bucketSessionServed, session, "session served copies", validServed, Served{Start: true})
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
	if !validFolderKept(ServedFolder{Path: path, Skills: skills, Unknown: unknown}) {
		return Served{}, ErrServed
	}
	s, err := ss.Of(session)
	if errors.Is(err, storefile.ErrCorrupt) {
		// What was kept is not known. A fresh record keeps nothing of the
		// folders before, so their uses are asked. Start is set: the
		// start's folders are then absent, never judged on the disk alone.
		s, err = Served{Start: true}, nil
	}
	if err != nil {
		return Served{}, err
	}
	if _, ok := s.Folder(path); ok || len(s.Folders) == MaxServedFolders {
		return s, nil
	}
	s.Folders = append(s.Folders, boundFolder(ServedFolder{Path: path, Skills: skills, Unknown: unknown}, s.room()))
	return s, ss.put(session, s, now)
}

// room is how many more skills the record may keep (MaxServedTotal).
func (s Served) room() int {
	n := MaxServedTotal
	for _, f := range s.Folders {
		n -= len(f.Skills)
	}
	return max(n, 0)
}

// put writes s as session's record, the stale sessions pruned first.
func (ss SessionServed) put(session string, s Served, now time.Time) error {
	b, err := storefile.Bucket(ss.tx, bucketSessionServed)
	if err != nil {
		return err
	}
	if err := pruneSessions(b, bucketSessionServed, session, now); err != nil {
		return err
	}
	s.At = now
	v, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return b.Put([]byte(session), v)
}

// boundFolder is f with each skill once, and Unknown past MaxServedSkills
// or past room, the skills the record has room for.
func boundFolder(f ServedFolder, room int) ServedFolder {
	skills := f.Skills
	f.Skills = nil
	seen := make(map[string]bool, len(skills))
	for _, sk := range skills {
		switch {
		case seen[sk.ID]:
		case len(f.Skills) == min(MaxServedSkills, room):
			f.Unknown = UnknownTooManySkills
		default:
			seen[sk.ID] = true
			f.Skills = append(f.Skills, sk)
		}
	}
	return f
}

// validFolderKept: f is a folder Keep would keep.
func validFolderKept(f ServedFolder) bool {
	if !validFolder(f.Path) || f.Unknown != "" && !validReason(f.Unknown) {
		return false
	}
	for _, s := range f.Skills {
		if !anomaly.IsID(s.ID) {
			return false
		}
	}
	return true
}

// MarkStart marks session as started under skillwire, before its start
// keeps anything. A start whose keep then fails leaves the mark: its uses
// are asked, never judged on the disk alone. A record kept before stays.
// wrote is false when the record was left as it was: marked already (a
// resume, a /clear or a compaction of the session), or not read.
func (ss SessionServed) MarkStart(session string, now time.Time) (wrote bool, err error) {
	if !validToken(session, MaxSessionLen) {
		return false, ErrToolUseID
	}
	if ss.marked(session) {
		return false, nil
	}
	s, err := ss.Of(session)
	if err != nil || s.Start {
		return false, err // a record not read stays as it is: its uses are asked
	}
	s.Start = true
	return true, ss.put(session, s, now)
}

// marked reports whether session's record says its start is marked,
// without reading the rest: a session started again holds what its first
// start kept, and decoding all of it costs what the mark saves. A record
// that says so but does not decode whole stays as it is, as Of leaves it.
func (ss SessionServed) marked(session string) bool {
	b := ss.tx.Bucket(bucketSessionServed)
	if b == nil {
		return false
	}
	v := b.Get([]byte(session))
	var peek struct {
		Start bool `json:"start"`
	}
	return v != nil && json.Unmarshal(v, &peek) == nil && peek.Start
}

// KeepStart keeps what session's client read at its start: folders, each
// a top-level skills folder or plugins folder. A skill kept before for the
// session stays: a SessionStart also fires at a compaction, a /clear and
// a resume, when the client may serve what it read before (e2e pins none
// of them). A skill changed since is then asked, never passed. Past the
// bounds the rest are not kept: their uses are asked.
func (ss SessionServed) KeepStart(session string, folders []ServedFolder, now time.Time) (Served, error) {
	if !validToken(session, MaxSessionLen) {
		return Served{}, ErrToolUseID
	}
	for _, f := range folders {
		if !validFolderKept(f) {
			return Served{}, ErrServed
		}
	}
	s, err := ss.Of(session)
	if err != nil {
		return Served{}, err // not read: its uses are asked, so it stays
	}
	s.Start, s.Kept = true, true
	at := make(map[string]int, len(s.Folders))
	for i, f := range s.Folders {
		at[f.Path] = i
	}
	for _, f := range folders {
		i, ok := at[f.Path]
		switch {
		case ok:
			old := s.Folders[i]
			s.Folders[i] = boundFolder(ServedFolder{Path: f.Path, Skills: append(slices.Clip(old.Skills), f.Skills...), Unknown: cmp.Or(old.Unknown, f.Unknown)}, s.room()+len(old.Skills))
		case len(s.Folders) < MaxServedFolders:
			at[f.Path] = len(s.Folders)
			s.Folders = append(s.Folders, boundFolder(f, s.room()))
		default:
			s.Partial = true
		}
	}
	return s, ss.put(session, s, now)
}

// Reload keeps sk as the copy the client reads again of a skill of the
// folder at path: its watcher is about to reload it. Only a folder the
// start kept is kept again. Another is judged as not kept, as before.
func (ss SessionServed) Reload(session, path string, sk ServedSkill, now time.Time) (Served, error) {
	if !validToken(session, MaxSessionLen) {
		return Served{}, ErrToolUseID
	}
	if !validFolder(path) || !anomaly.IsID(sk.ID) {
		return Served{}, ErrServed
	}
	s, err := ss.Of(session)
	if err != nil {
		return Served{}, err // a record not read is not replaced: its uses stay asked
	}
	i := slices.IndexFunc(s.Folders, func(f ServedFolder) bool { return f.Path == path })
	if !s.Start || i < 0 {
		return s, nil
	}
	f := &s.Folders[i]
	if j := slices.IndexFunc(f.Skills, func(o ServedSkill) bool { return o.ID == sk.ID }); j >= 0 {
		f.Skills[j] = sk
	} else {
		*f = boundFolder(ServedFolder{Path: f.Path, Skills: append(f.Skills, sk), Unknown: f.Unknown}, s.room()+len(f.Skills))
	}
	return s, ss.put(session, s, now)
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
	total := 0
	for _, f := range s.Folders {
		if !validFolderKept(f) || len(f.Skills) > MaxServedSkills {
			return false
		}
		total += len(f.Skills)
	}
	return total <= MaxServedTotal
}
