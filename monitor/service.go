package monitor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillwire/skillwire/internal/safefile"
)

// The daemon as a user service that starts at login. skillwire renders the
// whole definition file itself. skillwire-service hands it to
// kardianos/service as a template without a single action (monitor/kardianos),
// so the file written is byte for byte the text the user was shown and confirmed.

const (
	ServiceName  = "skillwire"                   // the systemd unit skillwire.service
	LaunchdLabel = "com.github.skillwire.daemon" // the launchd agent's label and plist name
	// restartDelay is systemd's RestartSec and launchd's ThrottleInterval.
	restartDelay = 10
	// maxUnit bounds what is read back from a definition file.
	maxUnit = 1 << 20
)

var (
	// ErrServiceUnsupported means this system has no service manager
	// skillwire can install a user service with.
	ErrServiceUnsupported = errors.New("no supported user service manager")
	// ErrServiceSpec means the service cannot be written faithfully for
	// this binary or environment.
	ErrServiceSpec = errors.New("cannot write the service definition")
	// ErrUnitExists means Install found a definition file in place.
	ErrUnitExists = errors.New("a service definition file exists")
	// ErrUnitRefused means the definition path holds something skillwire
	// does not read: not a regular file, or an implausibly large one.
	ErrUnitRefused = errors.New("not a service definition file")
)

// marker is in every definition skillwire writes, as a comment.
const marker = "Written by 'skillwire service install'; 'skillwire service uninstall' removes it."

// WrittenBySkillwire tells whether a definition file says skillwire wrote it.
func WrittenBySkillwire(text []byte) bool { return strings.Contains(string(text), marker) }

// ServiceSpec is what the user service runs: Executable's `daemon`, with
// Env set explicitly (the service manager's environment is not the shell's).
type ServiceSpec struct {
	Executable string            // absolute path of the skillwire binary
	Home       string            // the user's home directory (launchd's log)
	Env        map[string]string // passed to the daemon as set at install
}

// validate refuses what neither format can carry faithfully: a control
// character, invalid UTF-8 (systemd drops such an Environment= line, and
// the daemon would silently watch another tree), a relative path, or a
// `go run` binary that vanishes when it exits. Quotes and backslashes in
// the executable are refused because systemd refuses them in ExecStart.
func (s ServiceSpec) validate() error {
	if !strings.HasPrefix(s.Executable, "/") {
		return fmt.Errorf("%w: the executable path is not absolute", ErrServiceSpec)
	}
	for _, c := range strings.Split(s.Executable, "/") {
		if strings.HasPrefix(c, "go-build") {
			return fmt.Errorf("%w: this binary is a temporary build (go run) that will vanish; install skillwire first", ErrServiceSpec)
		}
	}
	if strings.ContainsAny(s.Executable, "\"'\\") {
		return fmt.Errorf("%w: systemd refuses an executable path holding a quote or a backslash", ErrServiceSpec)
	}
	if err := checkText("the executable path", s.Executable); err != nil {
		return err
	}
	if err := checkText("the home directory", s.Home); err != nil {
		return err
	}
	for k, v := range s.Env {
		if !isEnvName(k) {
			return fmt.Errorf("%w: %q is not an environment variable name", ErrServiceSpec, k)
		}
		if err := checkText(k, v); err != nil {
			return err
		}
	}
	return nil
}

func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrServiceSpec, what)
	}
	for _, r := range s {
		// Control characters, and the two code points XML cannot hold.
		if r < 0x20 || r == 0x7f || r == 0xfffe || r == 0xffff {
			return fmt.Errorf("%w: %s holds a control character", ErrServiceSpec, what)
		}
	}
	return nil
}

