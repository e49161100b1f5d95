package cache

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// DaemonLock is the daemon's role in the state directory: an exclusive flock
// on this file. The one daemon holds it for its life. The kernel releases it
// even on kill -9.
const DaemonLock = "daemon.lock"

// FreshFor is how old a heartbeat may be before the hook stops trusting the
// cache. It is three missed beats at the daemon's default rate.
const FreshFor = 6 * time.Second

// DaemonRunning reports whether a daemon holds the role in dir now. A
// heartbeat alone is not enough. A daemon killed with -9 leaves a fresh one
// behind. Its cache must not be trusted a moment longer.
func DaemonRunning(dir string) bool {
	f, err := os.OpenFile(dir+"/"+DaemonLock, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB), unix.EWOULDBLOCK)
}
