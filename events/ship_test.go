package events

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillwire/skillwire/internal/otlprec"
	"github.com/skillwire/skillwire/internal/otlptest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
)

// newExporter is the SDK's OTLP/HTTP exporter as events/otlp makes it:
// its own retry off. Made here, since events/otlp imports this package.
func newExporter(tb testing.TB) sdklog.Exporter {
	tb.Helper()
	exp, err := otlploghttp.New(context.Background(), otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { exp.Shutdown(context.Background()) })
	return exp
}

// otlpConfig is the ShipConfig events/otlp makes: the OTLP records of
// internal/otlprec, sent through exp.
func otlpConfig(tb testing.TB, dir string, exp sdklog.Exporter) ShipConfig[sdklog.Record] {
	conv := otlprec.New(ProductVersion)
	tb.Cleanup(conv.Close)
	return ShipConfig[sdklog.Record]{Dir: dir, Convert: conv.Convert, Export: exp.Export}
}

// TestOTLPSeverityFollowsTheEventsNumbers: internal/otlprec maps OCSF
// severity_id by number. Those numbers are this package's Severity. Were
// they to move, this fails.
func TestOTLPSeverityFollowsTheEventsNumbers(t *testing.T) {
	want := map[Severity]otellog.Severity{
		SeverityInformational: otellog.SeverityInfo,
		SeverityLow:           otellog.SeverityInfo4,
		SeverityMedium:        otellog.SeverityWarn,
		SeverityHigh:          otellog.SeverityError,
		SeverityCritical:      otellog.SeverityFatal,
		Severity(0):           otellog.SeverityUndefined,
		Severity(6):           otellog.SeverityUndefined,
	}
	conv := otlprec.New(ProductVersion)
	defer conv.Close()
	for s, w := range want {
		recs, _ := conv.Convert(context.Background(), [][]byte{fmt.Appendf(nil, `{"severity_id":%d}`, s)})
		if len(recs) != 1 || recs[0].Severity() != w {
			t.Errorf("severity %d: %v, want %v", s, recs, w)
		}
	}
}

func exporterFor(t *testing.T, c *otlptest.Collector) ShipConfig[sdklog.Record] {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+c.Addr)
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2000")
	sc := otlpConfig(t, "", newExporter(t))
	sc.Attempts, sc.Backoff, sc.MaxBackoff = 2, 10*time.Millisecond, 20*time.Millisecond
	return sc
}

func appendN(t testing.TB, dir string, c Config, n int) []string {
	t.Helper()
	uids := make([]string, 0, n)
	for i := range n {
		e := testEvent(i)
		if err := Stamp(&e); err != nil {
			t.Fatal(err)
		}
		if err := c.Append(context.Background(), dir, e); err != nil {
			t.Fatal(err)
		}
		uids = append(uids, e.Metadata.UID)
	}
	return uids
}

func missing(want []string, got map[string]map[string]any) []string {
	var out []string
	for _, u := range want {
		if _, ok := got[u]; !ok {
			out = append(out, u)
		}
	}
	return out
}

