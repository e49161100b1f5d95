package events

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/skillwire/skillwire/internal/helperbin"
)

// ShipperName is the binary that ships the events: cmd/skillwire-ship,
// installed beside skillwire. The OTLP exporter links gRPC. Kept out of
// skillwire, its init never runs in a hook.
const ShipperName = "skillwire-ship"

// ShipRequest is what the shipper reads on its stdin. Headers may carry
// secrets, so they never go on its command line.
type ShipRequest struct {
	Dir    string `json:"dir"`
	Target Target `json:"target"`
}

// ShipReply is what the shipper answers on its stdout.
type ShipReply struct {
	Result Result `json:"result"`
	Error  string `json:"error,omitempty"`
	// Exporter: the error is ErrExporter's (bad settings, not delivery).
	Exporter bool `json:"exporter,omitempty"`
}

// ShipperBeside is the shipper in the folder of exe, skillwire's own
// binary, proven as helperbin.Beside proves every helper.
func ShipperBeside(exe string) (string, error) {
	p, err := helperbin.Beside(exe, ShipperName)
	if err != nil {
		return "", fmt.Errorf("events: %w", err)
	}
	return p, nil
}

// ShipVia runs one ship round in the shipper bin: the request on its
// stdin, the reply from its stdout. The environment goes with it, so the
// OTEL_EXPORTER_OTLP_* variables still say where.
func ShipVia(ctx context.Context, bin, dir string, t Target) (Result, error) {
	var rep ShipReply
	runErr, err := helperbin.Call(ctx, bin, ShipRequest{Dir: dir, Target: t}, &rep)
	if err != nil {
		return Result{}, fmt.Errorf("events: %w", err)
	}
	switch {
	case rep.Exporter:
		return rep.Result, fmt.Errorf("%w: %s", ErrExporter, rep.Error)
	case rep.Error != "":
		return rep.Result, errors.New(rep.Error)
	case runErr != nil:
		return rep.Result, fmt.Errorf("events: %s: %w", bin, runErr)
	}
	return rep.Result, nil
}

// ShipServe is the shipper's side: one request from in, ship runs it,
// one reply to out. It returns the process's exit code: 0 delivered, 1
// not (the reply says why), 2 the request unreadable.
func ShipServe(ctx context.Context, in io.Reader, out, errw io.Writer,
	ship func(context.Context, string, Target) (Result, error)) int {
	var req ShipRequest
	if err := helperbin.Read(in, &req); err != nil {
		fmt.Fprintf(errw, "%s: reads one JSON request on stdin from skillwire: %v\n", ShipperName, err)
		return 2
	}
	if req.Dir == "" {
		fmt.Fprintf(errw, "%s: the request names no events folder\n", ShipperName)
		return 2
	}
	res, err := ship(ctx, req.Dir, req.Target)
	rep := ShipReply{Result: res}
	if err != nil {
		rep.Error, rep.Exporter = err.Error(), errors.Is(err, ErrExporter)
	}
	if e := helperbin.Write(out, rep); e != nil {
		fmt.Fprintf(errw, "%s: %v\n", ShipperName, e)
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}
