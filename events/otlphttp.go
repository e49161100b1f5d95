package events

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
)

// exporter sends log records over OTLP/HTTP: one protobuf POST a batch.
// It stands in for the SDK's otlploghttp. That package imports the
// Collector's generated service, so it links gRPC, grpc-gateway and the
// protobuf runtime. Their init would run in every hook process (issue 34).
// The wire format is small and stable: it is written here instead.
type exporter struct {
	url     string
	headers map[string]string
	gzip    bool
	timeout time.Duration
	client  *http.Client
}

// The OTEL_EXPORTER_OTLP_* variables the exporter reads, as the SDK's
// exporter does. The _LOGS_ form of each wins over the general one.
const (
	envPrefix        = "OTEL_EXPORTER_OTLP_"
	defaultEndpoint  = "http://localhost:4318"
	logsPath         = "/v1/logs"
	defaultTimeout   = 10 * time.Second
	maxResponseBytes = 4 << 20
)

// env is the _LOGS_ form of a variable if set, else the general one. A
// variable set to "" is taken as unset.
func env(name string) (string, bool) {
	if v := os.Getenv(envPrefix + "LOGS_" + name); v != "" {
		return v, true
	}
	v := os.Getenv(envPrefix + name)
	return v, v != ""
}

// newHTTPExporter reads the environment, then t's fields over it.
func newHTTPExporter(t []Target) (*exporter, error) {
	e := &exporter{timeout: defaultTimeout}
	// The endpoint: the _LOGS_ form is the whole URL; the general one
	// is a base to which /v1/logs is added.
	raw, add := defaultEndpoint, true
	if v := os.Getenv(envPrefix + "LOGS_ENDPOINT"); v != "" {
		raw, add = v, false
	} else if v := os.Getenv(envPrefix + "ENDPOINT"); v != "" {
		raw = v
	}
	var headers map[string]string
	if v, ok := env("HEADERS"); ok {
		h, err := parseHeaders(v)
		if err != nil {
			return nil, err
		}
		headers = h
	}
	for _, x := range t {
		if x.Endpoint != "" {
			raw, add = x.Endpoint, false
		}
		if len(x.Headers) > 0 {
			headers = x.Headers
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the endpoint %q is not an http:// or https:// URL", raw)
	}
	if add {
		u.Path = path.Join("/", u.Path, logsPath)
	}
	e.url, e.headers = u.String(), headers
	if v, ok := env("COMPRESSION"); ok {
		switch v {
		case "gzip":
			e.gzip = true
		case "none", "":
		default:
			return nil, fmt.Errorf("unknown compression %q (gzip or none)", v)
		}
	}
	if v, ok := env("TIMEOUT"); ok {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("the timeout %q is not a positive number of milliseconds", v)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	cfg, err := tlsConfig()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	e.client = &http.Client{Transport: tr}
	return e, nil
}

// parseHeaders reads "key=value,..." with URL-escaped values.
func parseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for h := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(h, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) }) {
			return nil, fmt.Errorf("a header of %sHEADERS is not key=value", envPrefix)
		}
		v, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("the value of header %q: %w", k, err)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// tlsConfig is the CA and client certificate the variables name, if any.
func tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f, ok := env("CERTIFICATE"); ok {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", f)
		}
	}
	cert, okc := env("CLIENT_CERTIFICATE")
	key, okk := env("CLIENT_KEY")
	if okc != okk {
		return nil, errors.New("a client certificate needs both CLIENT_CERTIFICATE and CLIENT_KEY")
	}
	if okc {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Export posts recs as one ExportLogsServiceRequest. Any status but 2xx
// is an error: Ship retries and keeps its cursor before the batch.
func (e *exporter) Export(ctx context.Context, recs []sdklog.Record) error {
	if len(recs) == 0 {
		return nil
	}
	body := encodeRequest(recs)
	encoding := ""
	if e.gzip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(body)
		w.Close()
		body, encoding = z.Bytes(), "gzip"
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "skillwire/"+ProductVersion)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if resp.StatusCode/100 != 2 {
		if len(text) > 200 {
			text = text[:200]
		}
		return fmt.Errorf("the collector answered %s: %q", resp.Status, text)
	}
	return nil
}

func (e *exporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

func (e *exporter) ForceFlush(context.Context) error { return nil }

// The protobuf encoding of opentelemetry/proto/collector/logs/v1. Only
// what a record carries is written. Field numbers are the .proto's.
const (
	wireVarint = 0
	wire64     = 1
	wireBytes  = 2
	wire32     = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wire64), v)
}

