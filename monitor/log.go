package monitor

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// MaxLogSize caps daemon.log; the previous log is kept as daemon.log.1.
const MaxLogSize = 1 << 20

// cappedLog appends to a log file and rotates it at MaxLogSize. A daemon
// that runs for months never fills the disk.
type cappedLog struct {
	mu   sync.Mutex
	path string
	f    *os.File
	size int64
}

// OpenLog opens (creating, 0600, never through a symlink) the log at path.
func OpenLog(path string) (*cappedLog, error) {
	l := &cappedLog{path: path}
	return l, l.open()
}

func (l *cappedLog) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, fi.Size()
	return nil
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size+int64(len(p)) > MaxLogSize {
		l.f.Close()
		os.Rename(l.path, l.path+".1")
		if err := l.open(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// Close closes the log.
func (l *cappedLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}
