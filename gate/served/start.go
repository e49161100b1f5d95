package served

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/gate/match"
	"github.com/skillwire/skillwire/walker"
)

// Claude Code reads its top-level skills, agents and commands folders, the
// skills of the folders given with --add-dir and its plugins at its start,
// and serves that copy. A skill or command is read again only when its
// watcher reloads it, after the ConfigChange hook (source skills). An agent
// is never read again: the watcher runs ConfigChange for its file too, but
// the client serves the agent as read at its start. A plugin is never read
// again (pinned by e2e/served_test.go and e2e/servedkinds_test.go). So the
// session start keeps what it observed of them, from its one walk. The
// ConfigChange of a skill or command keeps its copy again (Reload).

// UnknownUnlisted is a folder's Unknown when it could not be listed.
const UnknownUnlisted = "the folder could not be listed"

// AtStart reports whether the client reads root at its start and serves
// that copy: a skills folder other than a nested one (of nested, as
// claude.Places.Nested), an agents or commands folder, or a plugins folder.
// An added folder's are among them: its start kept those of a folder
// given with --add-dir, the DirectoryAdded hook the skills of one added
// with /add-dir (the client reads them just before it). One that neither
// kept is judged on the disk (JudgeAtStart). A plugin folder added to the
// session is left out: a dev mod appears mid-session.
func AtStart(root claude.Root, nested []string) bool {
	switch root.Kind {
	case claude.Skills:
		return !slices.Contains(SkillsFolders(nested), root.Path)
	case claude.Agents, claude.Commands, claude.Plugins:
		return true
	case claude.PluginSources:
		return root.Scope != claude.Added
	}
	return false
}

// Reloads reports whether the client's watcher reads a candidate of root
// again after its ConfigChange, and serves that copy: a skill or a command
// the client read at its start. An agent it serves as read at its start
// all session, so its copy is never kept again.
func Reloads(root claude.Root, nested []string) bool {
	return AtStart(root, nested) && (root.Kind == claude.Skills || root.Kind == claude.Commands)
}

// stamped is one candidate's copy as a walk read it, stamped after.
func stamped(root string, c *walker.Candidate, now time.Time) (hookstate.ServedSkill, bool) {
	d := baseline.DigestOf(c)
	if d == nil {
		return hookstate.ServedSkill{}, false // not read whole: its use is judged as not kept
	}
	sk := hookstate.ServedSkill{Digest: d}
	// The stamp is of what the walk stated as it read (StampWalked): a
	// file's identity is the one its hash is of. Where the walk kept none,
	// it is stated after the read. A write between them moves the stamp
	// past the digest read, and the use then finds them apart.
	sum, racy, ok := StampWalked(c, now)
	if !ok {
		sum, racy, ok = Stamp(root, c.Name, &c.Manifest, now)
	}
	sk.Stamp, sk.Racy, sk.Unstamped = sum, racy, !ok
	return sk, true
}

// KeepStart keeps for session what the start's walk observed (obs) of
// each root AtStart: every candidate by digest and stamp. No root is
// walked again. The error says why nothing was kept: then a use of those
// skills is judged on the disk alone, as without a start kept.
func KeepStart(o baseline.Options, session string, obs []baseline.Observation, nested []string, now time.Time) error {
	if session == "" {
		return errors.New("served: a session start without a session")
	}
	type read struct {
		folder hookstate.ServedFolder
		names  [][]byte
	}
	var reads []read
	for _, ob := range obs {
		if !AtStart(ob.Root, nested) || ob.Walk == nil {
			continue
		}
		r := read{folder: hookstate.ServedFolder{Path: ob.Root.Path}}
		switch w := ob.Walk; {
		case w.Missing: // no folder: the client serves nothing from it
		case len(w.Anomalies) > 0:
			r.folder.Unknown = UnknownUnlisted
		default:
			for i := range w.Candidates {
				c := &w.Candidates[i]
				if sk, ok := stamped(ob.Root.Path, c, now); ok {
					r.folder.Skills = append(r.folder.Skills, sk)
					r.names = append(r.names, c.Name)
				}
			}
		}
		reads = append(reads, r)
	}
	return baseline.Update(o, func(tx *baseline.Tx) error {
		folders := make([]hookstate.ServedFolder, len(reads))
		for i, r := range reads {
			folders[i] = r.folder
			for j, n := range r.names {
				folders[i].Skills[j].ID = tx.ID(r.folder.Path, n)
			}
		}
		_, err := tx.SessionServed().KeepStart(session, folders, now)
		return err
	})
}

// MarkStart marks session as started under skillwire, before its walk
// (hookstate.MarkStart). A keep that then fails leaves its uses asked.
func MarkStart(o baseline.Options, session string, now time.Time) error {
	if session == "" {
		return errors.New("served: a session start without a session")
	}
	return baseline.Update(o, func(tx *baseline.Tx) error {
		wrote, err := tx.SessionServed().MarkStart(session, now)
		if err == nil && !wrote {
			return baseline.ErrNothingToWrite // a start marked before syncs nothing
		}
		return err
	})
}

// ReloadOf is a ConfigChange (source skills) of the file Path that was not
// blocked: the client's watcher reads its skill again after it.
type ReloadOf struct {
	Store   baseline.Options
	Session string
	Path    string // file_path, never cleaned (match.ByPath)
	Roots   []claude.Root
	Nested  []string // claude.Places.Nested
	Walker  walker.Config
	Now     time.Time
}

// Reloaded keeps, for the session of r, the copy of the skill holding
// r.Path, of a root the client Reloads. A write after this keep moves the
// stamp, and the use judges it as written after the read. A file of no
// such skill or command (an agent's) keeps nothing.
func Reloaded(ctx context.Context, r ReloadOf) error {
	found, _ := match.Discover(r.Roots, r.Walker)
	for _, l := range match.ByPath(found, r.Path) {
		if Reloads(l.Root, r.Nested) {
			return reload(ctx, r, l.Root, l.Name, l.Cfg)
		}
	}
	return nil
}

// reload keeps the candidate name of root, read now, for r's session.
func reload(ctx context.Context, r ReloadOf, root claude.Root, name []byte, cfg walker.Config) error {
	if r.Session == "" {
		return errors.New("served: a reload without a session")
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := walker.ObserveIn(ctx, root.Spec(), name, cfg)
	if err := ctx.Err(); err != nil {
		return err // a read cut short proves nothing: the copy before stays
	}
	sk, ok := stamped(root.Path, &c, now)
	return baseline.Update(r.Store, func(tx *baseline.Tx) error {
		if !ok {
			// Not read whole: no copy is proven, so the one before goes.
			sk = hookstate.ServedSkill{Unstamped: true}
		}
		sk.ID = tx.ID(root.Path, name)
		_, err := tx.SessionServed().Reload(r.Session, root.Path, sk, now)
		return err
	})
}
