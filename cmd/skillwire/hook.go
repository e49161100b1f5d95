package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/auditlog/reconcile"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/hookio"
	"github.com/skillwire/skillwire/claude/steer"
	"github.com/skillwire/skillwire/gate"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/session"
	"github.com/skillwire/skillwire/walker"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// The hook's time limits. Claude Code runs SessionStart on every start,
// resume, clear and compact: it must be fast, and it must never hang a
// session, whatever the tree or the store.
const (
	hookDeadline    = 5 * time.Second
	hookStdinWait   = 300 * time.Millisecond
	hookWalkTimeout = 2500 * time.Millisecond
	hookLockTimeout = time.Second
)

const (
	textIncomplete = "skillwire could not complete its observation of the skills, agents and commands this session; nothing was compared. Details: skillwire status"
	textDeadline   = "skillwire did not finish observing the skills, agents and commands within its deadline this session; nothing was compared. Details: skillwire status"

	noticeIncomplete = "skillwire: could not complete its observation; nothing was compared — run `skillwire status`"
	noticeDeadline   = "skillwire: did not finish observing within its deadline; nothing was compared — run `skillwire status`"
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
			// A closed stdout must be an error to see, not a signal that
			// kills the hook with a non-zero status.
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

// hookOut lets exactly one advisory reach stdout: the worker's, or the
// deadline's if the worker is late.
type hookOut struct {
	mu   sync.Mutex
	done bool
	w    io.Writer
	warn string // said before whatever is delivered (steer.SessionWarning)
}

// deliver writes text for the model and notice for the person; a warning
// said first is the person's too, since it concerns what the gate denies.
func (o *hookOut) deliver(text, notice string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return false
	}
	o.done = true
	if nullDevice(o.w) {
		// Go reopens a closed stdout on /dev/null at startup: writing there
		// "succeeds" but delivers nothing, so nothing may be consumed.
		return false
	}
	b, err := hookio.SessionStartOutput(steer.WithWarning(o.warn, text), steer.WithWarning(o.warn, notice))
	if err != nil {
		return false
	}
	n, err := o.w.Write(b)
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

// runSessionStart returns when the advisory is out or the deadline passed;
// the returned channel closes when the worker itself is done (the process
// exits first in production; tests wait for it).
func runSessionStart(ctx context.Context, s *streams, deadline time.Duration) <-chan struct{} {
	out := &hookOut{w: s.out}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			if r := recover(); r != nil {
				out.deliver(textIncomplete, noticeIncomplete)
			}
		}()
		sessionStart(ctx, s, out)
	}()
	select {
	case <-finished:
	case <-time.After(deadline):
		out.deliver(textDeadline, noticeDeadline)
	}
	return finished
}

func sessionStart(ctx context.Context, s *streams, out *hookOut) {
	in := hookio.ReadInput(s.in, hookStdinWait)
	if steeredSession(s, in.Cwd, out) {
		return
	}
	w, err := loadHookWorld(s, in.Cwd)
	if err != nil {
		out.deliver(textIncomplete, noticeIncomplete)
		return
	}
	out.warnFirst(w.added.Told())
	out.warnFirst(w.inline.Told())
	if why := gate.KeepStartPlugins(hookStore(w), in.Session, len(w.added.Plugins.Dirs) > 0, w.inlineNames(), w.inline.Unknown(), time.Now()); why != "" {
		out.warnFirst(gate.StartPluginsTold(why))
	}
	cfg, err := envConfig(s)
	if err != nil {
		cfg = walker.DefaultConfig()
	}
	// Only the session start reuses hashes (walker.Hashes), saved once the
	// session was told.
	cfg.Reuse = walker.LoadHashes(w.stateDir + "/" + hashesName)
	defer cfg.Reuse.Save()
	hl := &hookLog{path: w.stateDir + "/" + hookLogName}
	defer hl.Close()
	session.Run(ctx, session.Start{
		Roots:       w.roots,
		Walk:        cfg,
		WalkTimeout: hookWalkTimeout,
		Store:       hookStore(w),
		Audit:       func() ([]reconcile.Source, string) { return w.readAudit(s) },
		Project:     w.places.Project,
		Log:         zerolog.New(hl).With().Timestamp().Logger(),
		Warned:      out.warned(),
		Session:     in.Session,
		Places:      w.places,
		Stderr:      s.err,
	}, out.deliver)
}

// hookLogName is the hook's log beside the store: what it told, every
// auto-accept and halt, and a delivery not recorded (capped and rotated as
// the daemon's log is).
const hookLogName = "hook.log"

// hashesName is the session start's cache of file hashes beside the store.
const hashesName = "hashes"

// hookLog opens the log at its first line, once the store (and so the
// state directory) exists; best effort: a log that cannot be opened drops
// its lines, and never delays or changes what a session is told.
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

// hookStore is the session start's store: created when absent, waited for
// no longer than the hook can afford.
func hookStore(w *world) baseline.Options {
	o := w.opts(true, false)
	o.LockTimeout = min(w.timeout, hookLockTimeout)
	return o
}
