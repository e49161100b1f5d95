// Package otlp ships the events over OTLP/HTTP with the OpenTelemetry
// SDK's exporter. That exporter links gRPC, whose init costs every
// process that links it. So only cmd/skillwire-ship imports this package:
// the hooks never pay for it (issue 34).
package otlp

import (
	"context"
	"fmt"

	"github.com/skillwire/skillwire/events"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
)

// NewExporter is the OTLP/HTTP log exporter configured by the standard
// OTEL_EXPORTER_OTLP_* variables. They are OTEL_EXPORTER_OTLP_ENDPOINT,
// …_HEADERS, …_TIMEOUT, …_COMPRESSION, …_CERTIFICATE and their _LOGS_
// forms. A Target's fields win over them. Its own retry is off: Ship
// retries, so that it knows when a batch is delivered.
func NewExporter(ctx context.Context, t ...events.Target) (sdklog.Exporter, error) {
	opts := []otlploghttp.Option{otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false})}
	for _, x := range t {
		if x.Endpoint != "" {
			opts = append(opts, otlploghttp.WithEndpointURL(x.Endpoint))
		}
		if len(x.Headers) > 0 {
			opts = append(opts, otlploghttp.WithHeaders(x.Headers))
		}
	}
	exp, err := otlploghttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", events.ErrExporter, err)
	}
	return exp, nil
}

// ShipOnce sends what is not yet delivered from the events kept in dir.
// It makes a new exporter, then shuts it down. It is one round of
// `skillwire events ship` or of the daemon, run by cmd/skillwire-ship.
func ShipOnce(ctx context.Context, dir string, t events.Target) (events.Result, error) {
	exp, err := NewExporter(ctx, t)
	if err != nil {
		return events.Result{}, err
	}
	defer exp.Shutdown(context.Background())
	return events.Ship(ctx, events.ShipConfig{Dir: dir, Exporter: exp})
}
