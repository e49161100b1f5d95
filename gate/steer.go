package gate

import "github.com/skillwire/skillwire/claude/steer"

// guard answers every gate hook in projects whose settings steer
// skillwire. It denies, whatever the policy. The store and the roots the
// gate would read may be the project's choice, not the person's.
func guard(projects ...string) (Outcome, bool) {
	r := steer.Steered(projects...)
	if r == "" {
		return Outcome{}, false
	}
	return Outcome{Answer: Deny, Reason: r + "; every skill, agent and command use is denied until the key is removed"}, true
}
