//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "skillwire-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	skillwireBin = filepath.Join(dir, "skillwire")
	build := exec.Command("go", "build", "-o", skillwireBin, "../cmd/skillwire")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building skillwire: %v\n%s", err, out)
		return 1
	}
	bin, version, err := Client()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: the Claude Code client is needed and could not be had:", err)
		return 1
	}
	claudeBin = bin
	if err := straceWorks(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: the coverage oracle runs the client under strace (Debian package strace), which does not work here:", err)
		return 1
	}
	fmt.Printf("e2e: Claude Code %s at %s\n", strings.TrimSpace(version), bin)
	before := machineManaged()
	code := m.Run()
	if gaps := gapsSeen.String(); gaps != "" {
		fmt.Printf("e2e: coverage oracle: known gaps the client read (e2e/noise.go knownGaps):\n%s\n", gaps)
	}
	if after := machineManaged(); after != before {
		fmt.Fprintf(os.Stderr, "e2e: the machine's own %s changed while the suite ran; no test may write it.\nbefore:\n%s\nafter:\n%s\n", clientManagedDir, before, after)
		return 1
	}
	return code
}

// machineManaged lists the machine's /etc/claude-code: each path under it
// with its type, size and modification time, or that it is not there.
// Every managed case reads the world's folder there instead (ClaudeManaged).
func machineManaged() string {
	if _, err := os.Lstat(clientManagedDir); errors.Is(err, fs.ErrNotExist) {
		return clientManagedDir + " is not there\n"
	}
	var b strings.Builder
	_ = filepath.WalkDir(clientManagedDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p, err)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p, err)
			return nil
		}
		fmt.Fprintf(&b, "%s %v %d %s\n", p, info.Mode(), info.Size(), info.ModTime().UTC().Format(time.RFC3339Nano))
		return nil
	})
	return b.String()
}

// bothWays runs f as two parallel subtests. Subtest on has skillwire's hooks
// installed (uninstall false). Subtest off is the control: f uninstalls them
// and shows the opposite outcome (uninstall true).
func bothWays(t *testing.T, on, off string, f func(t *testing.T, uninstall bool)) {
	t.Helper()
	for _, uninstall := range []bool{false, true} {
		name := on
		if uninstall {
			name = off
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, uninstall)
		})
	}
}

// straceWorks traces true as the oracle traces the client. A machine
// without strace, or where ptrace is refused, fails here and not per case.
func straceWorks(dir string) error {
	trace := filepath.Join(dir, "trace-true.txt")
	args := append(straceArgs(trace), "true")
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	f, err := os.Open(trace)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, a := range traceReads(f) {
		if a.Call == "execve" && strings.HasSuffix(a.Path, "/true") {
			return nil
		}
	}
	return errors.New("the trace of true shows no execve of it")
}
