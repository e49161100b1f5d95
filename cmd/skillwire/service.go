package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/skillwire/skillwire/monitor"
	"github.com/spf13/cobra"
)

// daemonEnv is every variable the daemon reads besides HOME. The service
// manager starts it with its own environment, so what the installing shell
// set is written into the service definition explicitly.
var daemonEnv = []string{"CLAUDE_CONFIG_DIR", "SKILLWIRE_STATE_DIR", "SKILLWIRE_MAX_ENTRIES", "SKILLWIRE_MAX_BYTES", "SKILLWIRE_LOCK_TIMEOUT",
	// The fleet's events: the switch and the standard OTLP exporter settings.
	"SKILLWIRE_EVENTS_OTLP", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_PROTOCOL"}

const lingerNote = "note: systemd runs a user's services from their first login to their last logout; to start skillwire at boot and keep it running without a session, run once: loginctl enable-linger $USER"

func newServiceCmd(s *streams) *cobra.Command {
	svc := &cobra.Command{
		Use:   "service",
		Short: "Run the daemon as a user service that starts at login",
		Long: `service installs 'skillwire daemon' as a service of the current user that
starts at login, and starts, stops and reports it.

On Linux it is a systemd user unit, ~/.config/systemd/user/skillwire.service,
wanted by default.target (the target a user's manager reaches at login).
systemd starts a user's services at their first login and stops them at the
last logout; to start skillwire at boot and keep it running without a
session, run once:

  loginctl enable-linger $USER

On macOS it is a launchd agent,
~/Library/LaunchAgents/com.github.skillwire.daemon.plist, run at load
(login) and restarted when it fails. (Not yet installed there: the daemon
runs only on Linux, because fsnotify on macOS would open every file of the
watched trees; on macOS the hook walks the trees at every session.) Windows is not supported: kardianos/service would create
a machine-wide service run by another account, which would not watch this
user's trees.

The definition runs this binary by its absolute path, with CLAUDE_CONFIG_DIR,
SKILLWIRE_STATE_DIR, SKILLWIRE_MAX_ENTRIES, SKILLWIRE_MAX_BYTES,
SKILLWIRE_LOCK_TIMEOUT, SKILLWIRE_EVENTS_OTLP and the OTEL_EXPORTER_OTLP_*
variables as set when it is installed.

The service manager is asked through skillwire-service, which must be
installed beside this binary (make build, or go install ./cmd/...): a
regular file owned by you or root and writable by no one else.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var f confirmFlags
	install := &cobra.Command{
		Use:   "install",
		Short: "Install the daemon as a user service that starts at login",
		Long: `install writes the service definition (a systemd user unit, or a launchd
agent) that runs this binary's 'daemon', and has the service manager enable
it at login. It shows the path and the full text, and needs --yes or a yes
typed on a terminal; --dry-run only shows. When the same definition is in
place it changes nothing; a different one is shown as a change and replaced.
It does not start the service: 'skillwire service start' does.

systemd runs user services only while the user has a session; to start
skillwire at boot and keep it running after logout, run once:

  loginctl enable-linger $USER

Exit 0 done or already installed, 1 the service manager failed, 2 usage
error, refused input or not confirmed.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return serviceInstall(s, f) },
	}
	f.register(install, "confirm", "show what would be done, do nothing")
	var uf confirmFlags
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the user service and remove its definition",
		Long: `uninstall stops the service when it runs, has the service manager disable
it, and removes its definition file — nothing else. It shows the path and
the full text it removes, and needs --yes or a yes typed on a terminal;
--dry-run only shows.

Exit 0 done or nothing installed, 1 the service manager failed, 2 usage
error, refused input or not confirmed.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return serviceUninstall(s, uf) },
	}
	uf.register(uninstall, "confirm", "show what would be done, do nothing")
	start := &cobra.Command{
		Use:   "start",
		Short: "Start the installed user service",
		Long: `start has the service manager start the daemon now.

Exit 0 started or already running, 1 the service manager failed, 2 not
installed.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return serviceStart(s) },
	}
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the user service",
		Long: `stop has the service manager stop the daemon. It starts again at the next
login.

Exit 0 stopped or not running, 1 the service manager failed.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return serviceStop(s) },
	}
	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether the user service is installed and running",
		Long: `status prints running, stopped or not installed, and the definition file.
JSON: {"installed": bool, "running": bool, or null when not installed or
unknown, "unit": path}.

Exit 0, 1 when the service manager cannot say (running is then null).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return serviceStatus(s, asJSON) },
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	svc.AddCommand(install, uninstall, start, stop, status)
	return svc
}

