package events

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
)

// TestExporterEndpointFromTheEnvironment: the _LOGS_ endpoint is the
// whole URL; the general one gets /v1/logs; a managed target wins over
// both. Anything but an http(s) URL is refused, not guessed at.
func TestExporterEndpointFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		general, logs string
		target        Target
		want          string
	}{
		{want: "http://localhost:4318/v1/logs"},
		{general: "https://col.example:4318", want: "https://col.example:4318/v1/logs"},
		{general: "https://col.example/base/", want: "https://col.example/base/v1/logs"},
		{general: "https://col.example", logs: "http://other:1/exact", want: "http://other:1/exact"},
		{logs: "http://other:1/exact", target: Target{Endpoint: "https://admin.example/x"}, want: "https://admin.example/x"},
		{general: "col.example:4318"},
		{general: "ftp://col.example"},
	} {
		setenv(t, "OTEL_EXPORTER_OTLP_ENDPOINT", c.general)
		setenv(t, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", c.logs)
		e, err := newHTTPExporter([]Target{c.target})
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%+v: made an exporter to %s, want it refused", c, e.url)
		case c.want != "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want != "" && e.url != c.want:
			t.Errorf("%+v: url %s, want %s", c, e.url, c.want)
		}
	}
}

// setenv sets k to v, or unsets it for an empty v, until the test ends.
func setenv(t *testing.T, k, v string) {
	t.Setenv(k, v)
	if v == "" {
		os.Unsetenv(k)
	}
}

// TestExporterWireFormat: what the exporter posts decodes, with the
// Collector's own decoder, to the records given: every kind of value,
// the timestamps, severity and event name. Headers and gzip are as the
// variables say.
func TestExporterWireFormat(t *testing.T) {
	var got []byte
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr = r.Header.Clone()
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = z
		}
		got, _ = io.ReadAll(body)
		if r.URL.Path != "/v1/logs" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20x, x-team = sec ")
	t.Setenv("OTEL_EXPORTER_OTLP_LOGS_COMPRESSION", "gzip")
	exp, err := NewExporter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(context.Background())

	conv := newConverter()
	defer conv.close()
	at := time.UnixMilli(1_700_000_000_123)
	var r log.Record
	r.SetTimestamp(at)
	r.SetObservedTimestamp(at.Add(time.Second))
	r.SetSeverity(log.SeverityWarn)
	r.SetSeverityText("Medium")
	r.SetEventName("skillwire.test")
	r.SetBody(attribute.StringValue("{}"))
	r.AddAttributes(
		attribute.String("s", "text"), attribute.String("empty", ""),
		attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Int64("i", -7), attribute.Int64("zero", 0), attribute.Float64("d", 2.5),
		attribute.KeyValue{Key: "arr", Value: attribute.SliceValue(attribute.Int64Value(1), attribute.StringValue("two"))},
		attribute.KeyValue{Key: "map", Value: attribute.MapValue(attribute.String("k", "v"), attribute.Int64("n", 3))},
		attribute.StringSlice("ss", []string{"a", "b"}),
	)
	conv.sink.recs = nil
	conv.logger.Emit(context.Background(), r)
	if err := exp.Export(context.Background(), conv.sink.recs); err != nil {
		t.Fatal(err)
	}
	if hdr.Get("Authorization") != "Bearer x" || hdr.Get("X-Team") != "sec" || hdr.Get("Content-Type") != "application/x-protobuf" {
		t.Errorf("headers %v", hdr)
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalProto(got); err != nil {
		t.Fatalf("the Collector cannot decode it: %v", err)
	}
	logs := req.Logs()
	if logs.LogRecordCount() != 1 {
		t.Fatalf("%d records", logs.LogRecordCount())
	}
	rl := logs.ResourceLogs().At(0)
	if v, _ := rl.Resource().Attributes().Get("service.name"); v.Str() != "skillwire" {
		t.Errorf("service.name %q", v.Str())
	}
	sl := rl.ScopeLogs().At(0)
	if sl.Scope().Name() != "github.com/skillwire/skillwire/events" {
		t.Errorf("scope %q", sl.Scope().Name())
	}
	rec := sl.LogRecords().At(0)
	if rec.Timestamp().AsTime() != at.UTC() || rec.ObservedTimestamp().AsTime() != at.Add(time.Second).UTC() {
		t.Errorf("times %v %v", rec.Timestamp(), rec.ObservedTimestamp())
	}
	if rec.SeverityNumber() != 13 || rec.SeverityText() != "Medium" || rec.EventName() != "skillwire.test" || rec.Body().Str() != "{}" {
		t.Errorf("record %v %q %q %q", rec.SeverityNumber(), rec.SeverityText(), rec.EventName(), rec.Body().Str())
	}
	want := map[string]any{
		"s": "text", "empty": "", "t": true, "f": false, "i": int64(-7), "zero": int64(0), "d": 2.5,
		"arr": []any{int64(1), "two"}, "map": map[string]any{"k": "v", "n": int64(3)}, "ss": []any{"a", "b"},
	}
	if a := rec.Attributes().AsRaw(); !reflect.DeepEqual(a, want) {
		t.Errorf("attributes\n got %v\nwant %v", a, want)
	}
}

// TestExporterRefusesAnAnswerOtherThan2xx: a collector's refusal is an
// error, so Ship keeps the batch.
func TestExporterRefusesAnAnswerOtherThan2xx(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "over quota", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", srv.URL+"/v1/logs")
	exp, err := NewExporter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conv := newConverter()
	defer conv.close()
	recs, _ := conv.convert(context.Background(), [][]byte{[]byte(`{"time":1}`)})
	err = exp.Export(context.Background(), recs)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("429")) {
		t.Errorf("Export: %v, want the 429", err)
	}
}
