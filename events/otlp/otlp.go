// Package otlp ships the events over OTLP/HTTP with the OpenTelemetry
// SDK's exporter. The SDK and the exporter link net/http, TLS and gRPC,
// whose inits cost every process that links them. So only
// cmd/skillwire-ship imports this package: the hooks never pay for it
// (issue 34; internal/arch holds cmd/skillwire free of OpenTelemetry).
package otlp

import (
	"context"
	"fmt"

	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/internal/otlprec"
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
	return events.Ship(ctx, Config(dir, exp))
}

// Config is the ShipConfig that sends dir's events through exp as OTLP log
// records. Its converter lives as long as the process.
func Config(dir string, exp sdklog.Exporter) events.ShipConfig[sdklog.Record] {
	conv := otlprec.New(events.ProductVersion)
	return events.ShipConfig[sdklog.Record]{Dir: dir, Convert: conv.Convert, Export: exp.Export}
}