func isEnvName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (s ServiceSpec) envNames() []string {
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// SystemdUnit is the systemd user unit. WantedBy=default.target is the
// point: kardianos/service's own unit says multi-user.target, which a user
// manager never reaches, so that service would never start at login.
// Exits 2 (another daemon holds the role) and 4 (the store is unusable) are
// deterministic: restarting cannot fix them (DESIGN.md §8). The text is
// printable ASCII: everything else in a value is escaped.
func SystemdUnit(spec ServiceSpec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# " + marker + "\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=skillwire daemon: watches Claude Code's skills, agents and commands\n")
	b.WriteString("StartLimitIntervalSec=300\n")
	b.WriteString("StartLimitBurst=5\n")
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=exec\n")
	fmt.Fprintf(&b, "ExecStart=%s daemon\n", systemdQuote(spec.Executable))
	for _, k := range spec.envNames() {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(k+"="+spec.Env[k]))
	}
	b.WriteString("Restart=on-failure\n")
	fmt.Fprintf(&b, "RestartSec=%ds\n", restartDelay)
	b.WriteString("# Exit 2 (another daemon runs) and 4 (the store is unusable) are not retried.\n")
	b.WriteString("RestartPreventExitStatus=2 4\n")
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.String(), nil
}

// systemdQuote makes one double-quoted word of s (systemd.syntax(7)):
// quotes and backslashes are C-escaped, % is doubled (specifiers), and `{`
// and every non-ASCII byte become \xNN, so the text is ASCII and holds no
// "{{" for kardianos's template engine to act on. $ needs no escape: it is
// literal in an executable path and in Environment=.
func systemdQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteString("%%")
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '{' || c >= 0x80:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// LaunchdPlist is the launchd agent: started at load (login), restarted
// after a failure (an exit other than 0) no more often than every
// restartDelay seconds. The daemon logs to its own file; stderr keeps what
// it says when it cannot start.
func LaunchdPlist(spec ServiceSpec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	if !strings.HasPrefix(spec.Home, "/") {
		return "", fmt.Errorf("%w: the home directory is not an absolute path", ErrServiceSpec)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<!-- " + marker + " -->\n")
	b.WriteString(`<plist version="1.0">` + "\n<dict>\n")
	fmt.Fprintf(&b, "  <key>Label</key>\n  <string>%s</string>\n", LaunchdLabel)
	fmt.Fprintf(&b, "  <key>ProgramArguments</key>\n  <array>\n    <string>%s</string>\n    <string>daemon</string>\n  </array>\n", xmlText(spec.Executable))
	if len(spec.Env) > 0 {
		b.WriteString("  <key>EnvironmentVariables</key>\n  <dict>\n")
		for _, k := range spec.envNames() {
			fmt.Fprintf(&b, "    <key>%s</key>\n    <string>%s</string>\n", k, xmlText(spec.Env[k]))
		}
		b.WriteString("  </dict>\n")
	}
	b.WriteString("  <key>RunAtLoad</key>\n  <true/>\n")
	b.WriteString("  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n")
	fmt.Fprintf(&b, "  <key>ThrottleInterval</key>\n  <integer>%d</integer>\n", restartDelay)
	b.WriteString("  <key>ProcessType</key>\n  <string>Background</string>\n")
	fmt.Fprintf(&b, "  <key>StandardErrorPath</key>\n  <string>%s</string>\n", xmlText(spec.Home+"/Library/Logs/skillwire.log"))
	b.WriteString("</dict>\n</plist>\n")
	return b.String(), nil
}

// xmlText escapes s for element content; `{` and non-ASCII become
// character references, for the same reasons as in systemdQuote.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '{' || r >= 0x80:
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ServiceDefinition is the definition file for this platform's manager.
func ServiceDefinition(spec ServiceSpec) (string, error) {
	switch runtime.GOOS {
	case "linux":
		return SystemdUnit(spec)
	case "darwin":
		return LaunchdPlist(spec)
	}
	return "", fmt.Errorf("%w on %s", ErrServiceUnsupported, runtime.GOOS)
}

// ServiceHome is the home directory the way kardianos/service finds it on
// this platform, so the unit path skillwire reads is the one it writes.
func ServiceHome() (string, error) {
	if runtime.GOOS == "darwin" {
		if u, err := user.Current(); err == nil && u.HomeDir != "" {
			return u.HomeDir, nil
		}
	}
	return os.UserHomeDir()
}

// UnitPath is where the service manager of goos reads the definition.
func UnitPath(goos, home string) string {
	if goos == "darwin" {
		return home + "/Library/LaunchAgents/" + LaunchdLabel + ".plist"
	}
	return home + "/.config/systemd/user/" + ServiceName + ".service"
}

// ServiceStatus is what `skillwire service status` reports.
type ServiceStatus int

const (
	ServiceNotInstalled ServiceStatus = iota
	ServiceStopped
	ServiceRunning
)

func (s ServiceStatus) String() string {
	switch s {
	case ServiceRunning:
		return "running"
	case ServiceStopped:
		return "stopped"
	}
	return "not installed"
}

// ServiceManager is what `skillwire service` needs from a service system:
// kardianos/service in skillwire-service in production, a fake in tests.
type ServiceManager interface {
	// Unit is the path of the definition file.
	Unit() string
	// Install writes text at Unit, which must not exist (ErrUnitExists),
	// and enables the service at login.
	Install(text string) error
	// Uninstall disables the service and removes Unit; it does not stop it.
	Uninstall() error
	Start() error
	Stop() error
	// Status is ServiceNotInstalled when Unit does not exist.
	Status() (ServiceStatus, error)
}

// ReadUnit reads the definition file at path: fs.ErrNotExist when there is
// none. It never blocks on a FIFO, never follows a symbolic link (a link
// there would have the confirmation show another file than the one the
// manager loads), and refuses anything but a regular file.
func ReadUnit(path string) ([]byte, error) {
	b, _, err := safefile.Read(path, maxUnit, safefile.Trust{})
	switch {
	case errors.Is(err, safefile.ErrSymlink):
		return nil, fmt.Errorf("%w: %s is a symbolic link, not a regular file", ErrUnitRefused, path)
	case errors.Is(err, safefile.ErrNotRegular):
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnitRefused, path)
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrUnitRefused, path, maxUnit)
	}
	return b, err
}

