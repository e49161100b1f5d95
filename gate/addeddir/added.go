// Package addeddir is what skillwire does with a folder /add-dir adds
// mid-session, at the client's DirectoryAdded hook. Keep keeps the folder
// in the store for the session, or says in fixed words why it cannot.
// Folder.Notice says what the folder holds. That includes its instruction
// files where the client reads them. Those are recorded as read
// (Folder.Instructions). The session's later hooks read the folders kept
// for it (Dirs).
//
// Such a folder is on no command line and in no environment a later hook
// can read. So the DirectoryAdded hook keeps it in the store for the
// session (hookstate.SessionDirs). Every later gate hook of the session
// judges the names served from it. The session is told what the folder
// holds. The client reads only systemMessage of the hook's output. It
// hands that to the model with its next turn ("DirectoryAdded hook: …"),
// not to the person (pinned by e2e/addedcfg_test.go). The event cannot
// block.
package addeddir

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/hookstate"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/walker"
)

// Why a session's added folder could not be kept, in fixed words.
const (
	unknownNotPlain  = "a folder's path is not one skillwire reads as the client does"
	unknownNoSession = "the hook input names no session to keep the folder for"
	unknownStore     = "skillwire's store could not keep the folder"
)

// Dirs are the folders the session added mid-session, as the store of o
// keeps them. The store is only read. unknown is true when one could not
// be kept or the store could not be read. A store not made yet keeps none.
// Their roots are claude.AddedRoots'. Whether the client reads their
// instruction files is the caller's to know.
func Dirs(o baseline.Options, session string) (dirs []string, unknown bool) {
	o.Create, o.ReadOnly = false, true
	var f hookstate.SessionFolders
	err := baseline.View(o, func(tx *baseline.Tx) (err error) { f, err = tx.SessionDirs().Of(session); return })
	switch {
	case errors.Is(err, baseline.ErrAbsent):
		return nil, false
	case err != nil:
		return nil, true
	}
	return f.Dirs, f.Unknown != ""
}

// maxNoticeNames bounds the names a notice of an added folder lists.
const maxNoticeNames = 8

// Keep keeps the folder of in for its session in the store of o. The
// caller bounds its lock wait. why says in fixed words why the folder is
// not among the session's observed folders.
func Keep(in hookio.DirectoryAdd, o baseline.Options, now time.Time) (why string) {
	if in.Session == "" {
		return unknownNoSession
	}
	if !claude.PlainPath(in.Directory) {
		why = unknownNotPlain
	}
	var f hookstate.SessionFolders
	err := baseline.Update(o, func(tx *baseline.Tx) error {
		sd := tx.SessionDirs()
		var err error
		if why == "" {
			f, err = sd.Add(in.Session, in.Directory, now)
			if errors.Is(err, hookstate.ErrSessionDir) {
				why = unknownNotPlain
			}
		}
		if why != "" {
			f, err = sd.MarkUnknown(in.Session, why, now)
		}
		return err
	})
	switch {
	case errors.Is(err, hookstate.ErrToolUseID):
		return unknownNoSession
	case err != nil:
		return unknownStore
	case why == "" && f.Unknown != "" && !slices.Contains(f.Dirs, in.Directory):
		return f.Unknown
	}
	return why
}

// Folder is what the roots of one added folder hold, walked once. Its
// roots are claude.AddedRoots of it. Notice tells it. Its instruction
// files are recorded from Instructions.
type Folder struct {
	Roots []claude.Root
	Walks []walker.Root
	// changed are the instruction files changed since the store last
	// delivered them, by root path and name (Compare). unsure: the store
	// could not be read, so whether any changed is not known.
	changed map[[2]string]bool
	unsure  bool
}

// Compare marks the folder's instruction files that changed since the
// store of o last delivered them, for Notice to say so. A session given
// the folder with --add-dir delivers them, as does an earlier /add-dir.
// The store is only read. A store not made yet delivered none. One that
// cannot be read leaves it unknown, and Notice says that.
func (f *Folder) Compare(o baseline.Options) {
	obs := f.Instructions()
	if len(obs) == 0 {
		return
	}
	o.Create, o.ReadOnly = false, true
	err := baseline.View(o, func(tx *baseline.Tx) error {
		sts, err := tx.CompareObserved(obs)
		for _, st := range sts {
			if st.State == baseline.Changed {
				if f.changed == nil {
					f.changed = map[[2]string]bool{}
				}
				f.changed[[2]string{st.Root.Path, string(st.Name)}] = true
			}
		}
		return err
	})
	f.unsure = err != nil && !errors.Is(err, baseline.ErrAbsent)
}

// Observe lists the roots of an added folder within ctx. It observes its
// instruction roots whole, since their digests are recorded as read. A
// skill's bytes are the gate's to read at its use.
func Observe(ctx context.Context, roots []claude.Root, cfg walker.Config) Folder {
	var listed, read []walker.RootSpec
	for _, r := range roots {
		if isInstructions(r) {
			read = append(read, r.Spec())
		} else {
			listed = append(listed, r.Spec())
		}
	}
	l, o := walker.Discover(listed, cfg), walker.Scan(ctx, read, cfg)
	f := Folder{Roots: roots, Walks: make([]walker.Root, 0, len(roots))}
	for _, r := range roots {
		if isInstructions(r) {
			f.Walks, o = append(f.Walks, o[0]), o[1:]
		} else {
			f.Walks, l = append(f.Walks, l[0]), l[1:]
		}
	}
	return f
}

