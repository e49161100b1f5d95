package gate

import (
	"context"
	"time"

	"github.com/skillwire/skillwire/claude"
)

// ConfigOutcome is the gate's answer to a ConfigChange: block (Deny) with
// Reason, or nothing; Notes go to stderr and the hook log.
type ConfigOutcome struct {
	Answer Answer
	Reason string
	Notes  []string
}

// ConfigChanged answers a change Claude Code is about to apply mid-session.
// A skill file's change judges that skill on its bytes now: what the table
// denies is blocked, and every ask or deny is journaled; an ask is left to
// the use itself, which the PreToolUse gate holds. A settings source's
// change is not judged: telling a new hook, env, helper command, MCP
// enablement or permission from the rest needs the settings facts of
// issue #15, which this build does not have; the note says so. A change of
// policy (managed) settings cannot be blocked.
func ConfigChanged(ctx context.Context, c claude.ConfigChange, env Env, deadline time.Duration) ConfigOutcome {
	if c.Source != claude.SourceSkills {
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of " + known(c.Source,
			claude.SourceUserSettings, claude.SourceProjectSettings, claude.SourceLocalSettings, claude.SourcePolicySettings) +
			" not judged: this build cannot tell which settings keys changed"}}
	}
	if c.Path == "" {
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of skills without an absolute file_path; nothing judged"}}
	}
	o := Run(ctx, Use{Path: c.Path, Event: claude.EventConfigChange}, env, deadline)
	out := ConfigOutcome{}
	if o.Note != "" {
		out.Notes = append(out.Notes, o.Note)
	}
	switch o.Answer {
	case Deny:
		out.Answer, out.Reason = Deny, o.Reason
	case Ask:
		out.Notes = append(out.Notes, "skillwire gate: ConfigChange ask (left to the skill's use): "+o.Reason)
	}
	if !c.Blockable() {
		out.Answer = None
	}
	return out
}
