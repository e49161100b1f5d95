package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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

// maxReply bounds what is read of the shipper's answer and its stderr.
const maxReply = 1 << 20

// ShipperBeside is the shipper in the folder of exe, skillwire's own
// binary. It must be a regular file, not a link, owned by this user or
// root, and writable by no one else: otherwise it is not run.
func ShipperBeside(exe string) (string, error) {
	p := filepath.Join(filepath.Dir(exe), ShipperName)
	fi, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("events: %s is not installed beside %s (go install ./cmd/%s, or make build): %w", ShipperName, exe, ShipperName, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("events: %s is not a regular file (%s); it is not run", p, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("events: %s is writable by group or others (%s); it is not run", p, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return "", fmt.Errorf("events: %s belongs to uid %d, not to you or root; it is not run", p, st.Uid)
	}
	return p, nil
}

// ShipVia runs one ship round in the shipper bin: the request on its
// stdin, the reply from its stdout. The environment goes with it, so the
// OTEL_EXPORTER_OTLP_* variables still say where.
func ShipVia(ctx context.Context, bin, dir string, t Target) (Result, error) {
	req, err := json.Marshal(ShipRequest{Dir: dir, Target: t})
	if err != nil {
		return Result{}, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = bytes.NewReader(req)
	cmd.Stdout = &limited{w: &out, n: maxReply}
	cmd.Stderr = &limited{w: &stderr, n: maxReply}
	runErr := cmd.Run()
	var rep ShipReply
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return Result{}, fmt.Errorf("events: %s gave no answer (%v): %s", bin, runErr, bytes.TrimSpace(stderr.Bytes()))
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
	dec := json.NewDecoder(io.LimitReader(in, maxReply))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
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
	if e := json.NewEncoder(out).Encode(rep); e != nil {
		fmt.Fprintf(errw, "%s: %v\n", ShipperName, e)
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}

// limited keeps the first n bytes written and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
