package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/gate"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// The gate's time limits (DESIGN.md §13): a hard deadline for the whole
// answer, of which reading stdin may take a part.
const (
	gateDeadline  = 2 * time.Second
	gateStdinWait = 300 * time.Millisecond
)

func newGateCmd(s *streams) *cobra.Command {
	g := &cobra.Command{
		Use:   "gate",
		Short: "The gate: what the blocking hooks answer at the moment of use",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	policy := &cobra.Command{
		Use:   "policy [audit|balanced|strict]",
		Short: "Show or choose the gate's policy (default balanced)",
		Long: `policy shows the gate's policy, or with a name chooses it. The policy is
kept in the store, so a project cannot change it:

  audit     never asks or denies; every finding is only recorded
  balanced  asks for what is new, pending, anomalous or SUSPECT; denies BLOCK
  strict    also asks for what was never reviewed; denies the rest

Exit 0, 2 for an unknown policy, 4 when the store cannot be used.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return gatePolicy(s, args, asJSON) },
	}
	policy.Flags().BoolVar(&asJSON, "json", false, `print {"policy": ...}`)
	g.AddCommand(policy)
	return g
}

func gatePolicy(s *streams, args []string, asJSON bool) error {
	w, err := loadWorld(s)
	if err != nil {
		return err
	}
	var p string
	if len(args) == 1 {
		if _, err := gate.ParsePolicy(args[0]); err != nil {
			return fail(exitUsage, "the policy must be audit, balanced or strict")
		}
		st, err := w.open(true, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := st.SetGatePolicy(w.stateDir, args[0]); err != nil {
			return storeErr(err)
		}
		p = args[0]
	} else {
		st, err := w.open(false, true)
		switch {
		case errors.Is(err, baseline.ErrAbsent):
			p = baseline.GateDefault
		case err != nil:
			return err
		default:
			err = st.View(func(tx *baseline.Tx) (err error) { p, err = tx.GatePolicy(); return })
			st.Close()
			if err != nil {
				return storeErr(err)
			}
		}
	}
	if asJSON {
		return writeJSON(s.out, map[string]string{"policy": p})
	}
	fmt.Fprintf(s.out, "gate policy: %s\n", p)
	return nil
}

// gateHookCmds are the hooks of the gate, under `skillwire hook`.
func gateHookCmds(s *streams) []*cobra.Command {
	mk := func(use, event, short, long string, run func(context.Context, *streams, []byte) gateAnswer, render func(claude.Decision, string) ([]byte, error)) *cobra.Command {
		return &cobra.Command{
			Use: use, Short: short, Long: long + `

It reads the hook's JSON on stdin and prints the answer Claude Code's hook
reference defines, or nothing. It never answers allow. Past its 2 second
deadline, on an internal error or a locked store it answers nothing under
the audit and balanced policies (saying so on stderr) and denies under
strict. It always exits 0.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				signal.Ignore(syscall.SIGPIPE)
				runGateHook(cmd.Context(), s, event, run, render)
				return nil
			},
		}
	}
	return []*cobra.Command{
		mk("pre-tool-use", claude.EventPreToolUse, "The PreToolUse hook: ask or deny a Skill or Agent use",
			`pre-tool-use judges the skill or command (tool Skill) or custom agent (tool
Agent, its subagent_type) about to be used, named by its folder, file or
frontmatter name (plugin:name: the plugin's installed versions), on its
bytes on disk now, and answers ask or deny under the gate's policy.`, preToolUse, claude.PreToolUseOutput),
		mk("prompt-expansion", claude.EventUserPromptExpansion, "The UserPromptExpansion hook: block or warn a typed /name",
			`prompt-expansion judges the skill or command a person typed as /name: a
deny blocks the expansion, an ask adds the finding as context the person
sees.`, promptExpansion, claude.UserPromptExpansionOutput),
		mk("config-change", claude.EventConfigChange, "The ConfigChange hook: record a settings or skill change mid-session",
			`config-change judges a change to a settings source or a skill file made
during a session. A skill file's change is judged on the skill's bytes now
and blocked where the gate's table denies; under balanced and strict a user,
project or local settings change that adds a hook, helper, env, MCP server,
plugin or permission, or cannot be read safely, is blocked.`, configChange, claude.ConfigChangeOutput),
		mk("instructions-loaded", claude.EventInstructionsLoaded, "The InstructionsLoaded hook: record which instruction file loaded",
			`instructions-loaded records which CLAUDE.md or rules file was loaded, with
the digest of its bytes now; a file whose digest differs from its last load
is marked so a session start can report it. The event cannot block.`, instructionsLoaded, nil),
	}
}

