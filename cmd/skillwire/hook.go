package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// The hook's time limits. Claude Code runs SessionStart on every start,
// resume, clear and compact. It must be fast. It must never hang a
// session, whatever the tree or the store.
const (
	hookDeadline    = 5 * time.Second
	hookStdinWait   = 300 * time.Millisecond
	hookWalkTimeout = 2500 * time.Millisecond
	hookLockTimeout = time.Second
)

func newHookCmd(s *streams) *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Claude Code hooks",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	hook.AddCommand(&cobra.Command{
		Use:   "session-start",
		Short: "The SessionStart hook: advise the session of what changed",
		Long: `session-start is run by Claude Code at every session start. It reads the
hook's JSON on stdin, observes the global and project roots, compares them
with the store and prints one JSON object whose additionalContext tells
the model what is new, changed, removed, under an adverse verdict or not
fully observable, and whose systemMessage shows you the counts in one line
— or nothing when there is nothing to say. What it advised is
recorded as delivered only after it was written. It always exits 0 and
finishes within 5 seconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A closed stdout must be an error to see. It must not be a
			// signal that kills the hook with a non-zero status.
			signal.Ignore(syscall.SIGPIPE)
			quietGC(hookHeapLimit)
			runSessionStart(cmd.Context(), s, hookDeadline)
			return nil
		},
	})
	hook.AddCommand(newHookInstallCmd(s), newHookUninstallCmd(s))
	hook.AddCommand(gateHookCmds(s)...)
	return hook
}

// writeSessionStart writes the hook's answer to w, and reports whether
// all of it was written.
func writeSessionStart(w io.Writer, text, notice string) bool {
	if nullDevice(w) {
		// Go reopens a closed stdout on /dev/null at startup. Writing there
		// "succeeds" but delivers nothing, so nothing may be consumed.
		return false
	}
	b, err := hookio.SessionStartOutput(text, notice)
	if err != nil {
		return false
	}
	n, err := w.Write(b)
	return err == nil && n == len(b)
}

// nullDevice reports whether w is the null device.
func nullDevice(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	var st, null unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || unix.Stat("/dev/null", &null) != nil {
		return false
	}
	// The same character device as /dev/null (1:3 on Linux, 3:2 on macOS).
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && null.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == null.Rdev
}

// runSessionStart returns when the advisory is out or the deadline passed.
// The channel returned closes when the worker itself is done. The process
// exits first in production; tests wait for it.
func runSessionStart(ctx context.Context, s *streams, deadline time.Duration) <-chan struct{} {
	out := &session.Out{Write: func(text, notice string) bool { return writeSessionStart(s.out, text, notice) }}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			if r := recover(); r != nil {
				out.Deliver(session.TextIncomplete, session.NoticeIncomplete)
			}
		}()
		sessionStart(ctx, s, out)
	}()
	select {
	case <-finished:
	case <-time.After(deadline):
		out.Deliver(session.TextDeadline, session.NoticeDeadline)
	}
	return finished
}

// sessionStart reads the hook's input and wires the world to
// session.RunHook, which owns the order of the steps.
func sessionStart(ctx context.Context, s *streams, out *session.Out) {
	in := hookio.ReadInput(s.in, hookStdinWait)
	hl := &hookLog{}
	defer hl.Close()
	session.RunHook(ctx, session.Hook{
		Projects: claude.HookProjects(claudeEnv(s), in.Cwd),
		World: func() (session.World, error) {
			w, err := loadHookWorld(s, in.Cwd)
			if err != nil {
				return session.World{}, err
			}
			cfg, err := envConfig(s)
			if err != nil {
				cfg = walker.DefaultConfig()
			}
			hl.path = w.stateDir + "/" + hookLogName
			return session.World{
				Start: session.Start{
					Roots:       w.roots,
					Walk:        cfg,
					WalkTimeout: hookWalkTimeout,
					Store:       hookStore(w),
					Audit:       func() ([]reconcile.Source, string) { return w.readAudit(s) },
					Project:     w.places.Project,
					Log:         zerolog.New(hl).With().Timestamp().Logger(),
					Session:     in.Session,
					Places:      w.places,
					Stderr:      s.err,
				},
				Told:    []string{w.added.Told(), w.inline.Told()},
				Plugins: session.StartPlugins{Given: len(w.added.Plugins.Dirs) > 0, Names: w.inlineNames(), Unknown: w.inline.Unknown()},
				Hashes:  w.stateDir + "/" + hashesName,
				Fronts:  w.stateDir + "/" + frontsName,
			}, nil
		},
	}, out)
}

// hookLogName is the hook's log beside the store. It holds what it told,
// every auto-accept and halt, and a delivery not recorded. It is capped and
// rotated as the daemon's log is.
const hookLogName = "hook.log"

// hashesName is the session start's cache of file hashes beside the store.
const hashesName = "hashes"

// frontsName is the session start's cache of what skills' SKILL.md say,
// beside the store. The gate reads it to learn names without reading and
// parsing every SKILL.md (walker.FrontCache).
const frontsName = "fronts"

// hookLog opens the log at its first line, once the store exists, and so
// the state directory. It is best effort. A log that cannot be opened drops
// its lines. It never delays or changes what a session is told.
type hookLog struct {
	path   string
	w      io.WriteCloser
	failed bool
}

func (l *hookLog) Write(p []byte) (int, error) {
	if l.w == nil && !l.failed {
		w, err := monitor.OpenLog(l.path)
		if l.failed = err != nil; err == nil {
			l.w = w
		}
	}
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}

func (l *hookLog) Close() {
	if l.w != nil {
		l.w.Close()
	}
}

// hookStore is the session start's store. It is created when absent, and
// waited for no longer than the hook can afford.
func hookStore(w *world) baseline.Options {
	o := w.opts(true, false)
	o.LockTimeout = min(w.timeout, hookLockTimeout)
	return o
}