// isInstructions reports whether r holds instruction files.
// claude.AddedRoots lists such roots only when the client reads them.
func isInstructions(r claude.Root) bool { return r.Kind == claude.Config || r.Kind == claude.Rules }

// Instructions are the observations of the folder's instruction roots.
func (f Folder) Instructions() []baseline.Observation {
	var obs []baseline.Observation
	for i, r := range f.Roots {
		if isInstructions(r) {
			obs = append(obs, baseline.Observation{Root: r, Walk: &f.Walks[i]})
		}
	}
	return obs
}

// Notice says what the folder holds, for the model. The client hands a
// DirectoryAdded systemMessage to no one else. It gives counts, and at
// most maxNoticeNames names that pass the display gate. Names are quoted
// and marked as the files' own. It also names the instruction files the
// client reads of it from its next turn, which skillwire cannot stop.
func (f Folder) Notice() string {
	var parts, blind, names, instr []string
	hidden, instrHidden, changedHidden := 0, 0, 0
	for i, w := range f.Walks {
		r := f.Roots[i]
		if isInstructions(r) {
			if len(w.Anomalies) > 0 {
				blind = append(blind, "instruction files ("+w.Anomalies[0].String()+")")
			}
			for _, c := range w.Candidates {
				changed := f.changed[[2]string{r.Path, string(c.Name)}]
				if n, ok := instructionName(f.Roots, r, c.Name); ok && len(instr) < maxNoticeNames {
					if changed {
						n += " (" + changedWords + ")"
					}
					instr = append(instr, n)
				} else {
					instrHidden++
					if changed {
						changedHidden++
					}
				}
			}
			continue
		}
		k := resolve.PlaceOf(r).Kind.String()
		if len(w.Anomalies) > 0 {
			blind = append(blind, k+"s ("+w.Anomalies[0].String()+")")
		}
		if n := len(w.Candidates); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", n, k, plural(n)))
		}
		for _, c := range w.Candidates {
			n := resolve.CandidateOf(r, c.Name, c.Kind).Display()
			if n != "" && len(names) < maxNoticeNames {
				names = append(names, `"`+n+`"`) // gated: no byte needs escaping
			} else {
				hidden++
			}
		}
	}
	var b strings.Builder
	b.WriteString("skillwire watches the folder added to this session: ")
	if len(parts) == 0 {
		b.WriteString("it holds no skills, agents or commands")
	} else {
		b.WriteString("it holds " + strings.Join(parts, ", "))
		if len(names) > 0 {
			b.WriteString(": " + strings.Join(names, ", "))
			if hidden > 0 {
				fmt.Fprintf(&b, " and %d more", hidden)
			}
		}
		b.WriteString("; the gate judges each at its use")
	}
	if n := len(instr) + instrHidden; n > 0 {
		fmt.Fprintf(&b, "; Claude Code reads its %d instruction file%s from the next turn on, unjudged (skillwire cannot stop a read, and records what was read)", n, plural(n))
		if len(instr) > 0 {
			b.WriteString(": " + strings.Join(instr, ", "))
			if instrHidden > 0 {
				fmt.Fprintf(&b, " and %d more", instrHidden)
			}
		}
		if changedHidden > 0 {
			fmt.Fprintf(&b, "; of those not named, %d changed since skillwire last observed them", changedHidden)
		}
		if f.unsure {
			b.WriteString("; whether they changed since skillwire last observed them is not known (its store could not be read)")
		}
	}
	if len(blind) > 0 {
		b.WriteString("; its " + strings.Join(blind, ", ") + " could not be listed, and the gate asks for the names it cannot judge")
	}
	b.WriteString(". " + anomaly.QuotedMark)
	return b.String()
}

// changedWords mark an instruction file changed since the store last
// delivered it.
const changedWords = "changed since skillwire last observed it"

// instructionName is how candidate name of the instruction root r is
// shown: its path under the folder. skillwire's own components are bare.
// The name the folder's author chose is quoted, when it passes the display
// gate. That is a rule's name in .claude/rules, or a folder of rules.
func instructionName(roots []claude.Root, r claude.Root, name []byte) (string, bool) {
	if !anomaly.Gate(name) {
		return "", false
	}
	under := ""
	for _, o := range roots {
		// The folder itself is the shortest of them: .claude/ or
		// .claude/rules/, from AddedRoots' own joins.
		if rel, ok := strings.CutPrefix(r.Path, o.Path+"/"); ok && o.Kind == claude.Config && len(rel)+1 > len(under) {
			under = rel + "/"
		}
	}
	return under + `"` + string(name) + `"`, true // gated: no byte needs escaping
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
