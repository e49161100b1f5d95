package gate

import (
	"context"
	"errors"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/served"
)

// Claude Code reads a nested skills folder (sub/.claude/skills) when a Read,
// Edit or Write first touches a file below sub/. It reads it again before
// its next request, then never again in the session, and serves that copy
// (pinned by e2e/served_test.go). Judged on the disk, a skill changed and
// put back after that read would pass while the changed copy ran. So the
// PostToolUse of the touching call keeps what the folder held: each
// skill's stamp, then its digest (hookstate.SessionServed). A use of a
// nested skill is judged on that copy.

// Served says why a nested skill's use is judged on the copy the client
// read, not on the disk.
type Served uint8

const (
	// ServedUnkept: no copy of it was kept for the session, or what was
	// kept proves nothing. What the client serves is unknown.
	ServedUnkept Served = iota + 1
	// ServedChanged: a file of it was written after the client read it, or
	// the copy read is not the disk's.
	ServedChanged
)

// nestedFolders are the skills folders of env.Nested, as Roots names them.
func (env Env) nestedFolders() []string { return served.SkillsFolders(env.Nested) }

// keepServed keeps, for the session of in (a Read, Edit or Write that
// ran), what each nested skills folder the call touched held.
func keepServed(ctx context.Context, in hookio.ToolUse, env Env) error {
	folders := served.Touched(env.nestedFolders(), in.Cwd, in.Path)
	if len(folders) == 0 {
		return nil
	}
	if in.Session == "" {
		return errors.New("gate: a touch of a nested skills folder without a session")
	}
	now := env.Now
	if now.IsZero() {
		now = time.Now()
	}
	return served.Keep(ctx, storeOptions(ctx, env.Store), in.Session, folders, env.Roots, env.Walker, now)
}

// servedFinding judges f, the finding of the nested skill s on the disk
// now, on the copy the session's client read (served; ok false when it
// could not be read). A copy not kept, or not proven, is asked at least. A
// skill written after the client read it, or read other than the disk
// holds, is answered as changed: pending when it was reviewed, else new.
// A worse finding stays as it is.
func servedFinding(s *baseline.Standing, f Finding, sv hookstate.Served, ok bool, now time.Time) Finding {
	if f.State >= Anomalous || f.Root {
		return f
	}
	raise := func(st State, why Served) Finding {
		if st > f.State {
			f.State, f.Served = st, why
		}
		return f
	}
	unkept := func() Finding { return raise(New, ServedUnkept) }
	folder, kept := sv.Folder(s.Root.Path)
	if !ok || !kept || folder.Unknown != "" {
		return unkept()
	}
	sk, kept := folder.Skill(s.ID)
	if !kept {
		return unkept()
	}
	sum, _, proven := served.Stamp(s.Root.Path, s.Name, &s.Observed.Manifest, now)
	changed := New
	if rec := s.Prior; rec != nil && (rec.Review != nil || rec.Verdict != nil && rec.Verdict.Verdict == verdict.Safe) {
		changed = Pending
	}
	switch {
	case !proven:
		return unkept()
	case sum != sk.Stamp:
		return raise(changed, ServedChanged)
	case sk.Racy || sk.Digest == nil || f.Digest == nil:
		return unkept()
	case *sk.Digest != *f.Digest:
		return raise(changed, ServedChanged)
	}
	return f
}
