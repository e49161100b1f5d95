package main

import (
	"errors"
	"io/fs"

	"github.com/skillwire/skillwire/auditlog"
	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/baseline/legacy"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/claude/settings"
	"github.com/skillwire/skillwire/lockfile"
	"github.com/skillwire/skillwire/monitor"
	"github.com/skillwire/skillwire/snapshot/content"
	"github.com/skillwire/skillwire/snapshot/history"
	"github.com/skillwire/skillwire/snapshot/restore"
	"github.com/skillwire/skillwire/walker"
)

// exitKinds is the one mapping from the libraries' error kinds to exit
// codes (DESIGN.md §7). errors.Is matches them; the first match wins.
var exitKinds = []struct {
	err  error
	code int
}{
	// Internal or I/O error. Writing failed on the system's side, or a
	// folder's backups use every name (README: exit 1).
	{settings.ErrTooManyBackups, exitInternal},
	{settings.ErrWrite, exitInternal},
	// Usage error or refused input.
	{claude.ErrNoConfigDir, exitUsage},
	{walker.ErrRefused, exitUsage},
	{baseline.ErrBadVerdict, exitUsage},
	{baseline.ErrNoExpectDigest, exitUsage},
	{legacy.ErrLegacy, exitUsage},
	{baseline.ErrImported, exitUsage},
	{monitor.ErrRunning, exitUsage},
	{monitor.ErrServiceSpec, exitUsage},
	{monitor.ErrUnitRefused, exitUsage},
	{history.ErrNoVersion, exitUsage},
	{history.ErrAmbiguous, exitUsage},
	{restore.ErrUnsupported, exitUsage},
	// A finding: the tree is not the reviewed one, or not safe to vouch for.
	{baseline.ErrPartial, exitFinding},
	{baseline.ErrDigestMismatch, exitFinding},
	{baseline.ErrAnomalous, exitFinding},
	{restore.ErrChanged, exitFinding},
	{restore.ErrNotRestorable, exitFinding},
	{restore.ErrIncomplete, exitFinding},
	{restore.ErrSymlink, exitFinding},
	{restore.ErrUnfit, exitFinding},
	{restore.ErrScript, exitFinding},
	{restore.ErrManaged, exitFinding},
	// The audit could not be performed: what it reads is absent or unusable.
	{baseline.ErrAbsent, exitNoAudit},
	{baseline.ErrCorrupt, exitNoAudit},
	{baseline.ErrStale, exitNoAudit},
	{baseline.ErrUntrusted, exitNoAudit},
	{baseline.ErrBusy, exitNoAudit},
	{content.ErrUntrusted, exitNoAudit},
	{content.ErrCorrupt, exitNoAudit},
	{restore.ErrCorrupt, exitNoAudit},
	{restore.ErrPreview, exitNoAudit},
	{auditlog.ErrUntrusted, exitNoAudit},
	{auditlog.ErrBusy, exitNoAudit},
	{auditlog.ErrTooLarge, exitNoAudit},
	{lockfile.ErrVersion, exitNoAudit},
	{lockfile.ErrMalformed, exitNoAudit},
	{lockfile.ErrNotRegular, exitNoAudit},
	{lockfile.ErrTooLarge, exitNoAudit},
	{fs.ErrNotExist, exitNoAudit},
}

// exitCode is the exit code of err's kind. An error of no kind listed
// gets fallback: the command knows what its other failures mean.
func exitCode(err error, fallback int) int {
	for _, k := range exitKinds {
		if errors.Is(err, k.err) {
			return k.code
		}
	}
	return fallback
}

// failure is err as the command's failure: its kind's exit code, else
// fallback, and its text. The text is defanged: a path may hold any byte.
func failure(err error, fallback int) error {
	return fail(exitCode(err, fallback), "%s", defang(err.Error()))
}

// storeErr is a failure to use the store. It could not audit, unless its
// kind says otherwise (a refused verdict). An absent store says how to
// create one.
func storeErr(err error) error {
	if errors.Is(err, baseline.ErrAbsent) {
		return fail(exitCode(err, exitNoAudit), "%v; run 'skillwire scan --update' to create the store", err)
	}
	return failure(err, exitNoAudit)
}
