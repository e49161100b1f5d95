package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/lockfile"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/snapshot/restore"
)

func TestEveryErrorKindHasItsDesignedExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{baseline.ErrNoExpectDigest, exitUsage},
		{baseline.ErrBadVerdict, exitUsage},
		{monitor.ErrRunning, exitUsage},
		{baseline.ErrImported, exitUsage},
		{baseline.ErrPartial, exitFinding},
		{baseline.ErrDigestMismatch, exitFinding},
		{baseline.ErrAnomalous, exitFinding},
		{baseline.ErrBadName, exitFinding},
		{baseline.ErrAbsent, exitNoAudit},
		{baseline.ErrCorrupt, exitNoAudit},
		{baseline.ErrStale, exitNoAudit},
		{baseline.ErrUntrusted, exitNoAudit},
		{baseline.ErrBusy, exitNoAudit},
		{auditlog.ErrUntrusted, exitNoAudit},
		{auditlog.ErrBusy, exitNoAudit},
		{auditlog.ErrTooLarge, exitNoAudit},
		{lockfile.ErrDigest, exitNoAudit},
		{restore.ErrPreview, exitNoAudit},
		{fs.ErrNotExist, exitNoAudit},
		{baseline.ErrUnobserved, exitInternal},
		{settings.ErrTooManyBackups, exitInternal},
		{&settings.WriteError{Op: "writing the backup", Path: "/p/.claude/settings.json.skillwire-backup", Err: fs.ErrPermission}, exitInternal},
		{&settings.WriteError{Op: "creating", Path: "/p/.claude", Err: fs.ErrNotExist}, exitInternal},
		{errors.New("no kind"), exitInternal},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			wrapped := fmt.Errorf("doing something: %w", tc.err)
			if got := exitCode(wrapped, exitInternal); got != tc.want {
				t.Fatalf("exit %d, want %d", got, tc.want)
			}
		})
	}
}

func TestStoreFailuresOfNoKnownKindCannotAudit(t *testing.T) {
	var ee *exitError
	if err := storeErr(errors.New("read /x\x1b[2J: i/o error")); !errors.As(err, &ee) || ee.code != exitNoAudit || ee.msg != "read /x?[2J: i/o error" {
		t.Fatalf("got %#v", err)
	}
}

// TestServiceHelperFailuresAreExit1: a missing, unproven or broken
// skillwire-service is a failure of this installation (exit 1), even
// when its cause is a missing file; an unsupported system is refused (2).
func TestServiceHelperFailuresAreExit1(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("%w: skillwire-service is not installed beside /x: %w", monitor.ErrServiceHelper, fs.ErrNotExist), exitInternal},
		{fmt.Errorf("%w: /x/skillwire-service belongs to uid 7; it is not run", monitor.ErrServiceHelper), exitInternal},
		{fmt.Errorf("%w: this system uses linux-sysv", monitor.ErrServiceUnsupported), exitUsage},
	} {
		var e *exitError
		if err := managerFailure(tc.err); !errors.As(err, &e) || e.code != tc.want || e.msg == "" {
			t.Errorf("%v: %v, want exit %d with a message", tc.err, err, tc.want)
		}
	}
}

// The root a run builds holds only the command it names (newRootFor).
// What it prints and how it ends are the whole root's: for each command's
// help, a bare --version, help, a flag first, a typo and an unknown flag.
// The table of commands names each as cobra does.
func TestTheRootBuiltForARunAnswersAsTheWholeRoot(t *testing.T) {
	var s streams
	for _, c := range commands {
		if got := c.new(&s).Name(); got != c.name {
			t.Errorf("commands names %q, the command is %q", c.name, got)
		}
	}
	if n := len(newRoot(&s).Commands()); n != len(commands) {
		t.Errorf("the whole root holds %d commands, the table %d", n, len(commands))
	}
	argvs := [][]string{{"--version"}, {"--help"}, {}, {"help", "hook"}, {"scna"}, {"-x"}, {"hook", "--bogus"},
		{"status", "--help"}, {"--version", "--help"}}
	for _, c := range commands {
		argvs = append(argvs, []string{c.name, "--help"})
	}
	execute := func(root *cobra.Command, args []string) string {
		var out, errw strings.Builder
		root.SetOut(&out)
		root.SetErr(&errw)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		return fmt.Sprintf("out %q err %q error %v", out.String(), errw.String(), err)
	}
	for _, args := range argvs {
		var a, b streams
		if got, want := execute(newRootFor(&a, args), args), execute(newRoot(&b), args); got != want {
			t.Errorf("%q: the root built for it answered\n%s\nthe whole root\n%s", args, got, want)
		}
	}
	if n := len(newRootFor(&s, []string{"hook", "pre-tool-use"}).Commands()); n != 1 {
		t.Errorf("a hook's root holds %d commands, want 1", n)
	}
}
