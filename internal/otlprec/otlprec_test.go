package otlprec

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
)

// TestConvertKeepsATornLineAsText: a line that is not a JSON object is
// sent as its text, marked and counted. An event's fields become dotted
// attributes, its session the client's session.id.
func TestConvertKeepsATornLineAsText(t *testing.T) {
	c := New("9.9.9")
	defer c.Close()
	recs, malformed := c.Convert(context.Background(), [][]byte{
		[]byte(`{"severity_id":4,"severity":"High","time":1700000000000,"actor":{"session":{"uid":"s1"}},"unmapped":{"skillwire":{"event":"halt"}}}`),
		[]byte("{\"torn\x1b[31m"),
	})
	if len(recs) != 2 || malformed != 1 {
		t.Fatalf("%d records, %d malformed; want 2 and 1", len(recs), malformed)
	}
	ev := recs[0]
	if ev.EventName() != "skillwire.halt" || ev.Severity() != log.SeverityError || ev.SeverityText() != "High" || ev.Timestamp().UnixMilli() != 1700000000000 {
		t.Errorf("event record: name %q severity %v %q time %v", ev.EventName(), ev.Severity(), ev.SeverityText(), ev.Timestamp())
	}
	attrs := map[string]string{}
	ev.WalkAttributes(func(kv attribute.KeyValue) bool { attrs[string(kv.Key)] = kv.Value.String(); return true })
	if attrs["session.id"] != "s1" || attrs["actor.session.uid"] != "s1" {
		t.Errorf("attributes %v: no session.id s1", attrs)
	}
	torn := recs[1]
	if torn.EventName() != "skillwire.malformed" || torn.Body().AsString() != "{\"torn\x1b[31m" {
		t.Errorf("torn record: name %q body %q", torn.EventName(), torn.Body().AsString())
	}
	if v, _ := ev.Resource().Set().Value("service.version"); v.AsString() != "9.9.9" {
		t.Errorf("resource service.version %q, want 9.9.9", v.AsString())
	}
}
