package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/skillwire/skillwire/claude/managed"
	"github.com/skillwire/skillwire/events"
	"github.com/spf13/cobra"
)

func init() { events.ProductVersion = version }

type eventsStatusJSON struct {
	Files         []string       `json:"files"`
	Bytes         int64          `json:"bytes"`
	Pending       int            `json:"pending"`
	Cursor        *events.Cursor `json:"cursor"`
	CursorProblem string         `json:"cursor_problem,omitempty"`
	Shipping      bool           `json:"shipping"`
	OCSFVersion   string         `json:"ocsf_version"`
}

func newEventsCmd(s *streams) *cobra.Command {
	ev := &cobra.Command{
		Use:   "events",
		Short: "The OCSF events file a fleet's pipeline tails, and shipping it over OTLP",
		Long: `Every observation, file change, gate answer, verdict, auto-accept, halt
and restore is also an OCSF ` + events.Version + ` event, one JSON object a line, in
<state>/events.ndjson (0600, rotated at 16 MiB, 4 old files kept). A
collector can tail that file (see docs/fleet.md), or skillwire ships it:
set ` + events.Switch + `=1 and the standard OTEL_EXPORTER_OTLP_* variables
(OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, ...), then 'skillwire events ship'
sends every event since the last one delivered, as OTLP/HTTP log records.
Delivery is at least once: de-duplicate on metadata.uid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var asJSON bool
	status := &cobra.Command{
		Use:   "status [--json]",
		Short: "The events files, how many events are not shipped yet, and whether shipping is on",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			b, err := events.Status(w.stateDir)
			if err != nil {
				return fail(exitNoAudit, "%v", err)
			}
			on := events.Enabled(s.getenv)
			if asJSON {
				return writeJSON(s.out, eventsStatusJSON{Files: b.Files, Bytes: b.Bytes, Pending: b.Pending, Cursor: b.Cursor,
					CursorProblem: b.CursorProblem, Shipping: on, OCSFVersion: events.Version})
			}
			fmt.Fprintf(s.out, "events: %d file(s), %d bytes, OCSF %s\n", len(b.Files), b.Bytes, events.Version)
			for _, f := range b.Files {
				fmt.Fprintf(s.out, "  %s\n", defang(f))
			}
			fmt.Fprintf(s.out, "not shipped yet: %d event(s)\n", b.Pending)
			if b.CursorProblem != "" {
				fmt.Fprintf(s.out, "cursor: %s (the next ship sends everything kept again)\n", defang(b.CursorProblem))
			}
			if on {
				fmt.Fprintln(s.out, "shipping: on (OTEL_EXPORTER_OTLP_* say where)")
			} else {
				fmt.Fprintf(s.out, "shipping: off (set %s=1 and OTEL_EXPORTER_OTLP_ENDPOINT)\n", events.Switch)
			}
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	ship := &cobra.Command{
		Use:   "ship",
		Short: "Send every event not yet delivered to the OTLP endpoint, from the cursor",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := loadWorld(s)
			if err != nil {
				return err
			}
			if !shipping(s, w) {
				return fail(exitUsage, "shipping is off: set %s=1 and OTEL_EXPORTER_OTLP_ENDPOINT (or an administrator's events.otlp in %s)", events.Switch, managed.File)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			res, err := shipOnce(ctx, w)
			if errors.Is(err, events.ErrExporter) {
				return fail(exitUsage, "%v", err)
			}
			if res.CursorReset != "" {
				fmt.Fprintf(s.err, "skillwire: %s: sent everything kept again (de-duplicate on metadata.uid)\n", defang(res.CursorReset))
			}
			if res.LostFiles > 0 {
				fmt.Fprintf(s.err, "skillwire: %d events file(s) were rotated away before they were shipped\n", res.LostFiles)
			}
			fmt.Fprintf(s.out, "shipped %d event(s)\n", res.Shipped)
			if err != nil {
				return fail(exitInternal, "%s; the events are kept and go with the next ship", defang(err.Error()))
			}
			return nil
		},
	}
	ev.AddCommand(status, ship)
	return ev
}

// shipper is the daemon's Config.Ship: when shipping is on, each round
// ships from the persisted cursor; nil when it is off.
func shipper(s *streams, w *world) func(context.Context) error {
	if !shipping(s, w) {
		return nil
	}
	return func(ctx context.Context) error {
		_, err := shipOnce(ctx, w)
		return err
	}
}

// shipOnce is one round of shipping, run by the shipper binary beside
// this one.
func shipOnce(ctx context.Context, w *world) (events.Result, error) {
	exe, err := os.Executable()
	if err != nil {
		return events.Result{}, fmt.Errorf("%w: %w", events.ErrExporter, err)
	}
	bin, err := events.ShipperBeside(exe)
	if err != nil {
		return events.Result{}, fmt.Errorf("%w: %w", events.ErrExporter, err)
	}
	return events.ShipVia(ctx, bin, w.stateDir, target(w))
}

// shipping reports whether the events are shipped: the person's switch, or
// an administrator's (which the person cannot turn off).
func shipping(s *streams, w *world) bool {
	return events.Enabled(s.getenv) || w.managed.Events.OTLP
}

// target is the administrator's endpoint and headers, if any.
func target(w *world) events.Target {
	return events.Target{Endpoint: w.managed.Events.Endpoint, Headers: w.managed.Events.Headers}
}
