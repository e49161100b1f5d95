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
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/managed"
	"github.com/skillwire/skillwire/gate"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
)

// gateStdinWait is the part of gate.Deadline reading stdin may take.
const gateStdinWait = 300 * time.Millisecond

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
kept in the store, so a project cannot change it; an administrator's
gate_policy in <managed>/skillwire.json takes its place, and the person
cannot change that:

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
		if err := st.SetGatePolicy(w.stateDir, args[0]); errors.Is(err, baseline.ErrManagedPolicy) {
			return fail(exitUsage, "the gate's policy is set by an administrator in %s beside Claude Code's managed settings; it cannot be changed here", managed.File)
		} else if err != nil {
			return storeErr(err)
		}
		p = args[0]
	} else {
		st, err := w.open(false, true)
		switch {
		case errors.Is(err, baseline.ErrAbsent):
			p = baseline.GateDefault
			if mp := managed.Policy(w.managed, w.managedErr); mp != "" {
				p = mp
			}
		case err != nil:
			return err
		default:
			err = st.View(func(tx *baseline.Tx) (err error) { p, err = tx.Policy().Get(); return })
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
	mk := func(use, event, short, long string) *cobra.Command {
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
				quietGC(hookHeapLimit) // a Skill call's one collection was a fifth of its CPU time
				runGateHook(cmd.Context(), s, event)
				return nil
			},
		}
	}
	return []*cobra.Command{
		mk("pre-tool-use", hookio.EventPreToolUse, "The PreToolUse hook: ask or deny a Skill or Agent use",
			`pre-tool-use judges the skill or command (tool Skill) or custom agent (tool
Agent, its subagent_type) about to be used, named by its folder, file or
frontmatter name (plugin:name: the plugin's installed versions), on its
bytes on disk now, and answers ask or deny under the gate's policy.`),
		mk("prompt-expansion", hookio.EventUserPromptExpansion, "The UserPromptExpansion hook: block or warn a typed /name",
			`prompt-expansion judges the skill or command a person typed as /name: a
deny blocks the expansion, an ask adds the finding as context the person
sees.`),
		mk("config-change", hookio.EventConfigChange, "The ConfigChange hook: record a settings or skill change mid-session",
			`config-change judges a change to a settings source or a skill file made
during a session. A skill file's change is judged on the skill's bytes now
and blocked where the gate's table denies; under balanced and strict a user,
project or local settings change that adds a hook, helper, env, MCP server,
plugin or permission, or cannot be read safely, is blocked.`),
		mk("instructions-loaded", hookio.EventInstructionsLoaded, "The InstructionsLoaded hook: record which instruction file loaded",
			`instructions-loaded records which CLAUDE.md or rules file was loaded, with
the digest of its bytes now; a file whose digest differs from its last load
is marked so a session start can report it. The event cannot block.`),
		mk("directory-added", hookio.EventDirectoryAdded, "The DirectoryAdded hook: watch a folder /add-dir adds mid-session",
			`directory-added keeps the folder a person added with /add-dir for the
session, so the session's later gate hooks judge the skills, agents and
commands it serves, and tells the person (systemMessage) what it holds; a
folder it cannot keep marks the session as having folders skillwire cannot
observe (built-in names are then asked too). The event cannot block.`),
		mk("post-tool-use", hookio.EventPostToolUse, "The PostToolUse hook: record that the person allowed an asked use",
			`post-tool-use runs after a Skill or Agent call ran. When the gate asked the
person about that very call (by its tool_use_id) and the person allowed it,
the allow is recorded on the candidate, bound to the bytes asked about, and
later uses of those bytes are familiar. A call the gate did not ask about
records nothing. After a Read, Edit or Write it keeps, for the session,
what each nested skills folder above the file held (sub/.claude/skills):
Claude Code reads such a folder then, once, and serves that copy, so a use
of its skills is judged on it. The event cannot block.`),
	}
}

// runGateHook reads the hook's input within the gate's deadline. It
// prints gate.Handle's answer and logs an ask or deny.
func runGateHook(ctx context.Context, s *streams, event string) {
	ctx, cancel := context.WithTimeout(ctx, gate.Deadline)
	defer cancel()
	h := gate.HookEnv{Claude: claudeEnv(s), For: func(cwd string) (gate.Env, error) { return gateEnv(s, cwd) }}
	var r gate.Response
	if b, err := hookio.ReadEvent(s.in, gateStdinWait); err != nil {
		r = gate.Unreadable(event, err, h)
	} else {
		r = gate.Handle(ctx, event, b, h)
	}
	if len(r.Out) > 0 {
		if !nullDevice(s.out) {
			if n, err := s.out.Write(r.Out); err == nil && n == len(r.Out) && r.Delivered != nil {
				if err := r.Delivered(); err != nil {
					r.Notes = append(r.Notes, "skillwire gate: what was told was not recorded: "+err.Error())
				}
			}
		}
		logGate(r.Dir, event, r.Answer, r.Reason, r.IDs...)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(s.err, defang(n))
	}
}

// logGate writes one line to the hook log beside the store in dir. It
// logs an ask or deny the hook printed; its stderr line stays too. With no
// trusted state directory there is no log to write to. dir is "" then:
// unlocated, or steered by project settings.
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

// gateEnv is the gate's view of the world for the hook's cwd.
func gateEnv(s *streams, cwd string) (gate.Env, error) {
	w, err := loadHookWorld(s, cwd)
	if err != nil {
		return gate.Env{}, err
	}
	cfg, err := envConfig(s)
	if err != nil {
		cfg = walker.DefaultConfig()
	}
	cfg.Fronts = walker.LoadFrontCache(w.stateDir + "/" + frontsName)
	// The client's environment was read with its command line (w.added).
	instructions := func() bool { return w.added.Instructions(claudeEnv(s)) }
	return gate.Env{Roots: w.roots, Store: w.opts(false, false),
		Walker: cfg, Now: time.Now(), AddedUnknown: w.addedUnknown(), PluginsUnknown: w.pluginsUnknown(),
		InlineGiven: len(w.added.Plugins.Dirs) > 0, Inline: w.inlineNames(),
		AddedInstructions: instructions, Home: w.places.Home, Nested: w.places.Nested}, nil
}
