package gate

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/addeddir"
	"github.com/skillwire/skillwire/gate/instructions"
	"github.com/skillwire/skillwire/gate/served"
)

const noticeUnreadable = "skillwire: the DirectoryAdded hook input could not be read: the folder added to this session is not watched, and the gate cannot judge what it serves"

func told(notice string) Response {
	out, _ := hookio.NoticeOutput(notice)
	return Response{Out: out, Notes: []string{notice}}
}

// directoryAdded keeps in.Directory for the session. It says what the
// folder holds, or that it cannot be observed. The client hands that to
// the model.
func directoryAdded(in hookio.DirectoryAdd) answerer {
	return answerer{
		steered: func(reason string) Response {
			return told("skillwire: the folder added to this session is not watched: " + reason)
		},
		noEnv: func(error) Response {
			return told("skillwire: the folder added to this session is not watched: skillwire's store cannot be located")
		},
		judge: func(ctx context.Context, env Env) Response {
			if why := addeddir.Keep(in, storeOptions(ctx, env.Store), env.Now); why != "" {
				return told("skillwire cannot observe the folder added to this session (" + why +
					"): its skills, agents and commands are not watched, and the gate asks for every name it cannot judge")
			}
			roots := env.addedRoots([]string{in.Directory})
			f := addeddir.Observe(ctx, roots, env.Walker)
			f.Compare(storeOptions(ctx, env.Store))
			r := told(f.Notice())
			// The client read the skills just before: kept (e2e/servedadd_test.go).
			if err := served.Keep(ctx, storeOptions(ctx, env.Store), in.Session, served.SkillsFolders([]string{in.Directory}), roots, env.Walker, cmp.Or(env.Now, time.Now())); err != nil {
				r.Notes = append(r.Notes, "skillwire gate: the copy Claude Code read of the added folder's skills was not kept; they are judged on the disk")
			}
			if obs := f.Instructions(); len(obs) > 0 {
				// Recorded once the model was told. What the client reads
				// from its next turn on is then what was delivered.
				r.Delivered = func() error {
					return instructions.RecordRead(obs, instructions.Config{Store: storeOptions(ctx, env.Store), Now: env.Now})
				}
			}
			return r
		},
	}
}

// addedRoots are the roots of the folders dirs the session added. Where
// the client reads their instruction files, those are among them.
func (env Env) addedRoots(dirs []string) []claude.Root {
	on := env.AddedInstructions != nil && env.AddedInstructions()
	return claude.AddedRoots(dirs, on, env.Home)
}

// withSessionFolders adds to env the roots of the folders the session
// added mid-session. When one could not be kept, or the store could not
// be read, it marks env's added folders as not all known.
func withSessionFolders(ctx context.Context, env Env, session string) Env {
	if session == "" {
		return env
	}
	dirs, unknown := addeddir.Dirs(storeOptions(ctx, env.Store), session)
	env.AddedUnknown = env.AddedUnknown || unknown
	if len(dirs) == 0 {
		return env
	}
	roots := env.addedRoots(dirs)
	env.Roots = slices.Clone(env.Roots)
	for _, r := range roots {
		if !slices.ContainsFunc(env.Roots, func(o claude.Root) bool { return o.Path == r.Path && o.Kind == r.Kind }) {
			env.Roots = append(env.Roots, r)
		}
	}
	return env
}
