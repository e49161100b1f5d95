// Package instructions journals the instruction files Claude Code loads,
// such as CLAUDE.md and rules, at its InstructionsLoaded hook. Record notes
// each load under its candidate's id, with the digest the walker reads. It
// notes a load only when that digest is new. A changed load is kept for
// the next session start to tell.
package instructions

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/skillwire/skillwire/walker"
)

// changedMark starts the note of a load whose digest differs from the last
// noted load.
const changedMark = "changed since the last load: "

// Config is where a load is read and recorded: the roots of the session,
// the walker's limits, the store and the time of the load. The caller's
// deadline already bounds the store's lock wait.
type Config struct {
	Roots  []claude.Root
	Walker walker.Config
	Store  baseline.Options
	Now    time.Time
}

// Record journals that Claude Code loaded the instruction file l.Path.
// The walker reads the digest of its bytes now, under its proofs. The
// first load gets a note on the file's id. So does each load whose digest
// differs from the last noted one, marked changed. A changed load is also
// kept as an untold instruction change. The next delivered session start
// tells and consumes it. A load of the same bytes again notes nothing. So
// the journal grows with changes, not with sessions. Notes.Add bounds it
// per file all the same. The event cannot block, so nothing is answered.
func Record(ctx context.Context, l hookio.InstructionsLoad, cfg Config) error {
	dir, name, ok := splitPath(l.Path)
	if !ok {
		return fmt.Errorf("%w: instruction file path", hookio.ErrEventMalformed)
	}
	spec := walker.RootSpec{Path: dir}
	if r, cand, ok := watchedCandidate(cfg.Roots, l.Path); ok {
		spec, dir, name = r.Spec(), r.Path, cand
	}
	c := walker.ObserveIn(ctx, spec, []byte(name), cfg.Walker)
	st, err := baseline.Open(cfg.Store)
	if err != nil {
		return fmt.Errorf("instructions: opening the store: %w", err)
	}
	defer st.Close()
	ld := loadOf(&c, []byte(name), l.MemoryType, l.Reason, cfg.Now)
	// The read-only pass keeps the common load, of bytes already noted,
	// from syncing a commit.
	var write bool
	if err := st.View(func(tx *baseline.Tx) (err error) { _, write, _, err = ld.due(tx, dir); return }); err != nil || !write {
		return err
	}
	return st.Update(func(tx *baseline.Tx) error { return ld.note(tx, dir) })
}

// Reasons Claude Code loads an instruction file for. Its
// InstructionsLoaded hook reports all but ReasonDirectoryAdded.
var reasons = []string{"session_start", "nested_traversal", "path_glob_match", "include", "compact", ReasonDirectoryAdded}

// ReasonDirectoryAdded is the load of an instruction file of a folder
// /add-dir added. Claude Code 2.1.328 reads it from its next turn on. It
// fires no InstructionsLoaded for it (pinned by e2e/addedcfg_test.go). So
// the DirectoryAdded hook notes it (RecordRead).
const ReasonDirectoryAdded = "directory_added"

// load is one load of an instruction file, to note under its candidate.
type load struct {
	name           []byte
	memory, reason string
	text           string
	digest         *snapshot.Hash
	at             time.Time
}

func loadOf(c *walker.Candidate, name []byte, memory, reason string, now time.Time) load {
	l := load{name: name, memory: known(memory, "User", "Project", "Local", "Managed"), reason: reason, at: now.UTC()}
	l.text = "instruction file loaded (" + l.memory + ", " + known(reason, reasons...) + ")"
	if c.Partial() || len(c.Anomalies()) > 0 {
		l.text += "; it could not be fully read, so it has no digest"
	} else {
		d := c.Digest
		l.digest = &d
	}
	return l
}

// due is the note of l in the journal of root's candidate, and whether it
// is due. It is not when the last noted load noted these bytes.
func (l load) due(tx *baseline.Tx, root string) (n baseline.Note, write, changed bool, err error) {
	n = baseline.Note{Kind: baseline.NoteInstructionsLoaded, At: l.at, Digest: l.digest, ID: tx.ID(root, l.name), Text: l.text}
	notes, err := tx.Notes().Of(n.ID)
	if err != nil {
		return n, false, false, err
	}
	prev := lastLoad(notes)
	if prev != nil && sameHash(prev.Digest, n.Digest) {
		return n, false, false, nil
	}
	if prev != nil {
		n.Text = changedMark + l.text + "; last noted " + prev.At.UTC().Format(time.DateOnly)
	}
	return n, true, prev != nil, nil
}

// note journals l when it is due. A changed load is also kept as an untold
// instruction change, unless it was told already.
func (l load) note(tx *baseline.Tx, root string) error {
	n, write, changed, err := l.due(tx, root)
	if err != nil || !write {
		return err
	}
	if err := tx.Notes().Add(n); err != nil || !changed {
		return err
	}
	if told, err := toldAlready(tx, n.ID, n.Digest, l.reason); err != nil || told {
		return err
	}
	return tx.Instructions().Put(baseline.InstructionChange{ID: n.ID, Name: l.name, Memory: l.memory, At: n.At, Digest: n.Digest})
}

