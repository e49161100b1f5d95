package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/skillwire/skillwire/auditlog"
)

// A log that cannot be used (untrusted, busy, too large) means the audit
// could not be performed (exit 4), not an internal error.
func TestAnUnusableAuditLogMeansNoAudit(t *testing.T) {
	for _, e := range []error{auditlog.ErrUntrusted, auditlog.ErrBusy, auditlog.ErrTooLarge} {
		var x *exitError
		if err := auditErr(fmt.Errorf("reading the audit log: %w", e)); !errors.As(err, &x) || x.code != exitNoAudit {
			t.Errorf("%v: got %v, want exit %d", e, err, exitNoAudit)
		}
	}
}
