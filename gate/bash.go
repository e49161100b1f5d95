package gate

import (
	"context"
	"strconv"

	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/shellcmd"
)

// bash answers a Bash call. A skillwire command that records a person's
// decision is asked of the person under balanced and strict. Audit only
// observes. Such a command is denied when project settings steer
// skillwire. Every other command is left to Claude Code's own permissions.
func (h HookEnv) bash(command string) answerer {
	what, ok := shellcmd.Decision(command)
	answer := func(a Answer, reason, dir string) Response {
		if !ok {
			return Response{}
		}
		return respond(hookio.EventPreToolUse, hookio.PreToolUseOutput, Outcome{Answer: a, Reason: reason}, dir)
	}
	reason := "the model's Bash call runs skillwire " + strconv.Quote(what) +
		", a decision only a person makes: allow it only if you asked for it"
	return answerer{
		steered: func(r string) Response { return answer(Deny, r, "") },
		noEnv:   func(error) Response { return answer(Ask, reason, "") },
		judge: func(_ context.Context, env Env) Response {
			if fallbackPolicy(env.Store) == Audit {
				return answer(None, "", "")
			}
			return answer(Ask, reason, env.Store.Dir)
		},
	}
}
