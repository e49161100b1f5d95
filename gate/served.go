package gate

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
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
func (env Env) nestedFolders() []string {
	out := make([]string, len(env.Nested))
	for i, d := range env.Nested {
		out[i] = pathname.Join(pathname.Join(d, ".claude"), "skills")
	}
	return out
}

// touchedFolders are the nested skills folders the client reads when a tool
// touches file. It walks up from the file's folder to cwd, cwd left out,
// as the client does. A relative file is read against cwd. Both are cleaned
// as the client's path.resolve cleans them.
func touchedFolders(env Env, cwd, file string) []string {
	if !filepath.IsAbs(cwd) || file == "" {
		return nil
	}
	cwd = filepath.Clean(cwd)
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	nested := env.nestedFolders()
	var out []string
	for d := filepath.Dir(filepath.Clean(file)); strings.HasPrefix(d, cwd+"/"); d = filepath.Dir(d) {
		if f := pathname.Join(pathname.Join(d, ".claude"), "skills"); slices.Contains(nested, f) {
			out = append(out, f)
		}
	}
	return out
}

// servedRead is one skill of a folder as keepServed read it.
type servedRead struct {
	name []byte
	sk   hookstate.ServedSkill
}

// readServed reads the skills of the nested folder root as the client just
// read them. Each skill is stamped between two walks, and kept only when
// both walks agree. A write after the stamp then shows in a later stamp.
// One the stamp cannot prove is left out: its use is judged as not kept.
// unknown, in fixed words, says why none of the folder's skills are kept.
func readServed(ctx context.Context, root claude.Root, cfg walker.Config, now time.Time) (reads []servedRead, unknown string) {
	spec := []walker.RootSpec{root.Spec()}
	first := walker.Scan(ctx, spec, cfg)[0]
	if first.Missing {
		return nil, "" // no folder: the client serves nothing from it
	}
	if len(first.Anomalies) > 0 {
		return nil, "the folder could not be listed"
	}
	type stamped struct {
		digest *snapshot.Hash
		sum    snapshot.Hash
		racy   bool
	}
	stamps := map[string]stamped{}
	for i := range first.Candidates {
		c := &first.Candidates[i]
		if sum, racy, ok := stamp(root.Path, c.Name, &c.Manifest, now); ok {
			stamps[string(c.Name)] = stamped{baseline.DigestOf(c), sum, racy}
		}
	}
	second := walker.Scan(ctx, spec, cfg)[0]
	for i := range second.Candidates {
		c := &second.Candidates[i]
		s, ok := stamps[string(c.Name)]
		d := baseline.DigestOf(c)
		if !ok || d == nil || s.digest == nil || *d != *s.digest {
			continue
		}
		reads = append(reads, servedRead{name: c.Name, sk: hookstate.ServedSkill{Digest: d, Stamp: s.sum, Racy: s.racy}})
	}
	return reads, ""
}

// keepServed keeps, for the session of in (a Read, Edit or Write that
// ran), what each nested skills folder the call touched held. A folder
// kept before stays as kept: the client reads it once.
func keepServed(ctx context.Context, in hookio.ToolUse, env Env) error {
	folders := touchedFolders(env, in.Cwd, in.Path)
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
	o := storeOptions(ctx, env.Store)
	var kept hookstate.Served
	err := baseline.View(o, func(tx *baseline.Tx) (err error) {
		kept, err = tx.SessionServed().Of(in.Session)
		return err
	})
	if err != nil && !errors.Is(err, baseline.ErrAbsent) {
		return err
	}
	type folder struct {
		root    claude.Root
		reads   []servedRead
		unknown string
	}
	var read []folder
	for _, f := range folders {
		if _, ok := kept.Folder(f); ok {
			continue
		}
		i := slices.IndexFunc(env.Roots, func(r claude.Root) bool { return r.Path == f && r.Kind == claude.Skills })
		if i < 0 {
			continue // not watched: its names are judged as no candidate's
		}
		reads, unknown := readServed(ctx, env.Roots[i], env.Walker, now)
		read = append(read, folder{env.Roots[i], reads, unknown})
	}
	if len(read) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err // a read cut short proves nothing: nothing is kept
	}
	return baseline.Update(o, func(tx *baseline.Tx) error {
		for _, f := range read {
			skills := make([]hookstate.ServedSkill, len(f.reads))
			for i, r := range f.reads {
				skills[i] = r.sk
				skills[i].ID = tx.ID(f.root.Path, r.name)
			}
			if _, err := tx.SessionServed().Keep(in.Session, f.root.Path, skills, f.unknown, now); err != nil && !errors.Is(err, hookstate.ErrServed) {
				return err
			}
		}
		return nil
	})
}

// servedFinding judges f, the finding of the nested skill s on the disk
// now, on the copy the session's client read (served; ok false when it
// could not be read). A copy not kept, or not proven, is asked at least. A
// skill written after the client read it, or read other than the disk
// holds, is answered as changed: pending when it was reviewed, else new.
// A worse finding stays as it is.
func servedFinding(s *baseline.Standing, f Finding, served hookstate.Served, ok bool, now time.Time) Finding {
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
	folder, kept := served.Folder(s.Root.Path)
	if !ok || !kept || folder.Unknown != "" {
		return unkept()
	}
	sk, kept := folder.Skill(s.ID)
	if !kept {
		return unkept()
	}
	sum, _, proven := stamp(s.Root.Path, s.Name, &s.Observed.Manifest, now)
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
