// Package addeddir is what skillwire does with a folder /add-dir adds
// mid-session (the client's DirectoryAdded hook): it keeps the folder in the
// store for the session (Keep), or says in fixed words why it cannot, and
// says what the folder holds (Notice); the session's later hooks read the
// folders kept for it (Roots).
//
// A folder /add-dir adds mid-session is on no command line and in no
// environment a later hook can read: the DirectoryAdded hook keeps it in
// the store for the session (hookstate.SessionDirs), every later gate hook
// of the session judges the names served from it, and the session is told
// what the folder holds. The client reads only systemMessage of the hook's
// output, and hands it to the model with its next turn ("DirectoryAdded
// hook: …"), not to the person (pinned by e2e/addedcfg_test.go); the event
// cannot block.
package addeddir

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/hookio"
	"github.com/skillwire/skillwire/hookstate"
	"github.com/skillwire/skillwire/resolve"
	"github.com/skillwire/skillwire/walker"
)

// Why a session's added folder could not be kept, in fixed words.
const (
	unknownNotPlain  = "a folder's path is not one skillwire reads as the client does"
	unknownNoSession = "the hook input names no session to keep the folder for"
	unknownStore     = "skillwire's store could not keep the folder"
)

// Roots are the roots of the folders the session added mid-session, as the
// store of o keeps them (read only); unknown is true when one could not be
// kept or the store could not be read. A store not made yet keeps none.
func Roots(o baseline.Options, session string) (roots []claude.Root, unknown bool) {
	o.Create, o.ReadOnly = false, true
	var f hookstate.SessionFolders
	err := baseline.View(o, func(tx *baseline.Tx) (err error) { f, err = tx.SessionDirs().Of(session); return })
	switch {
	case errors.Is(err, baseline.ErrAbsent):
		return nil, false
	case err != nil:
		return nil, true
	}
	return claude.AddedRoots(f.Dirs), f.Unknown != ""
}

// maxNoticeNames bounds the names a notice of an added folder lists.
const maxNoticeNames = 8

// Keep keeps the folder of in for its session in the store of o (its lock
// wait bounded by the caller); why, in fixed words, is why it is not among
// the session's observed folders.
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

// Notice says what the roots of an added folder hold: counts, and
// the names that pass the display gate, at most maxNoticeNames.
func Notice(roots []claude.Root, cfg walker.Config) string {
	specs := make([]walker.RootSpec, len(roots))
	for i, r := range roots {
		specs[i] = r.Spec()
	}
	var parts, blind, names []string
	hidden := 0
	for i, w := range walker.Discover(specs, cfg) {
		k := resolve.PlaceOf(roots[i]).Kind.String()
		if len(w.Anomalies) > 0 {
			blind = append(blind, k+"s ("+w.Anomalies[0].String()+")")
		}
		if n := len(w.Candidates); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s%s", n, k, plural(n)))
		}
		for _, c := range w.Candidates {
			n := resolve.CandidateOf(roots[i], c.Name, c.Kind).Display()
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
	if len(blind) > 0 {
		b.WriteString("; its " + strings.Join(blind, ", ") + " could not be listed, and the gate asks for the names it cannot judge")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
