package monitor

import (
	"path/filepath"
	"testing"

	"github.com/skillwire/skillwire/baseline"
	"golang.org/x/sys/unix"
)

// The session start stamps the copies it serves from the daemon's cache
// with the identities the daemon's walk kept (served.StampWalked). They are
// cached after a rescan and after a candidate's own walk, and each is what
// a stat of its entry gives.
func TestTheDaemonCachesEachEntrysIdentity(t *testing.T) {
	h := startDaemon(t, func(cfg string) {
		write(t, filepath.Join(cfg, "skills/a/SKILL.md"), "1")
		write(t, filepath.Join(cfg, "skills/a/ref/x.md"), "x")
	})
	stated := func(tx *baseline.Tx) bool {
		r, err := tx.Cache().Root(h.root().Spec())
		if err != nil || r == nil || len(r.Candidates) != 1 {
			return false
		}
		c := r.Candidates[0]
		if len(c.Idents) != len(c.Manifest.Entries) || c.Digest != h.walkedDigest("a") {
			return false
		}
		for i, e := range c.Manifest.Entries {
			var st unix.Stat_t
			p := filepath.Join(h.root().Path, "a", string(e.Path))
			id := c.Idents[i]
			if unix.Lstat(p, &st) != nil || !id.Known() || id.Ino != st.Ino || id.Size != st.Size ||
				id.Ctime != [2]int64{st.Ctim.Sec, st.Ctim.Nsec} {
				return false
			}
		}
		return true
	}
	h.waitFor("the rescan's identities of a", stated)
	write(t, filepath.Join(h.root().Path, "a/ref/x.md"), "edited")
	h.waitCached("a")
	h.waitFor("the edit's walk's identities of a", stated)
}
