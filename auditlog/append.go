package auditlog

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
)

// Append adds e as one line at the end of the log at path. It creates the
// log (0600) when absent. e.Timestamp zero means now. Append sets Prev and
// Raw, and returns the entry as written.
//
// Appends are serialised by an exclusive lock. Under it, the last line is
// read for Prev. The new line goes out in a single write() with O_APPEND,
// then fsync. The descriptor is opened read-write, not write-only. So the
// line hashed for Prev is read through the descriptor locked and appended
// to. A last line cut short is ended first, in the same write. So the new
// line never continues it.
func Append(path string, e Entry, o Options) (Entry, error) {
	if e.Timestamp.IsZero() {
		e.Timestamp = o.now().UTC()
	}
	f, err := openLog(path, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT, o.timeout(), unix.LOCK_EX)
	if errors.Is(err, fs.ErrNotExist) {
		// Only the file is created: the directory is Claude Code's.
		return e, fmt.Errorf("%w: the directory that holds it does not exist", err)
	}
	if err != nil {
		return e, err
	}
	defer f.close()
	// Another appender may have replaced the file between our open and our
	// lock: a rotation. The line must go to the file at path.
	var now unix.Stat_t
	if err := unix.Lstat(path, &now); err != nil || now.Dev != f.st.Dev || now.Ino != f.st.Ino {
		return e, fmt.Errorf("%w: %s was replaced while it was opened; run again", ErrBusy, anomaly.QuoteBytes([]byte(path)))
	}
	if err := unix.Fstat(f.fd, &f.st); err != nil {
		return e, err
	}
	// Finding the last line reads it whole, twice. So a log Read would
	// refuse is refused here too (TestAppendRefusesALogOverMaxLog).
	if f.st.Size > MaxLog {
		return e, fmt.Errorf("%w: %s", ErrTooLarge, anomaly.QuoteBytes([]byte(path)))
	}
	prev, terminated, err := lastLine(f.fd, f.st.Size)
	if err != nil {
		return e, fmt.Errorf("reading the audit log's last line: %w", err)
	}
	e.Prev = ""
	if f.st.Size > 0 {
		e.Prev = PrevOf(prev)
	}
	b, err := e.encode()
	if err != nil {
		return e, err
	}
	// Never write a line this package would skip when reading it back.
	if _, err := ParseLine(b, e.Timestamp); err != nil {
		return e, fmt.Errorf("refusing to append an invalid line: %w", err)
	}
	e.Raw, e.Line = b, 0
	out := make([]byte, 0, len(b)+2)
	if !terminated {
		out = append(out, '\n')
	}
	out = append(append(out, b...), '\n')
	for {
		n, err := unix.Write(f.fd, out)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return e, fmt.Errorf("appending to the audit log: %w", err)
		}
		if n != len(out) {
			return e, fmt.Errorf("appending to the audit log: short write (%d of %d bytes)", n, len(out))
		}
		break
	}
	if err := unix.Fsync(f.fd); err != nil {
		return e, fmt.Errorf("syncing the audit log: %w", err)
	}
	return e, nil
}

// lastLine hashes the last line of a file of size bytes, without its
// newline. It says whether the file ends with a newline. Memory stays
// bounded whatever the line's length. The line's start is found by reading
// backwards in blocks. Then the line is hashed reading forwards.
func lastLine(fd int, size int64) (sum [32]byte, terminated bool, err error) {
	if size == 0 {
		return sum, true, nil
	}
	buf := make([]byte, 64<<10)
	if _, err := pread(fd, buf[:1], size-1); err != nil {
		return sum, false, err
	}
	terminated = buf[0] == '\n'
	end := size
	if terminated {
		end--
	}
	start := int64(0)
	for pos := end; pos > 0; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := pread(fd, buf[:n], pos); err != nil {
			return sum, false, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = pos + int64(i) + 1
			break
		}
	}
	h := sha256.New()
	for pos := start; pos < end; {
		n := min(int64(len(buf)), end-pos)
		if _, err := pread(fd, buf[:n], pos); err != nil {
			return sum, false, err
		}
		h.Write(buf[:n])
		pos += n
	}
	h.Sum(sum[:0])
	return sum, terminated, nil
}

// pread fills p from offset off.
func pread(fd int, p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pread(fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, io.ErrUnexpectedEOF
		}
		done += n
	}
	return done, nil
}
