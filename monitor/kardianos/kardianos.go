// Package kardianos is the user service manager of skillwire-service:
// kardianos/service on systemd and launchd. Its init probes the system's
// init and parses templates, so only cmd/skillwire-service imports this
// package: no hook pays for it (issue 34).
package kardianos

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/kardianos/service"
	"github.com/skillwire/skillwire/monitor"
)

// config is the kardianos/service configuration of the user service
// whose definition file is text. RunAtLoad and KeepAlive say what the
// plist says, for a reader of this config; the text is what counts.
func config(goos, text string) *service.Config {
	c := &service.Config{
		Name:        monitor.ServiceName,
		DisplayName: "skillwire daemon",
		Description: "watches Claude Code's skills, agents and commands",
		Arguments:   []string{"daemon"},
		Option:      service.KeyValue{"UserService": true},
	}
	switch goos {
	case "darwin":
		c.Name = monitor.LaunchdLabel
		c.Option["LaunchdConfig"] = text
		c.Option["RunAtLoad"] = true
		c.Option["KeepAlive"] = true
	default:
		c.Option["SystemdScript"] = text
	}
	return c
}

// New is the kardianos/service manager of this system. It refuses
// anything but systemd and launchd: kardianos would fall back to a
// system-wide SysV script, an upstart job or a Windows service run by
// another account, none of which is a user service that sees the user's
// ~/.claude.
func New() (monitor.ServiceManager, error) {
	sys := service.ChosenSystem()
	if sys == nil {
		return nil, monitor.ErrServiceUnsupported
	}
	switch sys.String() {
	case "linux-systemd", "darwin-launchd":
	default:
		return nil, fmt.Errorf("%w: this system uses %s; run 'skillwire daemon' from your session's autostart instead", monitor.ErrServiceUnsupported, sys)
	}
	home, err := monitor.ServiceHome()
	if err != nil {
		return nil, err
	}
	return newManager(sys, runtime.GOOS, home), nil
}

func newManager(sys service.System, goos, home string) *manager {
	return &manager{sys: sys, goos: goos, unit: monitor.UnitPath(goos, home)}
}

type manager struct {
	sys  service.System
	goos string
	unit string
}

func (m *manager) Unit() string { return m.unit }

// svc is the kardianos service; text is needed only to install.
func (m *manager) svc(text string) (service.Service, error) {
	return m.sys.New(noProgram{}, config(m.goos, text))
}

func (m *manager) Install(text string) error {
	// The text goes through kardianos's template engine; without "{{" it
	// is copied verbatim. The renderers never produce one.
	if strings.Contains(text, "{{") {
		return fmt.Errorf("%w: the text holds a template action", monitor.ErrServiceSpec)
	}
	if err := monitor.UnitAbsent(m.unit); err != nil {
		return err
	}
	s, err := m.svc(text)
	if err == nil {
		err = s.Install()
	}
	return m.managerErr("install", "enable", err)
}

func (m *manager) Uninstall() error {
	s, err := m.svc("")
	if err == nil {
		err = s.Uninstall()
	}
	return m.managerErr("uninstall", "disable", err)
}

func (m *manager) Start() error {
	s, err := m.svc("")
	if err == nil {
		err = s.Start()
	}
	return m.managerErr("start", "start", err)
}

func (m *manager) Stop() error {
	s, err := m.svc("")
	if err == nil {
		err = s.Stop()
	}
	return m.managerErr("stop", "stop", err)
}

// Status asks the manager only when the unit file exists: systemd answers
// "not installed" when it merely cannot be reached.
func (m *manager) Status() (monitor.ServiceStatus, error) {
	if ok, err := monitor.UnitExists(m.unit); err != nil || !ok {
		return monitor.ServiceNotInstalled, err
	}
	s, err := m.svc("")
	if err != nil {
		return monitor.ServiceNotInstalled, m.managerErr("status", "status", err)
	}
	st, err := s.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		return monitor.ServiceStopped, fmt.Errorf("the service manager does not know the service although %s exists (reinstall it, or reload the manager)", m.unit)
	case err != nil:
		return monitor.ServiceStopped, m.managerErr("status", "status", err)
	case st == service.StatusRunning:
		return monitor.ServiceRunning, nil
	}
	return monitor.ServiceStopped, nil
}

// managerErr names the operation. kardianos keeps launchctl's message but
// drops systemctl's, so on systemd it names the command that tells why.
func (m *manager) managerErr(op, verb string, err error) error {
	if err == nil {
		return nil
	}
	if m.goos == "linux" {
		return fmt.Errorf("%s: %w (for systemd's reason run: systemctl --user %s %s.service)", op, err, verb, monitor.ServiceName)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// noProgram satisfies kardianos's Interface, which only its Run uses: the
// service runs `skillwire daemon`, not this process.
type noProgram struct{}

func (noProgram) Start(service.Service) error { return nil }
func (noProgram) Stop(service.Service) error  { return nil }
