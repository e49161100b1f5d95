package kardianos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/kardianos/service"
	"github.com/skillwire/skillwire/monitor"
)

// hostileSpec holds what the renderer escapes: specifiers, quotes,
// backslashes, $, a template action and non-ASCII.
var hostileSpec = monitor.ServiceSpec{
	Executable: "/opt/my tools/50% {{.Path}} $HOME caf\u00e9/skillwire",
	Home:       "/Users/j\u00f6rg & <co>",
	Env: map[string]string{
		"CLAUDE_CONFIG_DIR":   `/home/u/"quoted" back\slash %h $HOME {{range .}}`,
		"SKILLWIRE_STATE_DIR": "/home/u/\u202eetats\u202c/\U0001F600",
	},
}

func TestKardianosConfigSaysUserServiceAndCarriesTheText(t *testing.T) {
	for _, tc := range []struct {
		goos, name, textKey string
		extra               service.KeyValue
	}{
		{"linux", monitor.ServiceName, "SystemdScript", nil},
		{"darwin", monitor.LaunchdLabel, "LaunchdConfig", service.KeyValue{"RunAtLoad": true, "KeepAlive": true}},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			c := config(tc.goos, "TEXT")
			if c.Name != tc.name {
				t.Errorf("Name %q, want %q", c.Name, tc.name)
			}
			want := service.KeyValue{"UserService": true, tc.textKey: "TEXT"}
			for k, v := range tc.extra {
				want[k] = v
			}
			if fmt.Sprint(c.Option) != fmt.Sprint(want) {
				t.Errorf("Option %v, want %v", c.Option, want)
			}
		})
	}
}

// fakeSystemctl puts a systemctl on PATH that records its arguments in
// dir/calls, prints dir/<first argument> when it exists, and exits 1 when
// dir/fail-<first argument> exists: kardianos runs it, nothing is installed.
func fakeSystemctl(t *testing.T) string {
	dir := t.TempDir()
	script := `#!/bin/sh
d=$(dirname "$0")
echo "$@" >> "$d/calls"
[ -f "$d/$1" ] && cat "$d/$1"
[ -f "$d/fail-$1" ] && exit 1
exit 0
`
	if err := os.WriteFile(dir+"/systemctl", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	return dir
}

func readCalls(t *testing.T, dir string) string {
	b, err := os.ReadFile(dir + "/calls")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	os.Remove(dir + "/calls")
	return string(b)
}

// The production manager, kardianos on systemd, run against a systemctl
// that only records: it writes exactly the text shown, where Unit says,
// and enables the unit for the user manager.
func TestKardianosSystemdWritesTheTextShownAndEnablesIt(t *testing.T) {
	var sys service.System
	for _, s := range service.AvailableSystems() {
		if s.String() == "linux-systemd" {
			sys = s
		}
	}
	if sys == nil {
		t.Fatal("kardianos has no linux-systemd system")
	}
	// A system service would be written to /etc/systemd/system, outside
	// the test's home: never get that far.
	if config("linux", "").Option["UserService"] != true {
		t.Fatal("the kardianos configuration is not a user service")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	bin := fakeSystemctl(t)
	m := newManager(sys, "linux", home)
	text, err := monitor.SystemdUnit(hostileSpec)
	if err != nil {
		t.Fatal(err)
	}

	if st, err := m.Status(); err != nil || st != monitor.ServiceNotInstalled {
		t.Fatalf("before install: %v, %v", st, err)
	}
	if calls := readCalls(t, bin); calls != "" {
		t.Errorf("status of a missing unit asked systemctl:\n%s", calls)
	}
	if err := m.Install(text); err != nil {
		t.Fatal(err)
	}
	got, err := monitor.ReadUnit(m.Unit())
	if err != nil || string(got) != text {
		t.Fatalf("the unit file holds\n%s\nerr %v; want\n%s", got, err, text)
	}
	if calls := readCalls(t, bin); calls != "enable --user skillwire.service\ndaemon-reload --user\n" {
		t.Errorf("install ran:\n%s", calls)
	}
	if err := m.Install(text); !errors.Is(err, monitor.ErrUnitExists) {
		t.Errorf("a second install: %v", err)
	}

	write := func(name, content string) {
		if err := os.WriteFile(bin+"/"+name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("is-active", "active\n")
	if st, err := m.Status(); err != nil || st != monitor.ServiceRunning {
		t.Errorf("active: %v, %v", st, err)
	}
	write("is-active", "inactive\n")
	write("list-unit-files", "skillwire.service enabled enabled\n")
	if st, err := m.Status(); err != nil || st != monitor.ServiceStopped {
		t.Errorf("inactive: %v, %v", st, err)
	}
	readCalls(t, bin)
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if calls := readCalls(t, bin); calls != "start --user skillwire.service\nstop --user skillwire.service\n" {
		t.Errorf("start, stop ran:\n%s", calls)
	}
	write("fail-start", "")
	if err := m.Start(); err == nil || !strings.Contains(err.Error(), "systemctl --user start skillwire.service") {
		t.Errorf("a failed start: %v", err)
	}
	readCalls(t, bin)

	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(m.Unit()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	if calls := readCalls(t, bin); calls != "disable --user skillwire.service\ndaemon-reload --user\n" {
		t.Errorf("uninstall ran:\n%s", calls)
	}
}
