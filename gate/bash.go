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
// A command past a bound of shellcmd's is unknown: it may be a decision.
// It is answered as a check that failed (fail), and denied when steered.
func (h HookEnv) bash(command string) answerer {
	what, ok, err := shellcmd.Decision(command)
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
		steered: func(r string) Response {
			if ok || err != nil {
				return answer(Deny, r, "", "")
			}
			return Response{}
		},
		noEnv: func(error) Response {
			switch {
			case err != nil:
				return unread(Strict, "") // the person's policy is unknown
			case ok:
				return answer(Ask, reason, "", "")
			}
			return Response{}
		},
		judge: func(_ context.Context, env Env) Response {
			switch {
			case err != nil:
				return unread(fallbackPolicy(env.Store), env.Store.Dir)
			case !ok || fallbackPolicy(env.Store) == Audit:
				return Response{}
			}
			return answer(Ask, reason, "", env.Store.Dir)
		},
	}
}

// unreadBound names the bound a Bash command passed. It quotes none of
// the command.
func unreadBound(err error) string {
	if errors.Is(err, shellcmd.ErrTooLarge) {
		return fmt.Sprintf("the Bash command is larger than %d bytes", shellcmd.MaxBytes)
	}
	return fmt.Sprintf("the Bash command nests deeper than %d", shellcmd.MaxDepth)
}
