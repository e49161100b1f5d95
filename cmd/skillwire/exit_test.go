package main

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

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
