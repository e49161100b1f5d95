package cache

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDaemonRunsOnlyWhileItsLockIsHeld(t *testing.T) {
	dir := t.TempDir()
	if DaemonRunning(dir) {
		t.Fatal("running without a lock file")
	}
	f, err := os.OpenFile(filepath.Join(dir, DaemonLock), os.O_RDWR|os.O_CREATE, 0o600)
	must(t, err)
	defer f.Close()
	if DaemonRunning(dir) {
		t.Fatal("running on a lock file nobody holds (a daemon killed with -9 leaves one)")
	}
	must(t, unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB))
	if !DaemonRunning(dir) {
		t.Fatal("not running while the role is held")
	}
}