// TestEventsArriveAtTheCollectorWithTheirAttributes: every field of the
// OCSF event is an attribute under its dotted name. session.id and
// prompt.id are set. The body is the event's JSON.
func TestEventsArriveAtTheCollectorWithTheirAttributes(t *testing.T) {
	dir := t.TempDir()
	col := otlptest.Start(t, "", 0, nil)
	sc := exporterFor(t, col)
	sc.Dir = dir
	var want []Event
	for _, e := range goldenCases() {
		want = append(want, e)
	}
	if err := Append(context.Background(), dir, want...); err != nil {
		t.Fatal(err)
	}
	res, err := Ship(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Shipped != len(want) {
		t.Errorf("shipped %d, want %d", res.Shipped, len(want))
	}
	got := col.Received()
	if len(got) != len(want) {
		t.Fatalf("received %d, want %d", len(got), len(want))
	}
	for _, e := range want {
		a := got[e.Metadata.UID]
		if a == nil {
			t.Errorf("%s not received", e.Metadata.UID)
			continue
		}
		checks := map[string]any{
			"class_uid":                       int64(e.ClassUID),
			"activity_id":                     int64(e.ActivityID),
			"severity_id":                     int64(e.SeverityID),
			"metadata.version":                Version,
			"metadata.product.name":           "skillwire",
			"device.hostname":                 e.Device.Hostname,
			"unmapped.skillwire.event":        e.Unmapped.Skillwire.Event,
			"unmapped.skillwire.candidate.id": e.Unmapped.Skillwire.Candidate.ID,
			"(event_name)":                    "skillwire." + e.Unmapped.Skillwire.Event,
			"(service.name)":                  "skillwire",
		}
		if e.File != nil {
			checks["file.path"] = strings.ToValidUTF8(e.File.Path, "\uFFFD")
		}
		if e.Actor.Session != nil {
			checks["session.id"] = e.Actor.Session.UID
			checks["prompt.id"] = e.Metadata.CorrelationUID
		}
		for k, v := range checks {
			if fmt.Sprint(a[k]) != fmt.Sprint(v) {
				t.Errorf("%s %s: %v, want %v", e.Unmapped.Skillwire.Event, k, a[k], v)
			}
		}
		if e.ClassUID == ClassFileActivity && e.File.Hashes != nil {
			hashes, _ := a["file.hashes"].([]any)
			if len(hashes) != len(e.File.Hashes) {
				t.Errorf("file.hashes %v", a["file.hashes"])
			}
		}
	}
}

// TestCollectorDownThenBackLosesNothing: while the collector is stopped,
// the events stay in the file and the cursor before them. After it comes
// back every event arrives.
func TestCollectorDownThenBackLosesNothing(t *testing.T) {
	dir := t.TempDir()
	col := otlptest.Start(t, "", 0, nil)
	sc := exporterFor(t, col)
	sc.Dir = dir
	uids := appendN(t, dir, DefaultConfig, 50)
	if _, err := Ship(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	col.Stop()
	uids = append(uids, appendN(t, dir, DefaultConfig, 70)...)
	res, err := Ship(context.Background(), sc)
	if err == nil {
		t.Fatal("shipping to a stopped collector succeeded")
	}
	if res.Shipped != 0 {
		t.Errorf("shipped %d while down", res.Shipped)
	}
	col2 := otlptest.Start(t, col.Addr, 0, col.Sink)
	res, err = Ship(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Shipped != 70 {
		t.Errorf("after restart shipped %d, want 70", res.Shipped)
	}
	if m := missing(uids, col2.Received()); len(m) > 0 {
		t.Errorf("%d events lost", len(m))
	}
}

// TestSlowCollectorDoesNotSlowAppending: the shipper holds no lock while
// it waits on the network. So a hook's append stays fast.
func TestSlowCollectorDoesNotSlowAppending(t *testing.T) {
	dir := t.TempDir()
	col := otlptest.Start(t, "", 300*time.Millisecond, nil)
	sc := exporterFor(t, col)
	sc.Dir, sc.Batch = dir, 10
	appendN(t, dir, DefaultConfig, 50)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := Ship(context.Background(), sc); err != nil {
			t.Error(err)
		}
	}()
	var worst time.Duration
	for i := range 40 {
		start := time.Now()
		if err := Append(context.Background(), dir, testEvent(i)); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	// The collector takes 300 ms a batch. An append that waited on it
	// would show it. 100 ms is far above an append's cost.
	if worst > 100*time.Millisecond {
		t.Errorf("slowest append %v while shipping to a slow collector", worst)
	}
}

// TestRotationMidShipLosesNothing: the file is rotated between and during
// ships. The cursor follows the sequence numbers.
func TestRotationMidShipLosesNothing(t *testing.T) {
	dir := t.TempDir()
	col := otlptest.Start(t, "", 0, nil)
	sc := exporterFor(t, col)
	sc.Dir, sc.Batch = dir, 7
	small := Config{MaxBytes: 8 << 10, Keep: 50, LockWait: time.Second}
	uids := appendN(t, dir, small, 30)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		uids2 := appendN(t, dir, small, 60)
		uids = append(uids, uids2...)
	}()
	if _, err := Ship(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if _, err := Ship(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	if seqs, _ := rotated(dir); len(seqs) < 3 {
		t.Fatalf("only %d rotations: the test did not rotate mid-ship", len(seqs))
	}
	if m := missing(uids, col.Received()); len(m) > 0 {
		t.Errorf("%d of %d events lost", len(m), len(uids))
	}
}

// TestACorruptCursorResendsRatherThanLoses: a cursor may fail its
// checksum, point past the file or point at the wrong bytes. It is set
// aside and everything kept is sent again, so none is lost. The receiver
// de-duplicates on metadata.uid.
func TestACorruptCursorResendsRatherThanLoses(t *testing.T) {
	cases := map[string]func(dir string){
		"garbage":      func(dir string) { os.WriteFile(filepath.Join(dir, cursorName), []byte("{\"seq\":1,\"off"), 0o600) },
		"flipped":      func(dir string) { flip(dir, func(c *Cursor) { c.Offset -= 10 }, false) },
		"past the end": func(dir string) { flip(dir, func(c *Cursor) { c.Offset += 1 << 20 }, true) },
		"wrong line":   func(dir string) { flip(dir, func(c *Cursor) { c.Offset -= 100 }, true) },
		"future file":  func(dir string) { flip(dir, func(c *Cursor) { c.Seq += 5 }, true) },
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			col := otlptest.Start(t, "", 0, nil)
			sc := exporterFor(t, col)
			sc.Dir = dir
			uids := appendN(t, dir, DefaultConfig, 20)
			if _, err := Ship(context.Background(), sc); err != nil {
				t.Fatal(err)
			}
			uids = append(uids, appendN(t, dir, DefaultConfig, 5)...)
			corrupt(dir)
			res, err := Ship(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			if res.CursorReset == "" {
				t.Error("the corrupt cursor was believed")
			}
			if res.Shipped != 25 {
				t.Errorf("shipped %d, want all 25 kept", res.Shipped)
			}
			if _, err := os.Stat(filepath.Join(dir, cursorName+".corrupt")); err != nil {
				t.Error("the corrupt cursor was not kept aside")
			}
			if m := missing(uids, col.Received()); len(m) > 0 {
				t.Errorf("%d events lost", len(m))
			}
			res, err = Ship(context.Background(), sc)
			if err != nil || res.Shipped != 0 || res.CursorReset != "" {
				t.Errorf("the new cursor: %+v %v", res, err)
			}
		})
	}
}

// flip rewrites the cursor with f applied, its checksum fixed or not.
func flip(dir string, f func(*Cursor), fixSum bool) {
	c, _, _ := loadCursor(dir)
	old := c.Check
	f(&c)
	c.save(dir)
	if !fixSum {
		c.Check = old
		os.WriteFile(filepath.Join(dir, cursorName), fmt.Appendf(nil, `{"seq":%d,"offset":%d,"last":%q,"check":%q}`, c.Seq, c.Offset, c.Last, c.Check), 0o600)
	}
}

// TestRotatedAwayUnshippedIsReported: files pruned before they were
// shipped are counted, not silently skipped.
func TestRotatedAwayUnshippedIsReported(t *testing.T) {
	dir := t.TempDir()
	col := otlptest.Start(t, "", 0, nil)
	sc := exporterFor(t, col)
	sc.Dir = dir
	appendN(t, dir, DefaultConfig, 3)
	if _, err := Ship(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	appendN(t, dir, Config{MaxBytes: 4096, Keep: 2, LockWait: time.Second}, 100)
	res, err := Ship(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.LostFiles == 0 {
		t.Errorf("no lost files reported: %+v", res)
	}
}

func BenchmarkShip100k(b *testing.B) {
	dir := b.TempDir()
	appendN(b, dir, Config{MaxBytes: 1 << 30, Keep: 2, LockWait: time.Second}, 100_000)
	// The collector counts and drops. A sink keeping 100,000 records would
	// measure the test's garbage collector, not the shipping.
	var got atomic.Int64
	col := otlptest.StartWith(b, func(_ context.Context, ld plog.Logs) error { got.Add(int64(ld.LogRecordCount())); return nil })
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+col.Addr)
	sc := otlpConfig(b, dir, newExporter(b))
	for b.Loop() {
		os.Remove(filepath.Join(dir, cursorName))
		res, err := Ship(context.Background(), sc)
		if err != nil || res.Shipped != 100_000 {
			b.Fatal(res, err)
		}
	}
	if got.Load() != int64(100_000*b.N) {
		b.Fatalf("received %d", got.Load())
	}
}
