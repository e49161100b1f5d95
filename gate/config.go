package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/gate/served"
	"github.com/skillwire/skillwire/gate/settingschange"
	"github.com/skillwire/skillwire/walker"
)

// ConfigOutcome is the gate's answer to a ConfigChange: block (Deny) with
// Reason, or nothing. Notes go to stderr, a block to the hook log too.
type ConfigOutcome struct {
	Answer Answer
	Reason string
	Notes  []string
}

// configChanged answers a change Claude Code is about to apply mid-session.
// A skill file's change judges that skill on its bytes now. What the table
// denies is blocked, and every ask or deny is journaled. An ask is left to
// the use itself, which the PreToolUse gate holds. SettingsChanged judges
// a settings source's change. A change of policy (managed) settings cannot
// be blocked.
func configChanged(ctx context.Context, c hookio.ConfigChange, env Env, deadline time.Duration) ConfigOutcome {
	switch c.Source {
	case hookio.SourceSkills:
	case hookio.SourceUserSettings, hookio.SourceProjectSettings, hookio.SourceLocalSettings, hookio.SourcePolicySettings:
		return SettingsChanged(ctx, c, env, deadline)
	default:
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of an unknown source; nothing judged"}}
	}
	if c.Path == "" {
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of skills without an absolute file_path; nothing judged"}}
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	o := run(ctx, Use{Path: c.Path, Event: hookio.EventConfigChange}, env, deadline)
	out := ConfigOutcome{}
	if o.Note != "" {
		out.Notes = append(out.Notes, o.Note)
	}
	if o.Answer != Deny || !c.Blockable() {
		// Not blocked: the client reads the skill again now, one of a
		// folder /add-dir added too.
		if err := served.Reloaded(ctx, served.ReloadOf{Store: storeOptions(ctx, env.Store), Session: c.Session, Path: c.Path,
			Roots: withSessionFolders(ctx, env, c.Session).Roots, Nested: env.Nested, Walker: env.Walker, Now: env.Now}); err != nil {
			out.Notes = append(out.Notes, "skillwire gate: the copy Claude Code reloads of a skill was not kept; its use is asked")
		}
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

// SettingsChanged judges a settings file Claude Code is about to reload.
// It reads the file's security subset now, through the walker. It compares
// that with the form the store last delivered to a session. Else it uses
// the one a person reviewed. Else there is none, so all of it is new.
// Under balanced and strict, some changes are blocked: those that add or
// change a hook, a helper command, env, MCP servers or their enablement,
// enabled plugins or marketplaces, or any permission. The first fact is the
// reason, and the block is journaled as a gate-deny note. So is a file
// that cannot be read safely (a link, oversize, unparsable): its change is
// unknown. The delivered form is left alone. So the next session start
// tells the change whatever was answered. Policy settings are judged but
// never blocked. The note says what changed. The file_path Claude Code
// sends is not trusted to name the file. The source does, in the roots the
// gate was given.
func SettingsChanged(ctx context.Context, c hookio.ConfigChange, env Env, deadline time.Duration) ConfigOutcome {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	sf := settingschange.Of(c.Source)
	root, ok := sf.Root(env.Roots)
	if !ok {
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of " + sf.Label + ", which this session does not watch; nothing judged"}}
	}
	cand := walker.ObserveIn(ctx, root.Spec(), []byte(sf.Name), env.Walker)
	var p Policy
	why, id, err := settingsJudge(ctx, root, &cand, sf.Label, c.Blockable(), env, &p)
	if err == nil && why == "" && c.Blockable() {
		why, id, err = settingsReread(ctx, c.Source, env, &p)
	}
	if err != nil {
		if !p.Valid() {
			p = fallbackPolicy(env.Store)
		}
		f := fail(p, err)
		out := ConfigOutcome{Notes: []string{f.Note}}
		if f.Answer == Deny && c.Blockable() {
			out.Answer, out.Reason = Deny, f.Note
		}
		return out
	}
	switch {
	case why == "":
		return ConfigOutcome{}
	case !c.Blockable():
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of " + why + " (policy settings cannot be blocked)"}}
	case p == Audit:
		return ConfigOutcome{Notes: []string{"skillwire gate: ConfigChange of " + why + " (not blocked: policy audit)"}}
	}
	reason := why + "; blocked until reviewed: see 'skillwire diff " + id + "'"
	return ConfigOutcome{Answer: Deny, Reason: reason}
}

// settingsReread says why a settings file the client reads again at a
// change of source must be blocked (settingschange.Rereads): the first's
// reason, with its id; "" when none.
func settingsReread(ctx context.Context, source string, env Env, p *Policy) (why, id string, err error) {
	for _, o := range settingschange.Rereads(source, env.Roots) {
		oc := walker.ObserveIn(ctx, o.Root.Spec(), []byte(o.Name), env.Walker)
		label := o.Label + ", read again with the change of " + settingschange.Of(source).Label
		if why, id, err = settingsJudge(ctx, o.Root, &oc, label, true, env, p); err != nil || why != "" {
			return why, id, err
		}
	}
	return "", "", nil
}

// settingsJudge says why the observed settings file cand must be blocked,
// with its id. why is "" when it need not. It judges under the store's
// policy, set in p as soon as it is read. Only a block that is answered
// is journaled as a deny. An unblockable change or the audit policy
// answers nothing.
func settingsJudge(ctx context.Context, root claude.Root, cand *walker.Candidate, label string, blockable bool, env Env, p *Policy) (why, id string, err error) {
	if cand.Partial() || ctx.Err() != nil {
		return "", "", fmt.Errorf("%w: reading settings", ErrDeadline)
	}
	st, err := openStore(storeOptions(ctx, env.Store))
	if err != nil {
		return "", "", err
	}
	defer st.Close()
	err = st.Update(func(tx *baseline.Tx) error {
		s, err := tx.Policy().Get()
		if err != nil {
			return err
		}
		if *p, err = ParsePolicy(s); err != nil {
			return err
		}
		id = tx.ID(root.Path, cand.Name)
		why = settingschange.Why(label, cand, tx.Extract(id), tx.ReviewedExtract(id))
		if why == "" || *p == Audit || !blockable {
			return nil
		}
		n := baseline.Note{ID: id, Kind: baseline.NoteGateDeny, At: env.Now.UTC(),
			Text: hookio.EventConfigChange + " deny (policy " + p.String() + "): " + why}
		if cand.Canonical != nil {
			d := cand.Digest
			n.Digest = &d
		}
		return tx.Notes().Add(n)
	})
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrStore, err)
	}
	return why, id, nil
}
