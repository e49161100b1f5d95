package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/cache"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/spf13/cobra"
)

func newDaemonCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "daemon",
		Short: "Watch every root continuously, in the foreground",
		Long: `daemon watches the global roots and those of every project a hook has run
in, re-walks what changes, and keeps in the store an observation cache the
hook uses instead of walking, change events (so a change that was made and
undone between two sessions is still reported), and a heartbeat.

One daemon runs at a time. It logs to <state>/daemon.log (and to stderr on
a terminal), never to stdout. A settings file that sets disableAllHooks
(Claude Code then runs none of skillwire's hooks) is logged, and shown as a
desktop notification where notify-send is on PATH. SIGTERM or SIGINT stops
it.

Exit 0 when stopped by a signal, 1 on failure, 2 when another daemon runs,
4 when the store is unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			cfg, err := envConfig(s)
			if err != nil {
				return err
			}
			env, _ := s.getenv(content.EnvMaxBytes)
			capBytes, err := content.MaxBytes(env)
			if err != nil {
				return fail(exitUsage, "%v", err)
			}
			// Create the store now, so a problem with it is said at once.
			st, err := w.open(true, false)
			if err != nil {
				return err
			}
			st.Close()
			logf, err := monitor.OpenLog(w.stateDir + "/daemon.log")
			if err != nil {
				return fail(exitInternal, "opening the log: %v", err)
			}
			defer logf.Close()
			var out io.Writer = logf
			if f, ok := s.err.(*os.File); ok && isTerminal(f) {
				out = zerolog.MultiLevelWriter(logf, zerolog.ConsoleWriter{Out: f})
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			auditEnv, _ := s.getenv("SKILLWIRE_AUDIT_LOG")
			err = monitor.Run(ctx, monitor.Config{
				CfgDir:        w.places.Config,
				ClaudeJSONDir: w.places.ClaudeJSON,
				ManagedDir:    w.places.Managed,
				Store:         w.opts(false, false),
				Walk:          cfg,
				Log:           zerolog.New(out).With().Timestamp().Logger(),
				SnapshotBytes: capBytes,
				AuditLog:      auditEnv,
				Notify:        monitor.DesktopNotifier(),
				Ship:          shipper(s, w),
			})
			switch {
			case err == nil || errors.Is(err, context.Canceled):
				return nil
			case errors.Is(err, monitor.ErrRunning):
				return fail(exitCode(err, exitInternal), "%v: one daemon watches at a time", err)
			}
			return failure(err, exitInternal)
		},
	}
}

func newClearCmd(s *streams) *cobra.Command {
	var f confirmFlags
	var events bool
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Drop the daemon's cached observations; force a full rescan",
		Long: `clear drops every observation the daemon cached and asks it for a full
rescan. Change events no session was told of yet stay: they are evidence
of changes nobody has seen. --events drops them too; it says how many and
needs --yes (or a yes typed on a terminal). Baselines, verdicts and the
audit log are untouched.

Exit 0, 2 when dropping events was not confirmed, 4 when the store is
unusable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			st, err := w.open(false, false)
			if err != nil {
				return err
			}
			var pending []cache.Event
			err = st.View(func(tx *baseline.Tx) (err error) { pending, err = tx.Events().List(); return })
			st.Close() // never held while a person answers
			if err != nil {
				return storeErr(err)
			}
			if f.dryRun {
				fmt.Fprintf(s.out, "dry run: the cache would be cleared; %d undelivered change event(s) would be %s\n",
					len(pending), map[bool]string{true: "dropped", false: "kept"}[events])
				return nil
			}
			drop := false
			if events && len(pending) > 0 {
				fmt.Fprintf(s.out, "This drops %d change event(s) no session was told of yet: the evidence of those changes.\n", len(pending))
				if drop, err = f.proceed(s, "Drop them?", "no event dropped"); err != nil {
					return err
				}
			}
			if st, err = w.open(false, false); err != nil {
				return err
			}
			defer st.Close()
			dropped, since := 0, 0
			err = st.Update(func(tx *baseline.Tx) error {
				if drop {
					var err error
					var left []cache.Event
					// Exactly those counted to the person: one the daemon
					// appended while they answered stays, unseen evidence.
					if dropped, err = tx.Events().Drop(pending); err != nil {
						return err
					}
					if left, err = tx.Events().List(); err != nil {
						return err
					}
					since = len(left)
				}
				return tx.Cache().Clear()
			})
			if err != nil {
				return storeErr(err)
			}
			fmt.Fprintln(s.out, "cleared the daemon's cache; it rescans everything at its next heartbeat")
			switch {
			case drop:
				fmt.Fprintf(s.out, "dropped %d undelivered change event(s)\n", dropped)
				if since > 0 {
					fmt.Fprintf(s.out, "kept %d change event(s) recorded since they were counted\n", since)
				}
			case len(pending) > 0:
				fmt.Fprintf(s.out, "kept %d undelivered change event(s): evidence for the next session (--events --yes drops them)\n", len(pending))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&events, "events", false, "also drop the change events no session was told of yet (evidence; needs --yes)")
	f.register(cmd, "confirm dropping the events", "show what would be dropped, drop nothing")
	return cmd
}
