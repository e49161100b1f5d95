package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/resolve"
	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/gate/instructions"
)

// Deadline is the time a gate hook has for its whole answer. Reading its
// input counts (DESIGN.md §13).
const Deadline = 2 * time.Second

// HookEnv is what a hook's answer depends on besides its input. Claude is
// the process environment: it says whose project settings apply
// (claude.HookProjects). For gives the gate's Env for the hook's cwd, ""
// when the input gave none. Its error means the store cannot be located.
type HookEnv struct {
	Claude claude.Env
	For    func(cwd string) (Env, error)
}

// Response is a hook's answer: Out for stdout (nil: nothing) and Notes for
// stderr. When Out asks or denies, the hook log keeps Answer, Reason and
// IDs beside the store in Dir. Dir is "" when there is no state directory
// to trust: unlocated, or steered by project settings.
type Response struct {
	Out    []byte
	Notes  []string
	Answer Answer
	Reason string
	IDs    []string
	Dir    string
	// Delivered, when set, records what Out told. It is called only once
	// Out was written whole, never before (session.Deliver's rule).
	Delivered func() error
}

// Handle answers the hook of event (hookio.EventPreToolUse, ...) whose
// input was read as input. A use that names no candidate is answered with
// nothing: another tool, a built-in or MCP prompt. The one guard judges
// every other first.
func Handle(ctx context.Context, event string, input []byte, h HookEnv) Response {
	switch event {
	case hookio.EventPreToolUse:
		in, err := hookio.ParsePreToolUse(input)
		if err != nil {
			return Unreadable(event, err, h)
		}
		if a := in.AgentType; a != "" {
			// The session (or subagent) runs as an agent. A settings
			// "agent" can make a BLOCKed one the main agent. A custom file
			// may take a built-in's name, and then it is the one that runs.
			// Every call of a BLOCKed main agent is denied. A check that
			// could not be made in time is answered as any other.
			held := Use{Kind: resolve.Agent, Name: a, Event: event, Session: in.Session, Prompt: in.Prompt, DenyOnly: true}
			if r := h.guarded(ctx, in.Cwd, h.use(held, hookio.PreToolUseOutput)); r.Answer != None {
				return r
			}
		}
		if in.Tool == hookio.ToolBash {
			// Most commands touch nothing skillwire gates. They are let
			// through before any setting, store or candidate is read.
			what, ok, err := decide(ctx, in.Command)
			if err == nil && !ok {
				return Response{}
			}
			return h.guarded(ctx, in.Cwd, bash(what, err))
		}
		kind, ok := resolve.KindOfTool(in.Tool)
		if !ok {
			return Response{} // a tool that names no candidate
		}
		u := Use{Kind: kind, Name: resolve.Spelled(kind, in.Name), Event: event, ToolUseID: in.ToolUseID, Session: in.Session, Prompt: in.Prompt}
		if kind == resolve.Workflow {
			u.Script, u.Path = in.Script, in.ScriptPath // the file it runs, over the name
		}
		return h.guarded(ctx, in.Cwd, h.use(u, hookio.PreToolUseOutput))
	case hookio.EventPostToolUse:
		in, err := hookio.ParsePostToolUse(input)
		if err != nil {
			return noted("skillwire gate: PostToolUse input could not be read; nothing was recorded")
		}
		switch in.Tool {
		case hookio.ToolRead, hookio.ToolEdit, hookio.ToolWrite:
			return h.guarded(ctx, in.Cwd, touched(in))
		}
		return h.guarded(ctx, in.Cwd, allowedAtUse(in))
	case hookio.EventUserPromptExpansion:
		in, err := hookio.ParseUserPromptExpansion(input)
		if err != nil {
			return Unreadable(event, err, h)
		}
		if in.Type != "slash_command" || in.Source == "builtin" || in.Source == "mcp" {
			return Response{} // an MCP prompt or a built-in command is no candidate
		}
		return h.guarded(ctx, in.Cwd, h.use(Use{Kind: resolve.Skill, Name: resolve.Spelled(resolve.Skill, in.Name), Event: event, Session: in.Session}, hookio.UserPromptExpansionOutput))
	case hookio.EventConfigChange:
		in, err := hookio.ParseConfigChange(input)
		if err != nil {
			return Unreadable(event, err, h)
		}
		return h.guarded(ctx, in.Cwd, h.configChange(in))
	case hookio.EventInstructionsLoaded:
		in, err := hookio.ParseInstructionsLoaded(input)
		if err != nil {
			return noted("skillwire gate: InstructionsLoaded input could not be read; nothing was recorded")
		}
		return h.guarded(ctx, in.Cwd, instructionsLoaded(in))
	case hookio.EventDirectoryAdded:
		in, err := hookio.ParseDirectoryAdded(input)
		if err != nil {
			return told(noticeUnreadable)
		}
		return h.guarded(ctx, in.Cwd, directoryAdded(in))
	}
	return noted(fmt.Sprintf("skillwire gate: no hook answers %q; nothing was answered", event))
}

