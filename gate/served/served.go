// Package served keeps what the client read of its skills, and judges a
// use on that copy. Claude Code reads sub/.claude/skills when a Read, Edit
// or Write first touches a file below sub/, and serves that copy all
// session. It reads its top-level skills, agents and commands, the skills
// of the folders given with --add-dir and its plugins at its start
// (start.go).
// Each skill is kept by its stamp and its digest, so the gate can judge
// the copy the client holds, not the disk (pinned by e2e/served_test.go
// and e2e/servedkinds_test.go).
package served

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/internal/pathname"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// SkillsFolders are the skills folders of the nested folders dirs, as
// claude.Places.Roots names them.
func SkillsFolders(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = pathname.Join(pathname.Join(d, ".claude"), "skills")
	}
	return out
}

// Touched are the nested skills folders (of nested) the client reads when
// a tool touches file. It walks up from the file's folder to cwd, cwd left out,
// as the client does. A relative file is read against cwd. Both are cleaned
// as the client's path.resolve cleans them.
func Touched(nested []string, cwd, file string) []string {
	if !filepath.IsAbs(cwd) || file == "" {
		return nil
	}
	cwd = filepath.Clean(cwd)
	if !filepath.IsAbs(file) {
		file = filepath.Join(cwd, file)
	}
	var out []string
	for d := filepath.Dir(filepath.Clean(file)); strings.HasPrefix(d, cwd+"/"); d = filepath.Dir(d) {
		if f := pathname.Join(pathname.Join(d, ".claude"), "skills"); slices.Contains(nested, f) {
			out = append(out, f)
		}
	}
	return out
}

// read is one skill of a folder as Keep read it.
type read struct {
	name []byte
	sk   hookstate.ServedSkill
}

// readFolder reads the skills of the nested folder root as the client just
// read them. Each skill is stamped between two walks, and kept only when
// both walks agree. A write after the stamp then shows in a later stamp.
// One the stamp cannot prove is left out: its use is judged as not kept.
// unknown, in fixed words, says why none of the folder's skills are kept.
func readFolder(ctx context.Context, root claude.Root, cfg walker.Config, now time.Time) (reads []read, unknown string) {
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
		if sum, racy, ok := Stamp(root.Path, c.Name, &c.Manifest, now); ok {
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
		reads = append(reads, read{name: c.Name, sk: hookstate.ServedSkill{Digest: d, Stamp: s.sum, Racy: s.racy}})
	}
	return reads, ""
}

// Keep keeps in the store of o, for session, what each skills folder of
// folders holds now (a nested one, or one /add-dir added): the client just
// read them. Only watched
// folders (of roots) are read. A folder kept before stays as kept: the
// client reads it once.
func Keep(ctx context.Context, o baseline.Options, session string, folders []string, roots []claude.Root, cfg walker.Config, now time.Time) error {
	var kept hookstate.Served
	err := baseline.View(o, func(tx *baseline.Tx) (err error) {
		kept, err = tx.SessionServed().Of(session)
		return err
	})
	if err != nil && !errors.Is(err, baseline.ErrAbsent) {
		return err
	}
	type folder struct {
		root    claude.Root
		reads   []read
		unknown string
	}
	var done []folder
	for _, f := range folders {
		if _, ok := kept.Folder(f); ok {
			continue
		}
		i := slices.IndexFunc(roots, func(r claude.Root) bool { return r.Path == f && r.Kind == claude.Skills })
		if i < 0 {
			continue // not watched: its names are judged as no candidate's
		}
		reads, unknown := readFolder(ctx, roots[i], cfg, now)
		done = append(done, folder{roots[i], reads, unknown})
	}
	if len(done) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err // a read cut short proves nothing: nothing is kept
	}
	return baseline.Update(o, func(tx *baseline.Tx) error {
		for _, f := range done {
			skills := make([]hookstate.ServedSkill, len(f.reads))
			for i, r := range f.reads {
				skills[i] = r.sk
				skills[i].ID = tx.ID(f.root.Path, r.name)
			}
			if _, err := tx.SessionServed().Keep(session, f.root.Path, skills, f.unknown, now); err != nil && !errors.Is(err, hookstate.ErrServed) {
				return err
			}
		}
		return nil
	})
}
