package otlp

import (
	"context"
	"testing"

	"github.com/skillwire/skillwire/events"
	"github.com/skillwire/skillwire/internal/otlptest"
)

// TestShipOnceDeliversToTheCollector: the events kept reach the
// Collector's own OTLP receiver, each by its uid, and the cursor moves.
func TestShipOnceDeliversToTheCollector(t *testing.T) {
	dir := t.TempDir()
	var uids []string
	for i := range 5 {
		e := events.Halt(events.Origin{Via: "test"}, events.Candidate{ID: "swabcdefgh234567", Kind: "skill", Scope: "global", Name: "pdf"}, "blake3:00", "n"+string(rune('a'+i)))
		if err := events.Stamp(&e); err != nil {
			t.Fatal(err)
		}
		if err := events.Append(context.Background(), dir, e); err != nil {
			t.Fatal(err)
		}
		uids = append(uids, e.Metadata.UID)
	}
	col := otlptest.Start(t, "", 0, nil)
	res, err := ShipOnce(context.Background(), dir, events.Target{Endpoint: "http://" + col.Addr + "/v1/logs"})
	if err != nil || res.Shipped != 5 {
		t.Fatalf("shipped %+v, %v", res, err)
	}
	got := col.Received()
	for _, u := range uids {
		if _, ok := got[u]; !ok {
			t.Errorf("event %s did not reach the collector", u)
		}
	}
	if res, err := ShipOnce(context.Background(), dir, events.Target{Endpoint: "http://" + col.Addr + "/v1/logs"}); err != nil || res.Shipped != 0 {
		t.Errorf("a second round sent %+v, %v; the cursor did not move", res, err)
	}
}