// Unreadable answers a hook whose input could not be read: late, too
// large, not the expected JSON. It answers as any other failure to judge.
// The policy is the one mirrored beside the store. It is strict when the
// store cannot be located. The error's text may quote the input, so it is
// not shown.
func Unreadable(event string, err error, h HookEnv) Response {
	var f failure
	dir := ""
	if env, lerr := h.For(""); lerr != nil {
		f = unlocated(lerr)
	} else {
		dir = env.Store.Dir
		f = fail(fallbackPolicy(env.Store), err)
	}
	r := noted(f.Note + "; the hook input could not be read")
	render := renderFor(event)
	if d, ok := f.Answer.Decision(); ok && render != nil {
		if r.Out, _ = render(d, f.Note); r.Out != nil {
			r.Answer, r.Reason, r.Dir = f.Answer, f.Note, dir
		}
	}
	return r
}

// renderFor prints event's answer. It is nil for an event that cannot
// answer.
func renderFor(event string) func(hookio.Decision, string) ([]byte, error) {
	switch event {
	case hookio.EventPreToolUse:
		return hookio.PreToolUseOutput
	case hookio.EventUserPromptExpansion:
		return hookio.UserPromptExpansionOutput
	case hookio.EventConfigChange:
		return hookio.ConfigChangeOutput
	}
	return nil
}

func noted(note string) Response { return Response{Notes: []string{note}} }

// answerer is how an event whose input was read is answered. steered is
// for when its projects' settings steer skillwire: reason says how. noEnv
// is for when the gate's Env cannot be built. judge judges in it.
type answerer struct {
	steered func(reason string) Response
	noEnv   func(err error) Response
	judge   func(ctx context.Context, env Env) Response
}

// guarded is the one guard of every gate event. In projects whose settings
// steer skillwire, nothing is judged. The store and the roots the gate
// would read may be the project's choice, not the person's.
func (h HookEnv) guarded(ctx context.Context, cwd string, a answerer) Response {
	if g, steered := guard(claude.HookProjects(h.Claude, cwd)...); steered {
		return a.steered(g.Reason)
	}
	env, err := h.For(cwd)
	if err != nil {
		return a.noEnv(err)
	}
	return a.judge(ctx, env)
}

// use answers a use of a candidate, rendered by render. It denies when
// steered. Else it gives run's answer under the hook's deadline.
func (h HookEnv) use(u Use, render func(hookio.Decision, string) ([]byte, error)) answerer {
	answer := func(o Outcome, dir string) Response { return respond(u.Event, render, o, dir) }
	return answerer{
		steered: func(reason string) Response { return answer(Outcome{Answer: Deny, Reason: reason}, "") },
		noEnv:   func(err error) Response { return Unreadable(u.Event, err, h) },
		judge: func(ctx context.Context, env Env) Response {
			env = withStartPlugins(ctx, withSessionFolders(ctx, env, u.Session), u.Session)
			o := run(ctx, u, env, untilDeadline(ctx))
			r := answer(o, env.Store.Dir)
			if r.Out != nil {
				if err := appendGateEvents(ctx, u, o, env.Store.Dir); err != nil {
					r.Notes = append(r.Notes, "skillwire gate: the fleet event was not written: "+err.Error())
				}
			}
			return r
		},
	}
}

