package gate

import (
	"context"
	"errors"
	"time"

	"github.com/skillwire/skillwire/baseline"
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

// onCopy raises f, the finding of s on the disk, by what the copy the
// client serves says (c). A copy of adverse content holds it as that
// verdict. A changed one is pending when it was reviewed, else new. None
// kept is asked at least. A worse finding stays as it is.
func onCopy(s *baseline.Standing, f Finding, c served.Copy) Finding {
	st := map[served.Copy]State{served.Blocked: Blocked, served.Suspect: Suspect, served.Changed: New, served.Unkept: New, served.StartUnkept: New}[c]
	if rec := s.Prior; c == served.Changed && rec != nil && (rec.Review != nil || rec.Verdict != nil && rec.Verdict.Verdict == verdict.Safe) {
		st = Pending
	}
	if st > f.State && (f.State < Anomalous || c == served.Blocked || c == served.Suspect) {
		f.State, f.Served = st, c
	}
	return f
}
