package served

import (
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
)

// Copy is what the copy a client serves of a skill says of its use.
type Copy uint8

const (
	// Same: the copy served is the disk's, as far as it is kept.
	Same Copy = iota
	// Unkept: no copy of the nested skill was kept, or it proves nothing.
	Unkept
	// StartUnkept: a top-level or plugin skill of a session whose start
	// was kept, with no copy of it kept since.
	StartUnkept
	// Changed: a file of it was written after the client read it, or the
	// copy read is not the disk's.
	Changed
	// Blocked and Suspect: the copy read holds content recorded so.
	Blocked
	Suspect
)

// JudgeNested judges the nested skill s, digest d on the disk now, on the
// copy the session's client read (sv; ok false when it could not be read).
// A racy stamp proves nothing: the client reads the folder at a touch, any
// time.
func JudgeNested(s *baseline.Standing, d *snapshot.Hash, sv hookstate.Served, ok bool, now time.Time) Copy {
	folder, kept := sv.Folder(s.Root.Path)
	if !ok || !kept || folder.Unknown != "" {
		return Unkept
	}
	sk, kept := folder.Skill(s.ID)
	if !kept {
		return Unkept
	}
	sum, _, proven := Stamp(s.Root.Path, s.Name, &s.Observed.Manifest, now)
	switch {
	case !proven:
		return Unkept
	case sum != sk.Stamp:
		return Changed
	case sk.Racy || sk.Digest == nil || d == nil:
		return Unkept
	case *sk.Digest != *d:
		return Changed
	}
	return Same
}

// JudgeAtStart judges s, of a root AtStart and digest d on the disk now,
// on the copy the session's client read at its start or last reload. ok
// is false when the session's copies could not be read. A session whose
// start kept nothing is judged on the disk alone (Same): a start before
// the hooks were installed, or a hook input naming no session. So is a
// folder added mid-session (/add-dir) whose DirectoryAdded kept nothing:
// no whole keep of the start lists it (hookstate.Served.StartRead). A copy
// whose content was recorded BLOCK or SUSPECT is that verdict. A copy
// other than the disk's is changed. The stamp, when both ends have one,
// shows a write put back. A racy stamp is no unknown here: the digest
// still tells other bytes, and the client read before the stamp.
func JudgeAtStart(tx *baseline.Tx, s *baseline.Standing, d *snapshot.Hash, sv hookstate.Served, ok bool, now time.Time) (Copy, error) {
	if ok && !sv.Start {
		return Same, nil
	}
	if ok && s.Root.Scope == claude.Added && !sv.StartRead(s.Root.Path) {
		// Added mid-session (/add-dir), its copy not kept: judged on the
		// disk alone, as before copies were kept.
		return Same, nil
	}
	folder, kept := sv.Folder(s.Root.Path)
	if !ok || !kept || folder.Unknown != "" {
		return StartUnkept, nil
	}
	sk, kept := folder.Skill(s.ID)
	switch {
	case !kept || sk.Digest == nil || d == nil:
		return StartUnkept, nil
	case *sk.Digest != *d:
		v, err := tx.AdverseFor(*sk.Digest)
		switch {
		case err != nil || v == nil:
			return Changed, err
		case v.Verdict == verdict.Block:
			return Blocked, nil
		}
		return Suspect, nil
	case sk.Unstamped:
		return Same, nil
	}
	sum, _, proven := Stamp(s.Root.Path, s.Name, &s.Observed.Manifest, now)
	switch {
	case !proven:
		return StartUnkept, nil
	case sum != sk.Stamp:
		return Changed, nil
	}
	return Same, nil
}