// appendGateEvents writes an OCSF event for each candidate an ask or deny
// was about, to events.ndjson beside the store. It is what a fleet sees of
// the gate. It never holds the answer past the hook's deadline.
func appendGateEvents(ctx context.Context, u Use, o Outcome, dir string) error {
	if dir == "" {
		return nil
	}
	origin := events.Origin{SessionID: u.Session, PromptID: u.Prompt, Via: "gate"}
	hook := map[string]string{hookio.EventPreToolUse: "pre-tool-use", hookio.EventUserPromptExpansion: "prompt-expansion"}[u.Event]
	var evs []events.Event
	for _, f := range o.Result.Findings {
		a := Decide(o.Result.Policy, f.State)
		if a == None || f.Root {
			continue
		}
		c := events.Candidate{ID: f.Candidate.ID, Kind: f.Candidate.Kind.String(), Scope: f.Candidate.Scope.String(), Name: f.Candidate.Display()}
		ans := events.Answer{Hook: hook, Decision: a.String(), Policy: o.Result.Policy.String(), Tool: toolOf(u), Reason: Reason(f)}
		if f.Digest != nil {
			ans.Digest = f.Digest.String()
		}
		evs = append(evs, events.GateAnswer(origin, c, ans))
	}
	if len(evs) == 0 && o.Answer != None {
		// The gate could not judge: a deadline, an error. A fleet should
		// still see the answer.
		c := events.Candidate{Kind: u.Kind.String(), Scope: "unknown"}
		evs = append(evs, events.GateAnswer(origin, c, events.Answer{Hook: hook, Decision: o.Answer.String(), Policy: o.Result.Policy.String(), Tool: toolOf(u), Reason: o.Reason}))
	}
	return events.Append(ctx, dir, evs...)
}

func toolOf(u Use) string {
	if u.Event == hookio.EventUserPromptExpansion {
		return "slash-command"
	}
	switch u.Kind {
	case resolve.Agent:
		return hookio.ToolAgent
	case resolve.Workflow:
		return hookio.ToolWorkflow
	}
	return hookio.ToolSkill
}

// respond renders o for event: render prints its decision. It adds the
// notes for stderr, and what the hook log keeps beside the store in dir.
// An outcome that neither asks nor denies prints nothing.
func respond(event string, render func(hookio.Decision, string) ([]byte, error), o Outcome, dir string) Response {
	var r Response
	if o.Note != "" {
		r.Notes = append(r.Notes, o.Note)
	}
	d, ok := o.Answer.Decision()
	if !ok {
		return r
	}
	out, err := render(d, o.Reason)
	if err != nil {
		r.Notes = append(r.Notes, "skillwire gate: the answer could not be rendered; nothing was answered")
		return r
	}
	r.Out, r.Answer, r.Reason, r.IDs, r.Dir = out, o.Answer, o.Reason, o.Result.Asked(), dir
	r.Notes = append(r.Notes, fmt.Sprintf("skillwire gate: %s %s: %s", event, o.Answer, o.Reason))
	return r
}

// configChange answers a change Claude Code is about to apply. It blocks
// when steered, save a policy settings change, which cannot be blocked.
// Else it gives configChanged's answer under the hook's deadline.
func (h HookEnv) configChange(in hookio.ConfigChange) answerer {
	return answerer{
		steered: func(reason string) Response {
			r := noted("skillwire gate: ConfigChange block: " + reason)
			if in.Blockable() {
				r.Out, _ = hookio.ConfigChangeOutput(hookio.Deny, reason)
				r.Answer, r.Reason = Deny, reason
			}
			return r
		},
		noEnv: func(err error) Response { return Unreadable(hookio.EventConfigChange, err, h) },
		judge: func(ctx context.Context, env Env) Response {
			o := configChanged(ctx, in, env, untilDeadline(ctx))
			r := Response{Notes: o.Notes}
			d, ok := o.Answer.Decision()
			if !ok {
				return r
			}
			out, err := hookio.ConfigChangeOutput(d, o.Reason)
			if err != nil {
				r.Notes = append(r.Notes, "skillwire gate: the answer could not be rendered; nothing was answered")
				return r
			}
			r.Out, r.Answer, r.Reason, r.Dir = out, o.Answer, o.Reason, env.Store.Dir
			r.Notes = append(r.Notes, fmt.Sprintf("skillwire gate: %s block: %s", hookio.EventConfigChange, o.Reason))
			return r
		},
	}
}

