package monitor

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden service definitions in testdata")

// hostileSpec holds every byte class the renderers must escape: systemd
// specifiers, quotes, backslashes, $, a template action and non-ASCII.
var hostileSpec = ServiceSpec{
	Executable: "/opt/my tools/50% {{.Path}} $HOME caf\u00e9/skillwire",
	Home:       "/Users/j\u00f6rg & <co>",
	Env: map[string]string{
		"CLAUDE_CONFIG_DIR":   `/home/u/"quoted" back\slash %h $HOME {{range .}}`,
		"SKILLWIRE_STATE_DIR": "/home/u/\u202eetats\u202c/\U0001F600",
	},
}

var serviceSpecs = []struct {
	name string
	spec ServiceSpec
}{
	{"plain", ServiceSpec{Executable: "/usr/local/bin/skillwire", Home: "/home/ada"}},
	{"env", ServiceSpec{Executable: "/home/ada/go/bin/skillwire", Home: "/home/ada", Env: map[string]string{
		"CLAUDE_CONFIG_DIR":   "/home/ada/.claude-work",
		"SKILLWIRE_STATE_DIR": "/home/ada/.local/state/skillwire",
	}}},
	{"hostile", hostileSpec},
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-golden to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestSystemdUnitGolden(t *testing.T) {
	for _, tc := range serviceSpecs {
		t.Run(tc.name, func(t *testing.T) {
			text, err := SystemdUnit(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".service", text)
		})
	}
}

func TestLaunchdPlistGolden(t *testing.T) {
	for _, tc := range serviceSpecs {
		t.Run(tc.name, func(t *testing.T) {
			text, err := LaunchdPlist(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".plist", text)
		})
	}
}

// The pitfall of DESIGN.md §9: a user manager never reaches
// multi-user.target, so a unit wanted by it never starts at login.
func TestSystemdUnitIsWantedByTheTargetAUserManagerReaches(t *testing.T) {
	text, err := SystemdUnit(serviceSpecs[0].spec)
	if err != nil {
		t.Fatal(err)
	}
	install := text[strings.Index(text, "[Install]"):]
	if install != "[Install]\nWantedBy=default.target\n" {
		t.Errorf("the [Install] section is\n%s", install)
	}
	if strings.Contains(text, "multi-user.target") {
		t.Error("the unit names multi-user.target")
	}
	for _, want := range []string{"\nExecStart=\"/usr/local/bin/skillwire\" daemon\n", "\nRestart=on-failure\n", "\nRestartSec=10s\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the unit lacks %q", want)
		}
	}
}

func TestLaunchdPlistRunsAtLoadAndRestartsOnFailure(t *testing.T) {
	text, err := LaunchdPlist(serviceSpecs[0].spec)
	if err != nil {
		t.Fatal(err)
	}
	p := decodePlist(t, text)
	if p["RunAtLoad"] != true {
		t.Errorf("RunAtLoad is %v", p["RunAtLoad"])
	}
	ka, ok := p["KeepAlive"].(map[string]any)
	if !ok || ka["SuccessfulExit"] != false || len(ka) != 1 {
		t.Errorf("KeepAlive is %v, want {SuccessfulExit: false}", p["KeepAlive"])
	}
	if p["Label"] != LaunchdLabel {
		t.Errorf("Label is %v", p["Label"])
	}
}

// The text shown is the text written: kardianos renders the definition as a
// template, so it must hold no action, and display escapes nothing in it.
func TestServiceDefinitionsArePrintableASCIIWithoutTemplateActions(t *testing.T) {
	for _, tc := range serviceSpecs {
		for format, render := range map[string]func(ServiceSpec) (string, error){"systemd": SystemdUnit, "launchd": LaunchdPlist} {
			text, err := render(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			checkPrintable(t, tc.name+" "+format, text)
		}
	}
}

func checkPrintable(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, "{{") {
		t.Errorf("%s: the text holds {{", what)
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '\n' && (c < 0x20 || c >= 0x7f) {
			t.Fatalf("%s: byte %#x at %d", what, c, i)
		}
	}
}

func TestServiceDefinitionsRoundTripEveryValue(t *testing.T) {
	for _, tc := range serviceSpecs {
		t.Run(tc.name, func(t *testing.T) {
			checkSystemdRoundTrip(t, tc.spec)
			checkLaunchdRoundTrip(t, tc.spec)
		})
	}
}

