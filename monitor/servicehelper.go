package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillwire/skillwire/internal/helperbin"
)

// ServiceHelperName is the binary that talks to the service manager:
// cmd/skillwire-service, installed beside skillwire. kardianos/service's
// init probes the init system and parses templates. Kept out of
// skillwire, that init never runs in a hook.
const ServiceHelperName = "skillwire-service"

// ErrServiceHelper means skillwire-service could not be run or gave no
// answer: the service manager was not asked.
var ErrServiceHelper = errors.New("the service helper")

// The operations of a ServiceRequest. Probe makes the manager and says
// its Unit; the others are ServiceManager's methods.
const (
	OpProbe     = "probe"
	OpInstall   = "install"
	OpUninstall = "uninstall"
	OpStart     = "start"
	OpStop      = "stop"
	OpStatus    = "status"
)

// ServiceRequest is what the helper reads on its stdin.
type ServiceRequest struct {
	Op   string `json:"op"`
	Text string `json:"text,omitempty"` // install's definition file
}

// ServiceReply is what the helper answers on its stdout.
type ServiceReply struct {
	Unit   string        `json:"unit,omitempty"` // probe's answer
	Status ServiceStatus `json:"status"`         // status's answer
	Error  string        `json:"error,omitempty"`
	// Kind names the error's kind, so errors.Is holds across the process.
	Kind string `json:"kind,omitempty"`
}

// replyKinds are the error kinds a reply carries by name.
var replyKinds = []struct {
	name string
	err  error
}{
	{"unsupported", ErrServiceUnsupported},
	{"spec", ErrServiceSpec},
	{"exists", ErrUnitExists},
	{"refused", ErrUnitRefused},
}

// NewServiceManager is the service manager skillwire-service, beside
// exe, talks to. The helper is proven as helperbin.Beside proves every
// helper, and asked once whether this system has a user service manager.
func NewServiceManager(exe string) (ServiceManager, error) {
	bin, err := helperbin.Beside(exe, ServiceHelperName)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServiceHelper, err)
	}
	m := &helperManager{bin: bin}
	rep, err := m.ask(ServiceRequest{Op: OpProbe})
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(rep.Unit, "/") {
		return nil, fmt.Errorf("%w: %s named no absolute definition path (%q)", ErrServiceHelper, bin, rep.Unit)
	}
	m.unit = rep.Unit
	return m, nil
}

// helperManager is a ServiceManager whose every call runs the helper.
type helperManager struct {
	bin, unit string
}

// ask runs one request. An error the reply names is the error; a helper
// that failed without one is ErrServiceHelper, never a success.
func (m *helperManager) ask(req ServiceRequest) (ServiceReply, error) {
	var rep ServiceReply
	exit, err := helperbin.Call(context.Background(), m.bin, req, &rep)
	switch {
	case err != nil:
		return rep, fmt.Errorf("%w: %w", ErrServiceHelper, err)
	case rep.Error != "":
		return rep, &replyError{msg: rep.Error, kind: replyKind(rep.Kind)}
	case exit != nil:
		return rep, fmt.Errorf("%w: %s failed (%v) and said no reason", ErrServiceHelper, m.bin, exit)
	}
	return rep, nil
}

// replyKind is the error kind a reply names, nil for none.
func replyKind(name string) error {
	for _, k := range replyKinds {
		if k.name == name {
			return k.err
		}
	}
	return nil
}

// replyError is the helper's error: its message, and its kind for errors.Is.
type replyError struct {
	msg  string
	kind error
}

func (e *replyError) Error() string { return e.msg }
func (e *replyError) Unwrap() error { return e.kind }

func (m *helperManager) Unit() string { return m.unit }

func (m *helperManager) Install(text string) error {
	_, err := m.ask(ServiceRequest{Op: OpInstall, Text: text})
	return err
}

func (m *helperManager) Uninstall() error {
	_, err := m.ask(ServiceRequest{Op: OpUninstall})
	return err
}

func (m *helperManager) Start() error {
	_, err := m.ask(ServiceRequest{Op: OpStart})
	return err
}

func (m *helperManager) Stop() error {
	_, err := m.ask(ServiceRequest{Op: OpStop})
	return err
}

func (m *helperManager) Status() (ServiceStatus, error) {
	rep, err := m.ask(ServiceRequest{Op: OpStatus})
	return rep.Status, err
}

// ServeService is the helper's side: one request from in, run on the
// manager newManager makes, one reply to out. It returns the process's
// exit code: 0 done, 1 not (the reply says why), 2 the request unreadable.
func ServeService(in io.Reader, out, errw io.Writer, newManager func() (ServiceManager, error)) int {
	var req ServiceRequest
	if err := helperbin.Read(in, &req); err != nil {
		fmt.Fprintf(errw, "%s: reads one JSON request on stdin from skillwire: %v\n", ServiceHelperName, err)
		return 2
	}
	var rep ServiceReply
	m, err := newManager()
	if err == nil {
		rep, err = serve(m, req)
	}
	if err != nil {
		rep.Error = err.Error()
		for _, k := range replyKinds {
			if errors.Is(err, k.err) {
				rep.Kind = k.name
				break
			}
		}
	}
	if e := helperbin.Write(out, rep); e != nil {
		fmt.Fprintf(errw, "%s: %v\n", ServiceHelperName, e)
		return 1
	}
	if rep.Error != "" {
		return 1
	}
	return 0
}

func serve(m ServiceManager, req ServiceRequest) (ServiceReply, error) {
	if req.Op != OpInstall && req.Text != "" {
		return ServiceReply{}, fmt.Errorf("%s: only install takes a definition", req.Op)
	}
	switch req.Op {
	case OpProbe:
		return ServiceReply{Unit: m.Unit()}, nil
	case OpInstall:
		return ServiceReply{}, m.Install(req.Text)
	case OpUninstall:
		return ServiceReply{}, m.Uninstall()
	case OpStart:
		return ServiceReply{}, m.Start()
	case OpStop:
		return ServiceReply{}, m.Stop()
	case OpStatus:
		st, err := m.Status()
		return ServiceReply{Status: st}, err
	}
	return ServiceReply{}, fmt.Errorf("%s: unknown operation %q", ServiceHelperName, req.Op)
}
