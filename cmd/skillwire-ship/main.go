// Command skillwire-ship ships skillwire's events over OTLP/HTTP with the
// OpenTelemetry SDK's exporter. skillwire runs it for `skillwire events
// ship` and for the daemon's rounds: one events.ShipRequest on stdin, one
// events.ShipReply on stdout. It is its own binary because the exporter
// links gRPC. In skillwire, that init would run in every hook.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/events/otlp"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s takes no arguments: skillwire runs it (skillwire events ship)\n", events.ShipperName)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := events.ShipServe(ctx, os.Stdin, os.Stdout, os.Stderr, otlp.ShipOnce)
	stop()
	os.Exit(code)
}