// RecordRead records the instruction files of obs once the model was told
// of them. obs are the roots of a folder /add-dir added. Claude Code reads
// their files from its next turn on. Each load is noted as Record notes
// one, with reason ReasonDirectoryAdded. CLAUDE.local.md is a Local file,
// the rest Project, as the client reports them. A file that is new, or
// changed since last delivered or last noted, is kept for the next session
// start to tell the person. Each is recorded as delivered, under the id a
// session given the folder with --add-dir names it. So the next session
// that loads the folder, and the daemon, compare it with what was read
// here. It is one transaction, however many files.
func RecordRead(obs []baseline.Observation, cfg Config) error {
	return baseline.Update(cfg.Store, func(tx *baseline.Tx) error {
		sts, err := tx.CompareObserved(obs)
		if err != nil {
			return err
		}
		var read []baseline.Standing
		for _, st := range sts {
			if st.Observed == nil {
				continue // gone: told by the next session that loads the folder
			}
			memory := "Project"
			if st.Root.Kind == claude.Config && string(st.Name) == "CLAUDE.local.md" {
				memory = "Local"
			}
			l := loadOf(st.Observed, st.Name, memory, ReasonDirectoryAdded, cfg.Now)
			if err := l.note(tx, st.Root.Path); err != nil {
				return err
			}
			// Some files no session start told of: new ones, and ones
			// changed since an earlier session's record with no load
			// noted. They reach the person only through the next session
			// start: the DirectoryAdded notice is the model's. So each is
			// kept for it as a changed load is. Advance then records it as
			// delivered.
			if st.State == baseline.New || st.State == baseline.Changed {
				if err := tx.Instructions().Put(baseline.InstructionChange{ID: st.ID, Name: st.Name, Memory: l.memory, At: l.at, Digest: st.Digest()}); err != nil {
					return err
				}
			}
			read = append(read, st)
		}
		_, err = tx.Advance(read, false, cfg.Now.UTC())
		return err
	})
}

// watchedCandidate is the candidate of roots holding the file at path. So
// its load is noted under an id the store, diff and status know. The path
// is the deepest root path, a slash, then the candidate's name. The name
// is its first components, one of the root's Names when it has them. The
// path is compared as given: an empty, "." or ".." component matches
// nothing.
func watchedCandidate(roots []claude.Root, path string) (claude.Root, string, bool) {
	var best claude.Root
	var name string
	for _, r := range roots {
		rest, ok := strings.CutPrefix(path, strings.TrimSuffix(r.Path, "/")+"/")
		if !ok || r.Path == "" || name != "" && len(r.Path) <= len(best.Path) {
			continue
		}
		parts := strings.Split(rest, "/")
		if slices.ContainsFunc(parts, func(p string) bool { return p == "" || p == "." || p == ".." }) {
			continue
		}
		n := r.Spec().Depth + 1
		if len(parts) < n || r.Names != nil && !slices.Contains(r.Names, parts[0]) {
			continue
		}
		best, name = r, strings.Join(parts[:n], "/")
	}
	return best, name, name != ""
}

// toldAlready reports whether a changed load needs no telling as loaded
// mid-session. A load at session start is the session start's to tell.
// Its hook runs beside this one and compares the file with what was last
// delivered. A load of the bytes a session was last told of says nothing
// new. Without this, a CLAUDE.md edited between sessions was told twice:
// as changed, and again as loaded mid-session.
func toldAlready(tx *baseline.Tx, id string, d *snapshot.Hash, reason string) (bool, error) {
	if reason == "session_start" {
		return true, nil
	}
	rec, err := tx.Record(id)
	if err != nil {
		return false, err
	}
	return rec != nil && sameHash(rec.Digest, d), nil
}

func lastLoad(notes []baseline.Note) *baseline.Note {
	for i := len(notes) - 1; i >= 0; i-- {
		if notes[i].Kind == baseline.NoteInstructionsLoaded {
			return &notes[i]
		}
	}
	return nil
}

func sameHash[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// splitPath splits an absolute path at its last slash, uncleaned. A path
// ending in a slash, or in . or .., names no file.
func splitPath(p string) (dir, name string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if !strings.HasPrefix(p, "/") || i < 0 {
		return "", "", false
	}
	dir, name = p[:i], p[i+1:]
	if dir == "" {
		dir = "/"
	}
	return dir, name, name != "" && name != "." && name != ".."
}

// known is v when it is one of the values Claude Code documents, else
// "unknown". A note is read back to people and sessions.
func known(v string, values ...string) string {
	for _, k := range values {
		if v == k {
			return v
		}
	}
	return "unknown"
}