// serviceManager is the system's service manager, through skillwire-service
// beside this binary, or the fake that SKILLWIRE_SERVICE_FAKE asks for.
func serviceManager(s *streams) (monitor.ServiceManager, error) {
	if dir, ok := s.getenv("SKILLWIRE_SERVICE_FAKE"); ok && dir != "" {
		if !strings.HasPrefix(dir, "/") {
			return nil, fail(exitUsage, "SKILLWIRE_SERVICE_FAKE must be an absolute path")
		}
		fmt.Fprintf(s.err, "skillwire: SKILLWIRE_SERVICE_FAKE is set: a fake service manager in %s stands in for the real one (for tests)\n", defang(dir))
		return monitor.NewFakeServiceManager(dir), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fail(exitInternal, "cannot tell where this binary is: %s", defang(err.Error()))
	}
	m, err := monitor.NewServiceManager(exe)
	if err != nil {
		return nil, managerFailure(err)
	}
	return m, nil
}

// managerFailure: a system without a user service manager is refused
// (exit 2, with what to do instead), not an internal error. A helper that
// is missing, unproven or broken is exit 1, as any other manager failure.
func managerFailure(err error) error {
	if errors.Is(err, monitor.ErrServiceUnsupported) {
		msg := defang(err.Error())
		if !strings.Contains(msg, "autostart") {
			msg += "; run 'skillwire daemon' from your session's autostart instead"
		}
		return fail(exitUsage, "service manager: %s", msg)
	}
	return fail(exitInternal, "service manager: %s", defang(err.Error()))
}

// serviceText renders the definition for this binary and environment,
// refusing an environment the daemon itself would refuse.
func serviceText(s *streams) (string, error) {
	if _, err := loadWorld(s); err != nil {
		return "", err
	}
	if _, err := envConfig(s); err != nil {
		return "", err
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fail(exitInternal, "cannot tell where this binary is: %s", defang(err.Error()))
	}
	if fi, err := os.Stat(exe); err != nil || !fi.Mode().IsRegular() {
		return "", fail(exitInternal, "cannot find this binary at %s", defang(exe))
	}
	spec := monitor.ServiceSpec{Executable: exe, Env: map[string]string{}}
	spec.Home, _ = monitor.ServiceHome() // only launchd needs it, and says so
	for _, k := range daemonEnv {
		if v, ok := s.getenv(k); ok && v != "" {
			spec.Env[k] = v
		}
	}
	text, err := monitor.ServiceDefinition(spec)
	switch {
	case errors.Is(err, monitor.ErrServiceSpec):
		return "", failure(err, exitInternal)
	case err != nil:
		return "", managerFailure(err)
	}
	return text, nil
}

// currentUnit reads the definition in place; nil when there is none.
func currentUnit(unit string) ([]byte, error) {
	b, err := monitor.ReadUnit(unit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, monitor.ErrUnitRefused):
		return nil, fail(exitCode(err, exitInternal), "%s; nothing was changed", defang(err.Error()))
	case err != nil:
		return nil, fail(exitInternal, "reading %s: %s", defang(unit), sysErr(err))
	}
	return b, nil
}

func serviceInstall(s *streams, f confirmFlags) error {
	if err := monitor.WatchSupported(); err != nil {
		return err // a service whose daemon cannot run is no help
	}
	m, merr := serviceManager(s)
	text, err := serviceText(s)
	if err != nil {
		return err
	}
	if merr != nil {
		if f.dryRun {
			// Still show what would be written, for another autostart.
			fmt.Fprintln(s.out, "dry run: no service manager to install it with; the definition would be:")
			writeIndented(s.out, []byte(text))
		}
		return merr
	}
	unit := m.Unit()
	cur, err := currentUnit(unit)
	if err != nil {
		return err
	}
	replace := cur != nil
	if replace && bytes.Equal(cur, []byte(text)) {
		fmt.Fprintf(s.out, "the service is already installed: %s; nothing changed\n", defang(unit))
		return nil
	}
	if replace {
		fmt.Fprintf(s.out, "%s: replace the service definition\n", defang(unit))
		writeDiff(s.out, cur, []byte(text))
	} else {
		fmt.Fprintf(s.out, "%s: write this service definition\n", defang(unit))
		writeIndented(s.out, []byte(text))
	}
	fmt.Fprintln(s.out, "the service manager then enables it, so that it starts at each login")
	if runtime.GOOS == "linux" {
		fmt.Fprintln(s.out, lingerNote)
	}
	if ok, err := f.proceed(s, "install the service?", "nothing was written"); !ok {
		return err
	}
	running := false
	if replace {
		st, err := m.Status()
		running = err == nil && st == monitor.ServiceRunning
		if err := m.Uninstall(); err != nil {
			return managerFailure(err)
		}
	}
	if err := m.Install(text); err != nil {
		if replace {
			return fail(exitInternal, "service manager: %s; the previous definition was removed, run 'skillwire service install' again", defang(err.Error()))
		}
		return managerFailure(err)
	}
	// What was confirmed is what must be in place.
	if got, err := monitor.ReadUnit(unit); err != nil || !bytes.Equal(got, []byte(text)) {
		return fail(exitInternal, "%s does not hold the definition shown; see it, and run 'skillwire service uninstall'", defang(unit))
	}
	fmt.Fprintf(s.out, "installed %s\n", defang(unit))
	if running {
		fmt.Fprintln(s.out, "the running daemon still runs the previous definition: run 'skillwire service stop', then 'skillwire service start'")
	} else {
		fmt.Fprintln(s.out, "it starts at the next login; to start it now: skillwire service start")
	}
	return nil
}

