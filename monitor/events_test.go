//go:build linux

package monitor

import (
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/walker"
)

func TestChangeEventsCarryWhatReconcileAttachedBeforeTheyAreStored(t *testing.T) {
	h := startDaemonWith(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1") }, func(c *Config) {
		c.Reconcile = func(events []baseline.Event, roots []claude.Root, current func(string, []byte) *walker.Candidate) {
			for i := range events {
				// What is attached comes from the candidate as just observed.
				if cur := current(string(events[i].Root), events[i].Name); cur != nil && !cur.Partial() {
					events[i].Changes = []baseline.FileChange{{Path: "SKILL.md", Change: "modified", Class: "unexpected"}}
				}
			}
		}
	})
	h.waitCached("a")
	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "2")
	h.waitFor("an event for a with its changes", func(tx *baseline.Tx) bool {
		evs, _ := tx.Events()
		for _, e := range evs {
			if string(e.Name) == "a" && len(e.Changes) == 1 && e.Changes[0].Class == "unexpected" {
				return true
			}
		}
		return false
	})
}
