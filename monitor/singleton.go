package monitor

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/skillwire/skillwire/baseline/cache"
	"golang.org/x/sys/unix"
)

// ErrRunning means another daemon holds the role.
var ErrRunning = errors.New("another skillwire daemon is running")

// acquire takes the daemon role (cache.DaemonLock) for the process's life.
// The kernel releases it even on kill -9.
// The file names the holder's pid, for the refusal message only.
func acquire(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := dir + "/" + cache.DaemonLock
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b[:n])))
		if errors.Is(err, unix.EWOULDBLOCK) && perr == nil {
			return nil, fmt.Errorf("%w (pid %d)", ErrRunning, pid)
		}
		return nil, fmt.Errorf("%w: %v", ErrRunning, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
