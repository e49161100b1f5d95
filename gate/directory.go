package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/hookio"
	"github.com/skillwire/skillwire/resolve"
	"github.com/skillwire/skillwire/walker"
)

// A folder /add-dir adds mid-session is on no command line and in no
// environment a later hook can read: the DirectoryAdded hook keeps it in
// the store for the session (baseline.SessionDirs), every later gate hook
// of the session judges the names served from it, and the person is told
// what the folder holds. The client reads only systemMessage of the hook's
// output; the event cannot block.

// Why a session's added folder could not be kept, in fixed words.
const (
	unknownNotPlain  = "a folder's path is not one skillwire reads as the client does"
	unknownNoSession = "the hook input names no session to keep the folder for"
	unknownStore     = "skillwire's store could not keep the folder"
)

const noticeUnreadable = "skillwire: the DirectoryAdded hook input could not be read: the folder added to this session is not watched, and the gate cannot judge what it serves"

// maxNoticeNames bounds the names a notice of an added folder lists.
const maxNoticeNames = 8

func told(notice string) Response {
	out, _ := hookio.NoticeOutput(notice)
	return Response{Out: out, Notes: []string{notice}}
}

// directoryAdded keeps in.Directory for the session and tells the person
// what it holds, or that it cannot be observed.
func directoryAdded(in hookio.DirectoryAdd) answerer {
	return answerer{
		steered: func(reason string) Response {
			return told("skillwire: the folder added to this session is not watched: " + reason)
		},
		noEnv: func(error) Response {
			return told("skillwire: the folder added to this session is not watched: skillwire's store cannot be located")
		},
		judge: func(ctx context.Context, env Env) Response {
			if why := keepSessionFolder(ctx, in, env); why != "" {
				return told("skillwire cannot observe the folder added to this session (" + why +
					"): its skills, agents and commands are not watched, and the gate asks for every name it cannot judge")
			}
			return told(folderNotice(claude.AddedRoots([]string{in.Directory}), env.Walker))
		},
	}
}

// keepSessionFolder keeps the folder of in for its session; why, in fixed
// words, is why it is not among the session's observed folders.
func keepSessionFolder(ctx context.Context, in hookio.DirectoryAdd, env Env) string {
	if in.Session == "" {
		return unknownNoSession
	}
	why := ""
	if !claude.PlainPath(in.Directory) {
		why = unknownNotPlain
	}
	var f baseline.SessionFolders
	err := baseline.Update(storeOptions(ctx, env.Store), func(tx *baseline.Tx) error {
		sd := tx.SessionDirs()
		var err error
		if why == "" {
			f, err = sd.Add(in.Session, in.Directory, env.Now)
			if errors.Is(err, baseline.ErrSessionDir) {
				why = unknownNotPlain
			}
		}
		if why != "" {
			f, err = sd.MarkUnknown(in.Session, why, env.Now)
		}
		return err
	})
	switch {
	case errors.Is(err, baseline.ErrToolUseID):
		return unknownNoSession
	case err != nil:
		return unknownStore
	case why == "" && f.Unknown != "" && !slices.Contains(f.Dirs, in.Directory):
		return f.Unknown
	}
	return why
}

// folderNotice says what the roots of an added folder hold: counts, and
// the names that pass the display gate, at most maxNoticeNames.
func folderNotice(roots []claude.Root, cfg walker.Config) string {
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

// withSessionFolders adds to env the roots of the folders the session
// added mid-session and, when one could not be kept or the store could
// not be read, marks env's added folders as not all known.
func withSessionFolders(ctx context.Context, env Env, session string) Env {
	if session == "" {
		return env
	}
	o := storeOptions(ctx, env.Store)
	o.Create, o.ReadOnly = false, true
	var f baseline.SessionFolders
	err := baseline.View(o, func(tx *baseline.Tx) (err error) { f, err = tx.SessionDirs().Of(session); return })
	switch {
	case errors.Is(err, baseline.ErrAbsent):
		return env
	case err != nil:
		env.AddedUnknown = true
		return env
	}
	if f.Unknown != "" {
		env.AddedUnknown = true
	}
	if len(f.Dirs) == 0 {
		return env
	}
	env.Roots = slices.Clone(env.Roots)
	for _, r := range claude.AddedRoots(f.Dirs) {
		if !slices.ContainsFunc(env.Roots, func(o claude.Root) bool { return o.Path == r.Path && o.Kind == r.Kind }) {
			env.Roots = append(env.Roots, r)
		}
	}
	return env
}
