package monitor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHelper makes this test binary a skillwire-service serving the fake
// manager in the folder it names, or misbehaving as a mode says.
const fakeHelper = "MONITOR_TEST_SERVICE_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(fakeHelper); v != "" {
		os.Exit(fakeServiceHelper(v))
	}
	os.Exit(m.Run())
}

func fakeServiceHelper(v string) int {
	switch v {
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: the helper broke")
		return 2
	case "mute":
		io.Copy(io.Discard, os.Stdin)
		fmt.Println(`{"status":2}`)
		return 1
	case "unsupported":
		return ServeService(os.Stdin, os.Stdout, os.Stderr, func() (ServiceManager, error) {
			return nil, fmt.Errorf("%w: this system uses linux-sysv", ErrServiceUnsupported)
		})
	}
	// The helper marks that it ran: a refused helper never does.
	os.WriteFile(filepath.Join(v, "ran"), nil, 0o600)
	return ServeService(os.Stdin, os.Stdout, os.Stderr, func() (ServiceManager, error) {
		return NewFakeServiceManager(v), nil
	})
}

// installHelper puts a copy of this test binary as skillwire-service in
// a new folder, and names the skillwire binary that would sit beside it.
func installHelper(t *testing.T, mode string) (exe, helper string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	helper = filepath.Join(dir, ServiceHelperName)
	if err := os.WriteFile(helper, b, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeHelper, mode)
	return filepath.Join(dir, "skillwire"), helper
}

// TestServiceHelperCarriesEveryOperation: each call reaches the helper as
// one request, its answer and its error kinds come back.
func TestServiceHelperCarriesEveryOperation(t *testing.T) {
	svc := t.TempDir()
	exe, _ := installHelper(t, svc)
	m, err := NewServiceManager(exe)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(svc, "skillwire.service"); m.Unit() != want {
		t.Errorf("unit %q, want %q", m.Unit(), want)
	}
	status := func(want ServiceStatus) {
		t.Helper()
		if st, err := m.Status(); err != nil || st != want {
			t.Errorf("status %v, %v; want %v", st, err, want)
		}
	}
	status(ServiceNotInstalled)
	text := "[Unit]\nDescription=caf\u00e9 \"x\" \\ %h\n"
	if err := m.Install(text); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadUnit(m.Unit()); err != nil || string(b) != text {
		t.Errorf("the unit holds %q, %v; want %q", b, err, text)
	}
	if err := m.Install(text); !errors.Is(err, ErrUnitExists) {
		t.Errorf("a second install: %v", err)
	}
	status(ServiceStopped)
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	status(ServiceRunning)
	if err := os.WriteFile(filepath.Join(svc, "fail-stop"), []byte("Failed to connect to bus\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(); err == nil || err.Error() != "stop: Failed to connect to bus" {
		t.Errorf("a failed stop: %v", err)
	}
	os.Remove(filepath.Join(svc, "fail-stop"))
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	status(ServiceNotInstalled)
	calls, err := os.ReadFile(filepath.Join(svc, "calls"))
	if err != nil || string(calls) != "install\nstart\nstop\nuninstall\n" {
		t.Errorf("calls %q, %v", calls, err)
	}
}

// TestServiceHelperIsRunOnlyWhenProven: a missing helper, a link, one
// writable by others, or another user's is refused with a clear error,
// and never run.
func TestServiceHelperIsRunOnlyWhenProven(t *testing.T) {
	svc := t.TempDir()
	exe, helper := installHelper(t, svc)
	refused := func(what, says string) {
		t.Helper()
		m, err := NewServiceManager(exe)
		if m != nil || !errors.Is(err, ErrServiceHelper) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, %v; want ErrServiceHelper saying %q", what, m, err, says)
		}
		if _, err := os.Stat(filepath.Join(svc, "ran")); err == nil {
			t.Errorf("%s: the helper ran", what)
		}
	}
	if err := os.Chmod(helper, 0o775); err != nil {
		t.Fatal(err)
	}
	refused("group-writable", "writable by group or others")
	if err := os.Chmod(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(helper, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		refused("another user's", "belongs to uid 4242")
		if err := os.Chown(helper, 0, 0); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("not root: another user's helper cannot be made here")
	}
	real := helper + ".real"
	if err := os.Rename(helper, real); err != nil {
		t.Fatal(err)
	}
	refused("missing", ServiceHelperName+" is not installed beside "+exe)
	if err := os.Symlink(real, helper); err != nil {
		t.Fatal(err)
	}
	refused("a link", "is not a regular file")
	os.Remove(helper)
	if err := os.Rename(real, helper); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServiceManager(exe); err != nil {
		t.Fatalf("the proven helper: %v", err)
	}
}

// TestServiceHelperFailureIsNeverASuccess: a helper that crashes, or fails
// without a reason, is an ErrServiceHelper error; an unsupported system
// keeps its kind across the process.
func TestServiceHelperFailureIsNeverASuccess(t *testing.T) {
	exe, _ := installHelper(t, "crash")
	if _, err := NewServiceManager(exe); !errors.Is(err, ErrServiceHelper) || !strings.Contains(err.Error(), "the helper broke") {
		t.Errorf("crash: %v", err)
	}
	t.Setenv(fakeHelper, "mute")
	if _, err := NewServiceManager(exe); !errors.Is(err, ErrServiceHelper) || !strings.Contains(err.Error(), "said no reason") {
		t.Errorf("mute: %v", err)
	}
	m := &helperManager{bin: filepath.Join(filepath.Dir(exe), ServiceHelperName)}
	if st, err := m.Status(); !errors.Is(err, ErrServiceHelper) {
		t.Errorf("mute status: %v, %v", st, err)
	}
	t.Setenv(fakeHelper, "unsupported")
	_, err := NewServiceManager(exe)
	if !errors.Is(err, ErrServiceUnsupported) || errors.Is(err, ErrServiceHelper) || !strings.Contains(err.Error(), "linux-sysv") {
		t.Errorf("unsupported: %v", err)
	}
}

// TestServeServiceRefusesWhatItDoesNotKnow: an unreadable request is exit
// 2; an unknown operation, or a definition given to another one, fails.
func TestServeServiceRefusesWhatItDoesNotKnow(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]int{
		`not json`:                       2,
		`{"op":"start","extra":true}`:    2,
		`{"op":"restart"}`:               1,
		`{"op":"start","text":"[Unit]"}`: 1,
		`{"op":"probe"}`:                 0,
	} {
		var out, errw strings.Builder
		code := ServeService(strings.NewReader(in), &out, &errw, func() (ServiceManager, error) {
			return NewFakeServiceManager(dir), nil
		})
		if code != want {
			t.Errorf("%s: exit %d, want %d (stdout %q, stderr %q)", in, code, want, out.String(), errw.String())
		}
		if want == 1 && !strings.Contains(out.String(), `"error"`) {
			t.Errorf("%s: the reply says no error: %q", in, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "calls")); err == nil {
		t.Error("a refused request reached the manager")
	}
}