func checkSystemdRoundTrip(t *testing.T, spec ServiceSpec) {
	t.Helper()
	text, err := SystemdUnit(spec)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	var exec []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "ExecStart="):
			// systemd expands specifiers in the whole line, then splits it.
			exec = systemdWords(t, systemdSpecifiers(t, strings.TrimPrefix(line, "ExecStart=")))
		case strings.HasPrefix(line, "Environment="):
			// Here it splits first, then expands specifiers in each word.
			for _, w := range systemdWords(t, strings.TrimPrefix(line, "Environment=")) {
				k, v, _ := strings.Cut(systemdSpecifiers(t, w), "=")
				env[k] = v
			}
		}
	}
	if len(exec) != 2 || exec[0] != spec.Executable || exec[1] != "daemon" {
		t.Errorf("ExecStart decodes to %q, want [%q daemon]", exec, spec.Executable)
	}
	if len(env) != len(spec.Env) {
		t.Errorf("Environment decodes to %q, want %q", env, spec.Env)
	}
	for k, v := range spec.Env {
		if env[k] != v {
			t.Errorf("Environment %s decodes to %q, want %q", k, env[k], v)
		}
	}
}

// systemdSpecifiers expands the one specifier the renderer may write, %%.
func systemdSpecifiers(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) || s[i+1] != '%' {
			t.Fatalf("a specifier other than %%%% in %q", s)
		}
		b.WriteByte('%')
		i++
	}
	return b.String()
}

// systemdWords splits s into words as systemd.syntax(7) says: double
// quotes group, and inside them \\, \" and \xNN are C escapes.
func systemdWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	for i := 0; i < len(s); {
		switch s[i] {
		case ' ':
			i++
			continue
		case '"':
		default:
			j := strings.IndexByte(s[i:], ' ')
			if j < 0 {
				j = len(s) - i
			}
			words = append(words, s[i:i+j])
			i += j
			continue
		}
		var w []byte
		for i++; ; i++ {
			if i >= len(s) {
				t.Fatalf("an unterminated quote in %q", s)
			}
			c := s[i]
			if c == '"' {
				i++
				break
			}
			if c != '\\' {
				w = append(w, c)
				continue
			}
			switch {
			case i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"'):
				w = append(w, s[i+1])
				i++
			case i+3 < len(s) && s[i+1] == 'x':
				n, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
				if err != nil {
					t.Fatalf("a bad \\x escape in %q", s)
				}
				w = append(w, byte(n))
				i += 3
			default:
				t.Fatalf("an escape the renderer does not write in %q", s)
			}
		}
		words = append(words, string(w))
	}
	return words
}

func checkLaunchdRoundTrip(t *testing.T, spec ServiceSpec) {
	t.Helper()
	text, err := LaunchdPlist(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := decodePlist(t, text)
	args, _ := p["ProgramArguments"].([]any)
	if len(args) != 2 || args[0] != spec.Executable || args[1] != "daemon" {
		t.Errorf("ProgramArguments decode to %q, want [%q daemon]", args, spec.Executable)
	}
	env, _ := p["EnvironmentVariables"].(map[string]any)
	if len(env) != len(spec.Env) {
		t.Errorf("EnvironmentVariables decode to %q, want %q", env, spec.Env)
	}
	for k, v := range spec.Env {
		if env[k] != v {
			t.Errorf("EnvironmentVariables %s decodes to %q, want %q", k, env[k], v)
		}
	}
	if want := spec.Home + "/Library/Logs/skillwire.log"; p["StandardErrorPath"] != want {
		t.Errorf("StandardErrorPath decodes to %q, want %q", p["StandardErrorPath"], want)
	}
}

// decodePlist reads a property list of dicts, arrays, strings, integers
// and booleans with encoding/xml, as strictly as it can.
func decodePlist(t *testing.T, text string) map[string]any {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	var root map[string]any
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("the plist is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "dict" {
			root = plistValue(t, d, se).(map[string]any)
			break
		}
	}
	for {
		if _, err := d.Token(); err == io.EOF {
			return root
		} else if err != nil {
			t.Fatalf("the plist is not XML: %v", err)
		}
	}
}