// allowedAtUse records that the person allowed the call the gate asked
// about. Claude Code runs PostToolUse only for a call that ran. A -p
// session or a "no" never runs it. The allow binds to the bytes the ask
// judged. A call the gate did not ask about records nothing.
func allowedAtUse(in hookio.ToolUse) answerer {
	unrecorded := func(error) Response {
		return noted("skillwire gate: the person's allow at use could not be recorded")
	}
	return answerer{
		steered: func(reason string) Response {
			return noted("skillwire gate: PostToolUse not recorded: " + reason)
		},
		noEnv: unrecorded,
		judge: func(ctx context.Context, env Env) Response {
			err := baseline.Update(storeOptions(ctx, env.Store), func(tx *baseline.Tx) error {
				a, err := tx.Asks().Take(in.Session, in.ToolUseID)
				if err != nil || a == nil {
					return err
				}
				// The call that ran must be the one asked about. The tool
				// and name must match, not only the id.
				kind, ok := resolve.KindOfTool(in.Tool)
				if !ok || a.Tool != kind.String() || a.Name != resolve.Spelled(kind, in.Name) {
					return nil
				}
				now := env.Now
				if now.IsZero() {
					now = time.Now()
				}
				for _, x := range a.Asked {
					if err := tx.Allow(x.ID, x.Digest, in.Session, now); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return unrecorded(err)
			}
			return Response{}
		},
	}
}

// touched keeps what the nested skills folders above the file a Read, Edit
// or Write touched held: the client read them at that call (keepServed).
// The event cannot block. A copy not kept leaves the skills' uses asked.
func touched(in hookio.ToolUse) answerer {
	unkept := func(error) Response {
		return noted("skillwire gate: what Claude Code read of a nested skills folder was not kept; its skills' use is asked")
	}
	return answerer{
		steered: func(reason string) Response {
			return noted("skillwire gate: PostToolUse not recorded: " + reason)
		},
		noEnv: unkept,
		judge: func(ctx context.Context, env Env) Response {
			if err := keepServed(ctx, in, env); err != nil {
				return unkept(err)
			}
			return Response{}
		},
	}
}

// instructionsLoaded records a load. The event cannot block, so every
// answer is a note at most.
func instructionsLoaded(in hookio.InstructionsLoad) answerer {
	unrecorded := func(error) Response {
		return noted("skillwire gate: the instruction file's load could not be recorded")
	}
	return answerer{
		steered: func(reason string) Response {
			return noted("skillwire gate: InstructionsLoaded not recorded: " + reason)
		},
		noEnv: unrecorded,
		judge: func(ctx context.Context, env Env) Response {
			// A file of a folder /add-dir added is noted under its
			// candidate's id there. A session given the folder names it so.
			env = withSessionFolders(ctx, env, in.Session)
			if err := recordInstructionsLoaded(ctx, in, env); err != nil {
				return unrecorded(err)
			}
			return Response{}
		},
	}
}

// recordInstructionsLoaded journals the load l in env (instructions.Record).
// ctx bounds the store's lock wait.
func recordInstructionsLoaded(ctx context.Context, l hookio.InstructionsLoad, env Env) error {
	return instructions.Record(ctx, l, instructions.Config{Roots: env.Roots, Walker: env.Walker, Store: storeOptions(ctx, env.Store), Now: env.Now})
}

// untilDeadline is the time left before ctx's deadline, else Deadline.
func untilDeadline(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
	}
	return Deadline
}
