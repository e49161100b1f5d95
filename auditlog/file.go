package auditlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// Errors of Read, Verify and Append. Each message says what to do.
var (
	ErrUntrusted = errors.New("the audit log is not trusted")
	ErrBusy      = errors.New("the audit log is busy (locked by another process)")
	ErrTooLarge  = errors.New("the audit log is larger than 64 MiB; skillwire reads no more (rotate it: move it aside and start a new one)")
)

// logFile is an open, trusted, locked log.
type logFile struct {
	fd int
	st unix.Stat_t
}

// Every open has O_NOFOLLOW: a link planted at the log's path is refused.
// It is never followed to a file the attacker chose. O_NONBLOCK keeps a
// FIFO planted there from blocking; fstat then refuses it.
const openFlags = unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY

// openLog opens path with mode, plus openFlags. It proves the descriptor is
// a regular file only this user can write. It locks it within timeout; how
// is LOCK_SH or LOCK_EX.
func openLog(path string, mode int, timeout time.Duration, how int) (*logFile, error) {
	shown := anomaly.QuoteBytes([]byte(path))
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, mode|openFlags, 0o600)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, fmt.Errorf("%s: %w", shown, fs.ErrNotExist)
		case errors.Is(err, unix.ELOOP):
			return nil, fmt.Errorf("%w: %s is a symbolic link; remove it and run again", ErrUntrusted, shown)
		case errors.Is(err, unix.EISDIR), errors.Is(err, unix.ENXIO):
			return nil, fmt.Errorf("%w: %s is not a regular file", ErrUntrusted, shown)
		}
		return nil, fmt.Errorf("opening the audit log %s: %w", shown, err)
	}
	f := &logFile{fd: fd}
	if err := unix.Fstat(fd, &f.st); err != nil {
		f.close()
		return nil, fmt.Errorf("opening the audit log %s: %w", shown, err)
	}
	if err := trusted(&f.st, shown); err != nil {
		f.close()
		return nil, err
	}
	if err := lock(fd, how, timeout); err != nil {
		f.close()
		return nil, fmt.Errorf("%w: waited %s for %s; try again, or stop the other process", err, timeout, shown)
	}
	return f, nil
}

// trusted refuses a log that someone else could have written. The rules are
// the store's. They apply to the opened descriptor, so nothing is swapped
// in between check and use.
func trusted(st *unix.Stat_t, shown string) error {
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%w: %s is not a regular file", ErrUntrusted, shown)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: %s is owned by uid %d, not by you", ErrUntrusted, shown, st.Uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by group or others; chmod go-w it after checking it", ErrUntrusted, shown)
	}
	return nil
}

// lock takes an advisory lock, polling so the wait is bounded.
func lock(fd, how int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case err == unix.EINTR:
			continue
		case err != unix.EWOULDBLOCK:
			return err
		case time.Now().After(deadline):
			return ErrBusy
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// close releases the lock with the descriptor.
func (f *logFile) close() { unix.Close(f.fd) }

// reader reads the log, failing with ErrTooLarge past MaxLog bytes.
func (f *logFile) reader() io.Reader { return &boundedReader{r: fdReader(f.fd), left: MaxLog} }

type boundedReader struct {
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left == 0 {
		var probe [1]byte
		n, err := b.r.Read(probe[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	n, err := b.r.Read(p[:min(int64(len(p)), b.left)])
	b.left -= int64(n)
	return n, err
}

type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func readErr(path string, err error) error {
	return fmt.Errorf("reading the audit log %s: %w", anomaly.QuoteBytes([]byte(path)), err)
}