func plistValue(t *testing.T, d *xml.Decoder, se xml.StartElement) any {
	t.Helper()
	switch se.Name.Local {
	case "true", "false":
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
		return se.Name.Local == "true"
	case "string", "key", "integer":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			t.Fatal(err)
		}
		return s
	case "dict", "array":
		m := map[string]any{}
		var a []any
		key := ""
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatal(err)
			}
			switch tok := tok.(type) {
			case xml.EndElement:
				if se.Name.Local == "dict" {
					return m
				}
				return a
			case xml.StartElement:
				v := plistValue(t, d, tok)
				switch {
				case se.Name.Local == "array":
					a = append(a, v)
				case tok.Name.Local == "key":
					key = v.(string)
				default:
					m[key] = v
				}
			}
		}
	}
	t.Fatalf("unexpected element <%s>", se.Name.Local)
	return nil
}

func TestServiceSpecRefusesWhatCannotBeWrittenFaithfully(t *testing.T) {
	ok := serviceSpecs[1].spec
	with := func(f func(*ServiceSpec)) ServiceSpec {
		s := ok
		s.Env = map[string]string{}
		for k, v := range ok.Env {
			s.Env[k] = v
		}
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		spec ServiceSpec
	}{
		{"relative executable", with(func(s *ServiceSpec) { s.Executable = "bin/skillwire" })},
		{"go run binary", with(func(s *ServiceSpec) { s.Executable = "/tmp/go-build123/b001/exe/skillwire" })},
		{"quote in executable", with(func(s *ServiceSpec) { s.Executable = `/opt/a"b/skillwire` })},
		{"apostrophe in executable", with(func(s *ServiceSpec) { s.Executable = "/opt/a'b/skillwire" })},
		{"backslash in executable", with(func(s *ServiceSpec) { s.Executable = `/opt/a\b/skillwire` })},
		{"newline in executable", with(func(s *ServiceSpec) { s.Executable = "/opt/a\nExecStartPre=/bin/sh/skillwire" })},
		{"newline in a value", with(func(s *ServiceSpec) { s.Env["CLAUDE_CONFIG_DIR"] = "/x\n[Install]" })},
		{"escape in a value", with(func(s *ServiceSpec) { s.Env["CLAUDE_CONFIG_DIR"] = "/x\x1b[2J" })},
		{"DEL in a value", with(func(s *ServiceSpec) { s.Env["CLAUDE_CONFIG_DIR"] = "/x\x7f" })},
		{"invalid UTF-8 in a value", with(func(s *ServiceSpec) { s.Env["CLAUDE_CONFIG_DIR"] = "/x\xff" })},
		{"noncharacter in a value", with(func(s *ServiceSpec) { s.Env["CLAUDE_CONFIG_DIR"] = "/x\uffff" })},
		{"bad variable name", with(func(s *ServiceSpec) { s.Env["A B"] = "/x" })},
		{"empty variable name", with(func(s *ServiceSpec) { s.Env[""] = "/x" })},
		{"variable name with =", with(func(s *ServiceSpec) { s.Env["A=B"] = "/x" })},
		{"control character in home", with(func(s *ServiceSpec) { s.Home = "/home/\t" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for format, render := range map[string]func(ServiceSpec) (string, error){"systemd": SystemdUnit, "launchd": LaunchdPlist} {
				if text, err := render(tc.spec); !errors.Is(err, ErrServiceSpec) {
					t.Errorf("%s: err %v, text\n%s", format, err, text)
				}
			}
		})
	}
	if _, err := LaunchdPlist(with(func(s *ServiceSpec) { s.Home = "" })); !errors.Is(err, ErrServiceSpec) {
		t.Errorf("launchd without a home: err %v", err)
	}
}

// systemd itself accepts the unit: the escapes decode to the executable
// (named in its complaint when it does not exist) and nothing is refused.
func TestSystemdAnalyzeAcceptsTheUnit(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	dir := t.TempDir()
	exe := dir + "/50% {{x}} $HOME caf\u00e9/skillwire"
	if err := os.Mkdir(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := hostileSpec
	spec.Executable = exe
	verify := func() string {
		text, err := SystemdUnit(spec)
		if err != nil {
			t.Fatal(err)
		}
		unit := dir + "/skillwire.service"
		if err := os.WriteFile(unit, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
		return string(out)
	}
	if out := verify(); !strings.Contains(out, "Command "+exe+" is not executable") {
		t.Errorf("systemd-analyze did not name the executable as %q:\n%s", exe, out)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := verify(); out != "" {
		t.Errorf("systemd-analyze verify says:\n%s", out)
	}
}

func TestUnitPaths(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":  "/home/ada/.config/systemd/user/skillwire.service",
		"darwin": "/home/ada/Library/LaunchAgents/com.github.skillwire.daemon.plist",
	} {
		if got := UnitPath(goos, "/home/ada"); got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
}

func TestFakeServiceManager(t *testing.T) {
	dir := t.TempDir() + "/svc"
	m := NewFakeServiceManager(dir)
	status := func(want ServiceStatus) {
		t.Helper()
		if st, err := m.Status(); err != nil || st != want {
			t.Fatalf("status %v, %v; want %v", st, err, want)
		}
	}
	status(ServiceNotInstalled)
	if err := m.Install("UNIT\n"); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadUnit(m.Unit()); err != nil || string(b) != "UNIT\n" || filepath.Dir(m.Unit()) != dir {
		t.Fatalf("%s holds %q, %v", m.Unit(), b, err)
	}
	if err := m.Install("UNIT\n"); !errors.Is(err, ErrUnitExists) {
		t.Errorf("a second install: %v", err)
	}
	status(ServiceStopped)
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	status(ServiceRunning)
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	status(ServiceStopped)
	if err := os.WriteFile(dir+"/fail-start", []byte("Failed to connect to bus\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err == nil || err.Error() != "start: Failed to connect to bus" {
		t.Errorf("a failing start: %v", err)
	}
	status(ServiceStopped)
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	status(ServiceNotInstalled)
	if b, err := os.ReadFile(dir + "/calls"); err != nil || string(b) != "install\nstart\nstop\nuninstall\n" {
		t.Errorf("calls %q, %v", b, err)
	}
}

func TestReadUnitRefusesWhatIsNotARegularFileWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(dir+"/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/big", bytes.Repeat([]byte("x"), maxUnit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"fifo", "big", "."} {
			if _, err := ReadUnit(dir + "/" + name); !errors.Is(err, ErrUnitRefused) {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := ReadUnit(dir + "/absent"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("absent: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ReadUnit blocked")
	}
}

func TestReadUnitRefusesASymlinkedUnit(t *testing.T) {
	// The link's target is a valid unit: what is refused is reading
	// through a link, whose target is not the file the manager was shown.
	dir := t.TempDir()
	text, err := SystemdUnit(serviceSpecs[0].spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/elsewhere", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"skillwire.service": "elsewhere", "dangling.service": "nowhere"} {
		t.Run(name, func(t *testing.T) {
			if err := os.Symlink(target, dir+"/"+name); err != nil {
				t.Fatal(err)
			}
			b, err := ReadUnit(dir + "/" + name)
			if !errors.Is(err, ErrUnitRefused) || b != nil {
				t.Fatalf("read %d bytes, error %v; want ErrUnitRefused", len(b), err)
			}
			if !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("error %q does not say it is a link", err)
			}
		})
	}
}

func TestWrittenBySkillwire(t *testing.T) {
	for _, render := range []func(ServiceSpec) (string, error){SystemdUnit, LaunchdPlist} {
		text, err := render(serviceSpecs[0].spec)
		if err != nil {
			t.Fatal(err)
		}
		if !WrittenBySkillwire([]byte(text)) {
			t.Errorf("no marker in\n%s", text)
		}
	}
	if WrittenBySkillwire([]byte("[Unit]\nDescription=mine\n")) {
		t.Error("a hand-written unit counts as skillwire's")
	}
}

// Any executable path and value either is refused or survives both formats
// exactly, as printable ASCII without a template action.
func FuzzServiceDefinitions(f *testing.F) {
	f.Add(hostileSpec.Executable, hostileSpec.Env["CLAUDE_CONFIG_DIR"], hostileSpec.Home)
	f.Add("/usr/bin/skillwire", "/home/u/.claude", "/home/u")
	f.Add("/a{", "{{", "/}}&#123;")
	f.Fuzz(func(t *testing.T, exe, value, home string) {
		spec := ServiceSpec{Executable: exe, Home: "/" + home, Env: map[string]string{"CLAUDE_CONFIG_DIR": value}}
		unit, err := SystemdUnit(spec)
		if err != nil {
			if !errors.Is(err, ErrServiceSpec) {
				t.Fatal(err)
			}
			return
		}
		checkPrintable(t, "systemd", unit)
		checkSystemdRoundTrip(t, spec)
		plist, err := LaunchdPlist(spec)
		if err != nil {
			t.Fatal(err)
		}
		checkPrintable(t, "launchd", plist)
		checkLaunchdRoundTrip(t, spec)
	})
}
