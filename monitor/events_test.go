//go:build linux

package monitor

import (
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
)

func TestChangeEventsCarryTheirReconciledChangesWhenStored(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") })
	h.waitCached("a")
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "2")
	// Never delivered to a session, a is measured against nothing, and no
	// audit log announced it.
	h.waitFor("an event for a with its changes", func(tx *baseline.Tx) bool {
		evs, _ := tx.Events().List()
		for _, e := range evs {
			for _, c := range e.Changes {
				if string(e.Name) == "a" && c.Path == "SKILL.md" && c.Change == "added" && c.Class == "unexpected" {
					return true
				}
			}
		}
		return false
	})
}