func serviceUninstall(s *streams, f confirmFlags) error {
	m, err := serviceManager(s)
	if err != nil {
		return err
	}
	unit := m.Unit()
	cur, err := currentUnit(unit)
	if err != nil {
		return err
	}
	if cur == nil {
		fmt.Fprintf(s.out, "the service is not installed (no %s); nothing changed\n", defang(unit))
		return nil
	}
	// A manager that cannot say whether the service runs is asked to stop
	// it anyway: a daemon left running without its definition is orphaned.
	st, err := m.Status()
	stop := err != nil || st == monitor.ServiceRunning
	fmt.Fprintf(s.out, "%s: remove this service definition\n", defang(unit))
	writeIndented(s.out, cur)
	if !monitor.WrittenBySkillwire(cur) {
		fmt.Fprintln(s.out, "note: this file does not say that 'skillwire service install' wrote it")
	}
	if stop {
		fmt.Fprintln(s.out, "the service is stopped first")
	}
	fmt.Fprintln(s.out, "the service manager then disables it")
	if ok, err := f.proceed(s, "remove the service?", "nothing was removed"); !ok {
		return err
	}
	if stop {
		if err := m.Stop(); err != nil {
			return managerFailure(err)
		}
	}
	if err := m.Uninstall(); err != nil {
		return managerFailure(err)
	}
	fmt.Fprintf(s.out, "removed %s\n", defang(unit))
	return nil
}

func serviceStart(s *streams) error {
	m, err := serviceManager(s)
	if err != nil {
		return err
	}
	// On an error the manager is asked anyway: it may start a failed unit.
	st, err := m.Status()
	switch {
	case err == nil && st == monitor.ServiceNotInstalled:
		return fail(exitUsage, "the service is not installed: run 'skillwire service install' first")
	case err == nil && st == monitor.ServiceRunning:
		fmt.Fprintln(s.out, "the service is already running")
		return nil
	}
	if err := m.Start(); err != nil {
		return managerFailure(err)
	}
	fmt.Fprintln(s.out, "started the service")
	return nil
}

func serviceStop(s *streams) error {
	m, err := serviceManager(s)
	if err != nil {
		return err
	}
	st, err := m.Status()
	switch {
	case err == nil && st == monitor.ServiceNotInstalled:
		fmt.Fprintln(s.out, "the service is not installed; nothing to stop")
		return nil
	case err == nil && st == monitor.ServiceStopped:
		fmt.Fprintln(s.out, "the service is not running; nothing to stop")
		return nil
	}
	if err := m.Stop(); err != nil {
		return managerFailure(err)
	}
	fmt.Fprintln(s.out, "stopped the service; it starts again at the next login")
	return nil
}

type serviceStatusJSON struct {
	Installed bool   `json:"installed"`
	Running   *bool  `json:"running"`
	Unit      string `json:"unit"`
}

func serviceStatus(s *streams, asJSON bool) error {
	m, err := serviceManager(s)
	if err != nil {
		return err
	}
	st, serr := m.Status()
	out := serviceStatusJSON{Installed: st != monitor.ServiceNotInstalled, Unit: m.Unit()}
	if serr == nil && out.Installed {
		running := st == monitor.ServiceRunning
		out.Running = &running
	}
	if asJSON {
		if err := writeJSON(s.out, out); err != nil {
			return err
		}
	} else {
		switch {
		case serr != nil && out.Installed:
			fmt.Fprintln(s.out, "installed; the service manager cannot say whether it runs")
		case serr != nil:
			fmt.Fprintln(s.out, "unknown")
		default:
			fmt.Fprintln(s.out, st)
		}
		fmt.Fprintf(s.out, "unit: %s\n", defang(out.Unit))
		switch {
		case serr != nil:
		case st == monitor.ServiceNotInstalled:
			fmt.Fprintln(s.out, "install it with: skillwire service install")
		case st == monitor.ServiceStopped:
			fmt.Fprintln(s.out, "start it with: skillwire service start")
		}
	}
	if serr != nil {
		return managerFailure(serr)
	}
	return nil
}
