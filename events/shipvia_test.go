package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeShipper names what the test binary does when run as the shipper.
const fakeShipper = "SKILLWIRE_TEST_FAKE_SHIPPER"

// TestMain lets ShipVia run this test binary as its shipper.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeShipper); ok {
		os.Exit(serveFake(mode))
	}
	os.Exit(m.Run())
}

func serveFake(mode string) int {
	switch mode {
	case "garbage":
		fmt.Print("not json at all")
		return 0
	case "flood":
		junk := strings.Repeat("x", 1<<16)
		for range 128 { // 8 MiB, past helperbin.MaxReply
			fmt.Print(junk)
		}
		return 0
	}
	return ShipServe(context.Background(), os.Stdin, os.Stdout, os.Stderr, func(_ context.Context, dir string, t Target) (Result, error) {
		echo := dir + "|" + t.Endpoint + "|" + t.Headers["authorization"]
		switch mode {
		case "exporter":
			return Result{}, fmt.Errorf("%w: no endpoint", ErrExporter)
		case "down":
			return Result{Shipped: 1, CursorReset: echo}, errors.New("the collector is down")
		}
		return Result{Shipped: 3, CursorReset: echo}, nil
	})
}

func shipFake(t *testing.T, mode string) (Result, error) {
	t.Helper()
	t.Setenv(fakeShipper, mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ShipVia(context.Background(), exe, "/state/dir", Target{Endpoint: "http://c:4318", Headers: map[string]string{"authorization": "secret"}})
}

// TestShipViaCarriesTheRequestAndTheReply: the folder and the target
// reach the shipper on stdin (never its arguments), its result comes back.
func TestShipViaCarriesTheRequestAndTheReply(t *testing.T) {
	res, err := shipFake(t, "ok")
	if err != nil || res.Shipped != 3 || res.CursorReset != "/state/dir|http://c:4318|secret" {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// TestShipViaTellsAnExporterErrorFromADeliveryError: bad settings are
// ErrExporter (the person's to fix); a delivery failure is not, and what
// was delivered before it still counts.
func TestShipViaTellsAnExporterErrorFromADeliveryError(t *testing.T) {
	if _, err := shipFake(t, "exporter"); !errors.Is(err, ErrExporter) {
		t.Errorf("exporter error: %v, want ErrExporter", err)
	}
	res, err := shipFake(t, "down")
	if err == nil || errors.Is(err, ErrExporter) || !strings.Contains(err.Error(), "down") || res.Shipped != 1 {
		t.Errorf("delivery error: %+v, %v", res, err)
	}
}

// TestShipViaNeverTakesGarbageForSuccess: an answer that is not a reply,
// or one too large, is an error, never a success.
func TestShipViaNeverTakesGarbageForSuccess(t *testing.T) {
	for _, mode := range []string{"garbage", "flood"} {
		if res, err := shipFake(t, mode); err == nil {
			t.Errorf("%s: success %+v", mode, res)
		}
	}
}

// TestShipServeRefusesAnUnreadableRequest: exit 2, nothing shipped.
func TestShipServeRefusesAnUnreadableRequest(t *testing.T) {
	for _, in := range []string{"", "{", `{"dir":"/d","extra":1}`, `{"dir":""}`, strings.Repeat("[", 1<<21)} {
		called := false
		var out, errw strings.Builder
		code := ShipServe(context.Background(), strings.NewReader(in), &out, &errw, func(context.Context, string, Target) (Result, error) {
			called = true
			return Result{}, nil
		})
		if code != 2 || called || errw.Len() == 0 {
			t.Errorf("%.20q: exit %d, shipped %v, stderr %q", in, code, called, errw.String())
		}
	}
}

// TestShipperBesideRunsOnlyAProvenFile: missing, a link, or writable by
// others, the shipper is not run.
func TestShipperBesideRunsOnlyAProvenFile(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "skillwire")
	ship := filepath.Join(dir, ShipperName)
	if _, err := ShipperBeside(exe); err == nil {
		t.Error("a missing shipper was accepted")
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, ship); err != nil {
		t.Fatal(err)
	}
	if _, err := ShipperBeside(exe); err == nil {
		t.Error("a link was accepted")
	}
	os.Remove(ship)
	if err := os.WriteFile(ship, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ship, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := ShipperBeside(exe); err == nil {
		t.Error("a world-writable shipper was accepted")
	}
	if err := os.Chmod(ship, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := ShipperBeside(exe); err != nil || got != ship {
		t.Errorf("got %q, %v, want %q", got, err, ship)
	}
}