// gateAnswer is one hook's output (nil: nothing) and its lines for stderr.
type gateAnswer struct {
	out   []byte
	notes []string
}

// runGateHook gives the hook its deadline and prints its answer; the
// handlers print nothing themselves.
func runGateHook(ctx context.Context, s *streams, event string, run func(context.Context, *streams, []byte) gateAnswer, render func(claude.Decision, string) ([]byte, error)) {
	ctx, cancel := context.WithTimeout(ctx, gateDeadline)
	defer cancel()
	b, err := claude.ReadEvent(s.in, gateStdinWait)
	var a gateAnswer
	if err != nil {
		a = gateFailure(s, event, err, render)
	} else {
		a = run(ctx, s, b)
	}
	if len(a.out) > 0 && !nullDevice(s.out) {
		s.out.Write(a.out)
	}
	for _, n := range a.notes {
		fmt.Fprintln(s.err, defang(n))
	}
}

// gateFailure answers input the gate cannot read as it answers any other
// failure to judge; err's text, which may quote the input, is not shown.
func gateFailure(s *streams, event string, err error, render func(claude.Decision, string) ([]byte, error)) gateAnswer {
	var f gate.Failure
	dir := ""
	if w, werr := loadWorld(s); werr != nil {
		f = gate.Unlocated(werr)
	} else {
		dir = w.stateDir
		f = gate.Fail(gate.FallbackPolicy(w.stateDir), err)
	}
	a := gateAnswer{notes: []string{f.Note + "; the hook input could not be read"}}
	if d, ok := f.Answer.Decision(); ok && render != nil {
		if a.out, _ = render(d, f.Note); a.out != nil {
			logGate(dir, event, f.Answer, f.Note)
		}
	}
	return a
}

// logGate writes one line to the hook log beside the store in dir for an
// ask or deny the hook printed (its stderr line is kept as well). With no
// trusted state directory ("": unlocated, or steered by project settings)
// there is no log to write to.
func logGate(dir, event string, answer gate.Answer, reason string, ids ...string) {
	if dir == "" {
		return
	}
	hl := &hookLog{path: dir + "/" + hookLogName}
	defer hl.Close()
	l := zerolog.New(hl).With().Timestamp().Logger()
	e := l.Info().Str("event", event).Str("answer", answer.String()).Str("reason", reason)
	if len(ids) > 0 {
		e = e.Strs("ids", ids)
	}
	e.Msg("gate")
}

// hookProjects is claude.HookProjects with this command's environment.
func hookProjects(s *streams, cwd string) []string {
	env := claude.OSEnv()
	env.Getenv = s.getenv
	return claude.HookProjects(env, cwd)
}

// steeredSession delivers the session start's one line when the project's
// settings steer skillwire, and reports whether it did; settings that
// only could not be read leave a warning line for the advisory instead.
func steeredSession(s *streams, cwd string, out *hookOut) bool {
	ps := hookProjects(s, cwd)
	n := gate.SessionNotice(ps...)
	if n != "" {
		out.deliver(n)
		return true
	}
	out.warnFirst(gate.SessionWarning(ps...))
	return false
}

// warnFirst sets the line said before whatever o delivers; the deadline's
// delivery may read it from another goroutine.
func (o *hookOut) warnFirst(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.warn = line
}

// gateEnv is the gate's view of the world for the hook's cwd.
func gateEnv(s *streams, cwd string) (gate.Env, error) {
	w, err := loadWorldFor(s, cwd)
	if err != nil {
		return gate.Env{}, err
	}
	cfg, err := envConfig(s)
	if err != nil {
		cfg = walker.DefaultConfig()
	}
	return gate.Env{Roots: w.roots, Store: baseline.Options{Dir: w.stateDir, LockTimeout: w.timeout},
		Walker: cfg, Now: time.Now()}, nil
}