// UnitAbsent is nil when nothing is at path, ErrUnitExists when something is.
func UnitAbsent(path string) error {
	ok, err := UnitExists(path)
	if ok {
		return fmt.Errorf("%w: %s", ErrUnitExists, path)
	}
	return err
}

// UnitExists tells whether anything is at path, without following a link.
func UnitExists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// NewFakeServiceManager is a service manager for tests only, selected by
// the CLI when SKILLWIRE_SERVICE_FAKE names a directory; nothing selects it
// by default. It behaves as systemd does for `skillwire service`: it writes
// the unit into dir, refuses to install over one, and keeps the state in
// dir: running (present while "running") and calls (one line per
// operation). A file fail-OP (OP is install, uninstall, start, stop or
// status) makes OP fail with its content as the manager's message.
func NewFakeServiceManager(dir string) ServiceManager {
	return &fakeManager{dir: dir, unit: filepath.Join(dir, filepath.Base(UnitPath(runtime.GOOS, "")))}
}

type fakeManager struct {
	dir, unit string
}

func (m *fakeManager) Unit() string { return m.unit }

// call records op, or fails it as dir/fail-op says.
func (m *fakeManager) call(op string) error {
	if b, err := os.ReadFile(filepath.Join(m.dir, "fail-"+op)); err == nil {
		return fmt.Errorf("%s: %s", op, strings.TrimSpace(string(b)))
	}
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(m.dir, "calls"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, op)
	return errors.Join(err, f.Close())
}

func (m *fakeManager) Install(text string) error {
	if err := UnitAbsent(m.unit); err != nil {
		return err
	}
	if err := m.call("install"); err != nil {
		return err
	}
	return os.WriteFile(m.unit, []byte(text), 0o644)
}

func (m *fakeManager) Uninstall() error {
	if err := m.call("uninstall"); err != nil {
		return err
	}
	return os.Remove(m.unit)
}

func (m *fakeManager) Start() error {
	if err := m.call("start"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dir, "running"), nil, 0o600)
}

func (m *fakeManager) Stop() error {
	if err := m.call("stop"); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(m.dir, "running"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (m *fakeManager) Status() (ServiceStatus, error) {
	if ok, err := UnitExists(m.unit); err != nil || !ok {
		return ServiceNotInstalled, err
	}
	if b, err := os.ReadFile(filepath.Join(m.dir, "fail-status")); err == nil {
		return ServiceStopped, fmt.Errorf("status: %s", strings.TrimSpace(string(b)))
	}
	if ok, err := UnitExists(filepath.Join(m.dir, "running")); err != nil || ok {
		return ServiceRunning, err
	}
	return ServiceStopped, nil
}
