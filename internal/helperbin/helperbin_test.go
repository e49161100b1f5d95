package helperbin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHelper makes this test binary a helper when it names a mode.
const fakeHelper = "HELPERBIN_TEST_FAKE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeHelper); mode != "" {
		var req map[string]string
		if err := Read(os.Stdin, &req); err != nil {
			fmt.Fprintln(os.Stderr, "unreadable:", err)
			os.Exit(2)
		}
		switch mode {
		case "silent":
			fmt.Fprintln(os.Stderr, "the helper broke")
			os.Exit(1)
		case "refuses":
			fmt.Printf(`{"said":%q}`, "no: "+req["ask"])
			os.Exit(1)
		case "tail":
			fmt.Printf(`{"said":%q}`, ownTail())
			os.Exit(0)
		}
		fmt.Printf(`{"said":%q}`, "yes: "+req["ask"])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func call(t *testing.T, mode string) (string, error, error) {
	t.Helper()
	t.Setenv(fakeHelper, mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Said string }
	exit, err := Call(context.Background(), exe, map[string]string{"ask": "ship"}, &rep)
	return rep.Said, exit, err
}

// TestCallCarriesTheRequestAndTheReply: the request reaches the helper on
// stdin, its reply and its exit status come back; no reply is an error
// that carries what the helper said on stderr.
func TestCallCarriesTheRequestAndTheReply(t *testing.T) {
	if said, exit, err := call(t, "ok"); said != "yes: ship" || exit != nil || err != nil {
		t.Errorf("ok: %q, %v, %v", said, exit, err)
	}
	if said, exit, err := call(t, "refuses"); said != "no: ship" || exit == nil || err != nil {
		t.Errorf("refuses: %q, %v, %v", said, exit, err)
	}
	_, _, err := call(t, "silent")
	if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "the helper broke") {
		t.Errorf("silent: %v", err)
	}
}

// TestReadRefusesAnUnknownField: a request from another version is not
// half understood.
func TestReadRefusesAnUnknownField(t *testing.T) {
	var req struct{ Op string }
	if err := Read(strings.NewReader(`{"op":"x","extra":1}`), &req); err == nil {
		t.Error("an unknown field was accepted")
	}
	if err := Read(strings.NewReader(`{"op":"x"}`), &req); err != nil || req.Op != "x" {
		t.Errorf("%v, %q", err, req.Op)
	}
}

// TestBesideRunsOnlyAProvenFile: missing, a link, writable by others, or
// another user's, the helper is not run.
func TestBesideRunsOnlyAProvenFile(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "skillwire")
	bin := filepath.Join(dir, "skillwire-x")
	if _, err := Beside(exe, "skillwire-x"); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "beside "+exe) {
		t.Errorf("missing: %v", err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, bin); err != nil {
		t.Fatal(err)
	}
	if _, err := Beside(exe, "skillwire-x"); !errors.Is(err, ErrUnproven) {
		t.Errorf("a link: %v", err)
	}
	os.Remove(bin)
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o775, 0o757} {
		if err := os.Chmod(bin, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := Beside(exe, "skillwire-x"); !errors.Is(err, ErrUnproven) || !strings.Contains(err.Error(), "writable") {
			t.Errorf("mode %v: %v", mode, err)
		}
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Beside(exe, "skillwire-x"); err != nil || got != bin {
		t.Errorf("got %q, %v, want %q", got, err, bin)
	}
	// Another user's helper: only root can make one here.
	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chown(bin, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if _, err := Beside(exe, "skillwire-x"); !errors.Is(err, ErrUnproven) || !strings.Contains(err.Error(), "uid 4242") {
		t.Errorf("another user's: %v", err)
	}
}
