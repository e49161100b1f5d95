//go:build linux

package monitor

import (
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"github.com/skillwire/skillwire/snapshot"
)

// kept reports whether the daemon kept a restorable version of name at
// digest d.
func kept(tx *baseline.Tx, root string, name string, d snapshot.Hash) bool {
	vs, err := tx.Versions().Of(tx.ID(root, []byte(name)))
	if err != nil {
		return false
	}
	for _, v := range vs {
		if v.Digest == d && v.How == baseline.HowDaemon && v.Restorable {
			return true
		}
	}
	return false
}

func TestDaemonKeepsTheVersionsItSees(t *testing.T) {
	h := startDaemon(t, func(cfg string) { write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "original") })
	h.waitCached("a")
	first := h.walkedDigest("a")
	h.waitFor("the first observed version kept", func(tx *baseline.Tx) bool { return kept(tx, h.root().Path, "a", first) })

	write(t, filepath.Join(h.cfg, "skills/a/SKILL.md"), "evil")
	h.waitCached("a")
	changed := h.walkedDigest("a")
	h.waitFor("the changed version kept", func(tx *baseline.Tx) bool { return kept(tx, h.root().Path, "a", changed) })

	write(t, filepath.Join(h.cfg, "skills/new/SKILL.md"), "n")
	h.waitCached("new")
	h.waitFor("the new skill kept", func(tx *baseline.Tx) bool { return kept(tx, h.root().Path, "new", h.walkedDigest("new")) })
}
