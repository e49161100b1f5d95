// Package otlprec makes OpenTelemetry log records of event lines. It
// stands apart from events so that events links no OpenTelemetry: the
// hooks, which append events and never ship them, then never pay for the
// SDK's packages at start (issue 34). events/otlp and the events tests
// use it.
package otlprec

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The OTLP log record of an event. Its body is the event's OCSF JSON as
// written, so an OCSF-aware backend stores it whole. Every field is also
// an attribute under its dotted OCSF name. Examples are class_uid,
// metadata.uid, file.path and unmapped.skillwire.candidate.id. session.id
// and prompt.id are Claude Code's own attribute names. So a backend joins
// these records with the client's. The event name is "skillwire." + the
// kind.

// Converter turns lines into SDK records through a LoggerProvider. So each
// record carries the resource and scope an exporter needs.
type Converter struct {
	provider *sdklog.LoggerProvider
	logger   log.Logger
	sink     *collect
	attrs    []attribute.KeyValue // reused between lines
}

// collect is a Processor that keeps what is emitted, for Ship to export
// itself. The SDK's processors report export errors to a global handler,
// not to the caller. Ship must know a batch arrived before it moves the
// cursor.
type collect struct{ recs []sdklog.Record }

func (p *collect) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (p *collect) OnEmit(_ context.Context, r *sdklog.Record) error {
	p.recs = append(p.recs, r.Clone())
	return nil
}
func (p *collect) Shutdown(context.Context) error   { return nil }
func (p *collect) ForceFlush(context.Context) error { return nil }

// New is a Converter whose records name skillwire at version as their
// service.
func New(version string) *Converter {
	host, _ := os.Hostname()
	res := resource.NewSchemaless(
		attribute.String("service.name", "skillwire"),
		attribute.String("service.version", version),
		attribute.String("host.name", host),
	)
	sink := &collect{}
	p := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sink), sdklog.WithAttributeCountLimit(512), sdklog.WithAllowKeyDuplication())
	return &Converter{provider: p, logger: p.Logger("github.com/skillwire/skillwire/events"), sink: sink, attrs: make([]attribute.KeyValue, 0, 64)}
}

// Close shuts the provider down.
func (c *Converter) Close() { c.provider.Shutdown(context.Background()) }

// Convert makes one record per line. A line that is not a JSON object is
// sent as its text with skillwire.malformed, and counted.
func (c *Converter) Convert(ctx context.Context, lines [][]byte) ([]sdklog.Record, int) {
	c.sink.recs = make([]sdklog.Record, 0, len(lines))
	malformed := 0
	now := time.Now()
	for _, line := range lines {
		var r log.Record
		r.SetObservedTimestamp(now)
		r.SetBody(attribute.StringValue(strings.ToValidUTF8(string(line), "\uFFFD")))
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m == nil {
			malformed++
			r.SetEventName("skillwire.malformed")
			r.AddAttributes(attribute.Bool("skillwire.malformed", true))
			c.logger.Emit(ctx, r)
			continue
		}
		attrs := flatten(c.attrs[:0], "", m)
		if ms, ok := number(m["time"]); ok {
			r.SetTimestamp(time.UnixMilli(ms))
		}
		if sev, ok := number(m["severity_id"]); ok {
			r.SetSeverity(otelSeverity(sev))
		}
		if s, ok := m["severity"].(string); ok {
			r.SetSeverityText(s)
		}
		if sw, ok := dig(m, "unmapped", "skillwire", "event").(string); ok {
			r.SetEventName("skillwire." + sw)
		}
		if s, ok := dig(m, "actor", "session", "uid").(string); ok && s != "" {
			attrs = append(attrs, attribute.String("session.id", s))
		}
		if s, ok := dig(m, "metadata", "correlation_uid").(string); ok && s != "" {
			attrs = append(attrs, attribute.String("prompt.id", s))
		}
		r.AddAttributes(attrs...) // copies: c.attrs is reused
		c.attrs = attrs
		c.logger.Emit(ctx, r)
	}
	return c.sink.recs, malformed
}

// flatten appends m's leaves as attributes with dotted keys. An array
// becomes one attribute holding a slice, of maps for arrays of objects.
func flatten(out []attribute.KeyValue, prefix string, m map[string]any) []attribute.KeyValue {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			out = flatten(out, key, sub)
			continue
		}
		out = append(out, attribute.KeyValue{Key: attribute.Key(key), Value: value(v)})
	}
	return out
}

func value(v any) attribute.Value {
	switch v := v.(type) {
	case string:
		return attribute.StringValue(v)
	case bool:
		return attribute.BoolValue(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return attribute.Int64Value(int64(v))
		}
		return attribute.Float64Value(v)
	case []any:
		vals := make([]attribute.Value, len(v))
		for i, e := range v {
			vals[i] = value(e)
		}
		return attribute.SliceValue(vals...)
	case map[string]any:
		return attribute.MapValue(flatten(nil, "", v)...)
	}
	return attribute.StringValue("")
}

// number is an integral JSON number. Every number in an event is one, and
// below 2^53, so float64 holds it exactly.
func number(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// otelSeverity maps OCSF severity_id onto the OpenTelemetry log severity
// numbers. Informational (1) is INFO, Low (2) INFO4, Medium (3) WARN. High
// (4) is ERROR, Critical (5) FATAL. These are the numbers of
// events.Severity; a test holds the two together.
func otelSeverity(id int64) log.Severity {
	switch id {
	case 1:
		return log.SeverityInfo
	case 2:
		return log.SeverityInfo4
	case 3:
		return log.SeverityWarn
	case 4:
		return log.SeverityError
	case 5:
		return log.SeverityFatal
	}
	return log.SeverityUndefined
}