// appendMsg appends field as a message that f appends. The length goes
// before it once known: the message is moved up by its size.
func appendMsg(b []byte, field int, f func([]byte) []byte) []byte {
	b = appendTag(b, field, wireBytes)
	start := len(b)
	b = f(b)
	n := len(b) - start
	var l [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(l[:], uint64(n))
	b = append(b, l[:k]...)
	copy(b[start+k:], b[start:start+n])
	copy(b[start:], l[:k])
	return b
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// encodeRequest groups consecutive records of one resource and scope.
func encodeRequest(recs []sdklog.Record) []byte {
	var b []byte
	for i := 0; i < len(recs); {
		res, scope := recs[i].Resource(), recs[i].InstrumentationScope()
		j := i + 1
		for j < len(recs) && recs[j].Resource() == res && sameScope(recs[j].InstrumentationScope(), scope) {
			j++
		}
		group := recs[i:j]
		b = appendMsg(b, 1, func(b []byte) []byte { // ResourceLogs
			b = appendMsg(b, 1, func(b []byte) []byte { return appendResource(b, res) })
			b = appendMsg(b, 2, func(b []byte) []byte { // ScopeLogs
				b = appendMsg(b, 1, func(b []byte) []byte {
					b = appendString(b, 1, scope.Name)
					b = appendString(b, 2, scope.Version)
					return appendAttrs(b, 3, scope.Attributes.ToSlice())
				})
				for k := range group {
					b = appendMsg(b, 2, func(b []byte) []byte { return appendRecord(b, &group[k]) })
				}
				return appendString(b, 3, scope.SchemaURL)
			})
			if res != nil {
				b = appendString(b, 3, res.SchemaURL())
			}
			return b
		})
		i = j
	}
	return b
}

func sameScope(a, b instrumentation.Scope) bool {
	return a.Name == b.Name && a.Version == b.Version && a.SchemaURL == b.SchemaURL && a.Attributes.Equals(&b.Attributes)
}

func appendResource(b []byte, res *resource.Resource) []byte {
	if res == nil {
		return b
	}
	return appendAttrs(b, 1, res.Attributes())
}

func appendRecord(b []byte, r *sdklog.Record) []byte {
	b = appendFixed64(b, 1, unixNano(r.Timestamp()))
	b = appendVarint(b, 2, uint64(r.Severity()))
	b = appendString(b, 3, r.SeverityText())
	if body := r.Body(); body.Type() != attribute.EMPTY {
		b = appendMsg(b, 5, func(b []byte) []byte { return appendValue(b, body) })
	}
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		b = appendMsg(b, 6, func(b []byte) []byte { return appendKV(b, kv) })
		return true
	})
	b = appendVarint(b, 7, uint64(r.DroppedAttributes()))
	if f := r.TraceFlags(); f != 0 {
		b = binary.LittleEndian.AppendUint32(appendTag(b, 8, wire32), uint32(f))
	}
	if id := r.TraceID(); id.IsValid() {
		b = appendString(b, 9, string(id[:]))
	}
	if id := r.SpanID(); id.IsValid() {
		b = appendString(b, 10, string(id[:]))
	}
	b = appendFixed64(b, 11, unixNano(r.ObservedTimestamp()))
	return appendString(b, 12, r.EventName())
}

func appendAttrs(b []byte, field int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendMsg(b, field, func(b []byte) []byte { return appendKV(b, kv) })
	}
	return b
}

// appendKV is a KeyValue: key 1, value 2.
func appendKV(b []byte, kv attribute.KeyValue) []byte {
	b = appendString(b, 1, string(kv.Key))
	return appendMsg(b, 2, func(b []byte) []byte { return appendValue(b, kv.Value) })
}

// appendValue is an AnyValue's one field: string 1, bool 2, int 3,
// double 4, array 5, kvlist 6, bytes 7. Zero values are written too:
// the oneof says which kind it is.
func appendValue(b []byte, v attribute.Value) []byte {
	str := func(b []byte, field int, s string) []byte {
		b = appendTag(b, field, wireBytes)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	array := func(b []byte, n int, at func(int) attribute.Value) []byte {
		return appendMsg(b, 5, func(b []byte) []byte {
			for i := range n {
				b = appendMsg(b, 1, func(b []byte) []byte { return appendValue(b, at(i)) })
			}
			return b
		})
	}
	switch v.Type() {
	case attribute.STRING:
		return str(b, 1, v.AsString())
	case attribute.BOOL:
		x := uint64(0)
		if v.AsBool() {
			x = 1
		}
		return binary.AppendUvarint(appendTag(b, 2, wireVarint), x)
	case attribute.INT64:
		return binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return binary.LittleEndian.AppendUint64(appendTag(b, 4, wire64), math.Float64bits(v.AsFloat64()))
	case attribute.BYTESLICE:
		return str(b, 7, string(v.AsByteSlice()))
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return array(b, len(s), func(i int) attribute.Value { return attribute.BoolValue(s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return array(b, len(s), func(i int) attribute.Value { return attribute.Int64Value(s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return array(b, len(s), func(i int) attribute.Value { return attribute.Float64Value(s[i]) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return array(b, len(s), func(i int) attribute.Value { return attribute.StringValue(s[i]) })
	case attribute.SLICE:
		s := v.AsSlice()
		return array(b, len(s), func(i int) attribute.Value { return s[i] })
	case attribute.MAP:
		return appendMsg(b, 6, func(b []byte) []byte { return appendAttrs(b, 1, v.AsMap()) })
	}
	return b // EMPTY: an AnyValue with no field set
}
