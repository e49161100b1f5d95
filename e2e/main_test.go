//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	fmt.Printf("e2e: Claude Code %s at %s\n", strings.TrimSpace(version), bin)
	return m.Run()
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
