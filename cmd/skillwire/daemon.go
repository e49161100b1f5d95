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
	"github.com/skillwire/skillwire/monitor"
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
a terminal), never to stdout. SIGTERM or SIGINT stops it.

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
			err = monitor.Run(ctx, monitor.Config{
				CfgDir:        w.cfgDir,
				ClaudeJSONDir: w.places.ClaudeJSON,
				ManagedDir:    w.places.Managed,
				Store:         baseline.Options{Dir: w.stateDir, LockTimeout: w.timeout},
				Walk:          cfg,
				Log:           zerolog.New(out).With().Timestamp().Logger(),
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
	return &cobra.Command{
		Use:   "clear",
		Short: "Drop the daemon's cached observations and events; force a full rescan",
		Long: `clear drops every observation and change event the daemon cached and asks
it for a full rescan. Baselines, verdicts and the audit log are untouched.

Exit 0, 4 when the store is unusable.`,
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
			defer st.Close()
			if err := st.Update(func(tx *baseline.Tx) error { return tx.ClearCache() }); err != nil {
				return storeErr(err)
			}
			fmt.Fprintln(s.out, "cleared the daemon's cache; it rescans everything at its next heartbeat")
			return nil
		},
	}
}
