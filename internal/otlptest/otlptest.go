// Package otlptest runs the OpenTelemetry Collector's own OTLP receiver
// for tests: what skillwire ships is checked by the Collector itself.
package otlptest

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

// Collector is the OpenTelemetry Collector's own OTLP receiver on
// 127.0.0.1, HTTP only. It feeds a consumertest sink, optionally slowed.
type Collector struct {
	Addr  string
	Sink  *consumertest.LogsSink
	delay time.Duration
	rcv   receiver.Logs
}

func Start(t testing.TB, addr string, delay time.Duration, sink *consumertest.LogsSink) *Collector {
	t.Helper()
	if addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = l.Addr().String()
		l.Close()
	}
	if sink == nil {
		sink = new(consumertest.LogsSink)
	}
	c := &Collector{Addr: addr, Sink: sink, delay: delay}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	http := cfg.Protocols.HTTP.GetOrInsertDefault()
	http.ServerConfig.NetAddr.Endpoint = addr
	var next consumer.Logs = sink
	if delay > 0 {
		next, _ = consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
			time.Sleep(c.delay)
			return sink.ConsumeLogs(ctx, ld)
		})
	}
	rcv, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	if err := rcv.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	c.rcv = rcv
	t.Cleanup(c.Stop)
	return c
}

func StartWith(t testing.TB, consume consumer.ConsumeLogsFunc) *Collector {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	next, _ := consumer.NewLogs(consume)
	rcv, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	if err := rcv.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	c := &Collector{Addr: addr, rcv: rcv}
	t.Cleanup(c.Stop)
	return c
}

func (c *Collector) Stop() {
	if c.rcv != nil {
		c.rcv.Shutdown(context.Background())
		c.rcv = nil
	}
}

// Received is every record's attributes, by metadata.uid.
func (c *Collector) Received() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, ld := range c.Sink.AllLogs() {
		for i := 0; i < ld.ResourceLogs().Len(); i++ {
			rl := ld.ResourceLogs().At(i)
			for j := 0; j < rl.ScopeLogs().Len(); j++ {
				recs := rl.ScopeLogs().At(j).LogRecords()
				for k := 0; k < recs.Len(); k++ {
					a := recs.At(k).Attributes().AsRaw()
					a["(body)"] = recs.At(k).Body().Str()
					a["(event_name)"] = recs.At(k).EventName()
					a["(severity)"] = recs.At(k).SeverityNumber().String()
					if v, ok := rl.Resource().Attributes().Get("service.name"); ok {
						a["(service.name)"] = v.Str()
					}
					uid, _ := a["metadata.uid"].(string)
					out[uid] = a
				}
			}
		}
	}
	return out
}
