package gate

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/shellcmd"
)

// bash answers a Bash call. A skillwire command that records a person's
// decision is asked of the person under balanced and strict. Audit only
// observes. Such a command is denied when project settings steer
// skillwire. Every other command is left to Claude Code's own permissions.
//
// A command the gate did not read is unknown: it may be a decision. It is
// past a bound of shellcmd's, or unread by the deadline. It is answered as
// a check that failed (fail), and denied when steered.
func (h HookEnv) bash(ctx context.Context, command string) answerer {
	answer := func(a Answer, reason, note, dir string) Response {
		return respond(hookio.EventPreToolUse, hookio.PreToolUseOutput, Outcome{Answer: a, Reason: reason, Note: note}, dir)
	}
	unread := func(p Policy, err error, dir string) Response {
		f := fail(p, err)
		if f.Answer == None {
			return answer(None, "", f.Note, "")
		}
		return answer(f.Answer, f.Note, "", dir)
	}
	reason := func(what string) string {
		return "the model's Bash call runs skillwire " + strconv.Quote(what) +
			", a decision only a person makes: allow it only if you asked for it"
	}
	// The command is read last, once the store is found. So the read has
	// what is left of the hook's deadline.
	return answerer{
		steered: func(r string) Response {
			if _, ok, err := decide(ctx, command); ok || err != nil {
				return answer(Deny, r, "", "")
			}
			return Response{}
		},
		noEnv: func(error) Response {
			what, ok, err := decide(ctx, command)
			switch {
			case err != nil:
				return unread(Strict, err, "") // the person's policy is unknown
			case ok:
				return answer(Ask, reason(what), "", "")
			}
			return Response{}
		},
		judge: func(ctx context.Context, env Env) Response {
			what, ok, err := decide(ctx, command)
			switch {
			case err != nil:
				return unread(fallbackPolicy(env.Store), err, env.Store.Dir)
			case !ok || fallbackPolicy(env.Store) == Audit:
				return Response{}
			}
			return answer(Ask, reason(what), "", env.Store.Dir)
		},
	}
}

// testHookDecision, when set by a test, stands in for shellcmd.Decision.
var testHookDecision func(string) (string, bool, error)

// decide runs shellcmd.Decision under ctx's deadline, else Deadline. A
// read cut short is ErrDeadline.
func decide(ctx context.Context, command string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, untilDeadline(ctx))
	defer cancel()
	decision := shellcmd.Decision
	if testHookDecision != nil {
		decision = testHookDecision
	}
	what, ok, err := shellcmd.Within(ctx, command, decision)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return "", false, fmt.Errorf("%w: reading the Bash command: %w", ErrDeadline, err)
	}
	return what, ok, err
}