// judge runs the gate on one use and renders its answer with render.
func judge(ctx context.Context, s *streams, cwd string, u gate.Use, render func(claude.Decision, string) ([]byte, error)) gateAnswer {
	o, steered := gate.Guard(hookProjects(s, cwd)...)
	dir := ""
	if !steered {
		env, err := gateEnv(s, cwd)
		if err != nil {
			return gateFailure(s, u.Event, err, render)
		}
		dir = env.Store.Dir
		o = gate.Run(ctx, u, env, time.Until(deadlineOf(ctx)))
	}
	var err error
	var a gateAnswer
	if o.Note != "" {
		a.notes = append(a.notes, o.Note)
	}
	d, ok := o.Answer.Decision()
	if !ok {
		return a
	}
	if a.out, err = render(d, o.Reason); err != nil {
		a.notes = append(a.notes, "skillwire gate: the answer could not be rendered; nothing was answered")
		return a
	}
	a.notes = append(a.notes, fmt.Sprintf("skillwire gate: %s %s: %s", u.Event, o.Answer, o.Reason))
	logGate(dir, u.Event, o.Answer, o.Reason, o.Result.Asked()...)
	return a
}

func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(gateDeadline)
}

func preToolUse(ctx context.Context, s *streams, b []byte) gateAnswer {
	in, err := claude.ParsePreToolUse(b)
	if err != nil {
		return gateFailure(s, claude.EventPreToolUse, err, claude.PreToolUseOutput)
	}
	kind, ok := gate.KindOfTool(in.Tool)
	if !ok {
		return gateAnswer{} // a tool that names no candidate
	}
	return judge(ctx, s, in.Cwd, gate.Use{Kind: kind, Name: in.Name, Event: claude.EventPreToolUse}, claude.PreToolUseOutput)
}

func promptExpansion(ctx context.Context, s *streams, b []byte) gateAnswer {
	in, err := claude.ParseUserPromptExpansion(b)
	if err != nil {
		return gateFailure(s, claude.EventUserPromptExpansion, err, claude.UserPromptExpansionOutput)
	}
	if in.Type != "slash_command" || in.Source == "builtin" || in.Source == "mcp" {
		return gateAnswer{} // an MCP prompt or a built-in command is no candidate
	}
	return judge(ctx, s, in.Cwd, gate.Use{Kind: gate.Skill, Name: in.Name, Event: claude.EventUserPromptExpansion},
		claude.UserPromptExpansionOutput)
}

func configChange(ctx context.Context, s *streams, b []byte) gateAnswer {
	in, err := claude.ParseConfigChange(b)
	if err != nil {
		return gateFailure(s, claude.EventConfigChange, err, claude.ConfigChangeOutput)
	}
	if g, steered := gate.Guard(hookProjects(s, in.Cwd)...); steered {
		a := gateAnswer{notes: []string{"skillwire gate: ConfigChange block: " + g.Reason}}
		if in.Blockable() {
			a.out, _ = claude.ConfigChangeOutput(claude.Deny, g.Reason)
		}
		return a
	}
	env, err := gateEnv(s, in.Cwd)
	if err != nil {
		return gateFailure(s, claude.EventConfigChange, err, claude.ConfigChangeOutput)
	}
	o := gate.ConfigChanged(ctx, in, env, time.Until(deadlineOf(ctx)))
	a := gateAnswer{notes: o.Notes}
	if d, ok := o.Answer.Decision(); ok {
		if a.out, err = claude.ConfigChangeOutput(d, o.Reason); err != nil {
			a.notes = append(a.notes, "skillwire gate: the answer could not be rendered; nothing was answered")
			return a
		}
		a.notes = append(a.notes, fmt.Sprintf("skillwire gate: %s block: %s", claude.EventConfigChange, o.Reason))
		logGate(env.Store.Dir, claude.EventConfigChange, o.Answer, o.Reason)
	}
	return a
}

func instructionsLoaded(ctx context.Context, s *streams, b []byte) gateAnswer {
	in, err := claude.ParseInstructionsLoaded(b)
	if err != nil {
		return gateAnswer{notes: []string{"skillwire gate: InstructionsLoaded input could not be read; nothing was recorded"}}
	}
	if g, steered := gate.Guard(hookProjects(s, in.Cwd)...); steered {
		return gateAnswer{notes: []string{"skillwire gate: InstructionsLoaded not recorded: " + g.Reason}}
	}
	env, err := gateEnv(s, in.Cwd)
	if err == nil {
		err = gate.RecordInstructionsLoaded(ctx, in, env)
	}
	if err != nil {
		return gateAnswer{notes: []string{"skillwire gate: the instruction file's load could not be recorded"}}
	}
	return gateAnswer{}
}
