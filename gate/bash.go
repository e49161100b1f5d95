package gate

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/shellcmd"
)

// bash answers a Bash call that decide read as what (ok) or could not
// read (err). A skillwire command that records a person's decision is
// asked of the person under balanced and strict. Audit only observes.
// Such a command is denied when project settings steer skillwire. Every
// other command never gets here: Handle leaves it to Claude Code's own
// permissions before reading anything.
//
// A command the gate did not read is unknown: it may be a decision. It is
// past a bound of shellcmd's, or unread by the deadline. It is answered as
// a check that failed (fail), and denied when steered.
func bash(what string, err error) answerer {
	answer := func(a Answer, reason, note, dir string) Response {
		return respond(hookio.EventPreToolUse, hookio.PreToolUseOutput, Outcome{Answer: a, Reason: reason, Note: note}, dir)
	}
	unread := func(p Policy, dir string) Response {
		f := fail(p, err)
		if f.Answer == None {
			return answer(None, "", f.Note, "")
		}
		return answer(f.Answer, f.Note, "", dir)
	}
	reason := "the model's Bash call runs skillwire " + strconv.Quote(what) +
		", a decision only a person makes: allow it only if you asked for it"
	return answerer{
		steered: func(r string) Response { return answer(Deny, r, "", "") },
		noEnv: func(error) Response {
			if err != nil {
				return unread(Strict, "") // the person's policy is unknown
			}
			return answer(Ask, reason, "", "")
		},
		judge: func(_ context.Context, env Env) Response {
			p := fallbackPolicy(env.Store)
			switch {
			case err != nil:
				return unread(p, env.Store.Dir)
			case p == Audit:
				return Response{}
			}
			return answer(Ask, reason, "", env.Store.Dir)
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
