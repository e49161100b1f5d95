package auditlog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"time"

	"golang.org/x/sys/unix"
)

// Options configure Read, Verify and Append.
type Options struct {
	// Now bounds timestamps (and stamps appended entries); zero means the
	// current time.
	Now time.Time
	// LockTimeout bounds the wait for another appender; zero means
	// DefaultLockTimeout.
	LockTimeout time.Duration
}

// DefaultLockTimeout is how long a reader or appender waits for the lock.
const DefaultLockTimeout = 5 * time.Second

func (o *Options) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

func (o *Options) timeout() time.Duration {
	if o.LockTimeout <= 0 {
		return DefaultLockTimeout
	}
	return o.LockTimeout
}

// Skipped is a line that failed validation.
type Skipped struct {
	Line int
	Err  error
}

// skips lists skipped lines, the first MaxSkipped of them; Omitted counts
// the rest.
type skips struct {
	Skipped []Skipped
	Omitted int
}

func (s *skips) skip(line int, err error) {
	if len(s.Skipped) < MaxSkipped {
		s.Skipped = append(s.Skipped, Skipped{line, err})
	} else {
		s.Omitted++
	}
}

// SkippedLines counts every skipped line, listed or not.
func (s *skips) SkippedLines() int { return len(s.Skipped) + s.Omitted }

// Log is what a log holds.
type Log struct {
	Entries []Entry
	skips
	// Lines counts every line, skipped ones included.
	Lines int
	// Unterminated: the last line has no newline. A write was cut short, or
	// a tool ends its lines otherwise.
	Unterminated bool
}

// Read reads and validates every line of the log at path. A missing log is
// an error matching fs.ErrNotExist. A symlinked or untrusted one is
// ErrUntrusted and is not read. One over MaxLog is ErrTooLarge.
func Read(path string, o Options) (*Log, error) {
	f, err := openForReading(path, o)
	if err != nil {
		return nil, err
	}
	defer f.close()
	now := o.now()
	// Sized for lines of a typical length. Growing a slice of 100,000
	// entries one doubling at a time costs more than reading them.
	l := &Log{Entries: make([]Entry, 0, min(f.st.Size/128, 1<<20))}
	term, err := eachLine(f.reader(), false, func(ln *line) {
		l.Lines = ln.num
		if ln.b == nil {
			l.skip(ln.num, ErrTooLong)
			return
		}
		e, err := ParseLine(bytes.Clone(ln.b), now)
		if err != nil {
			l.skip(ln.num, err)
			return
		}
		e.Line = ln.num
		l.Entries = append(l.Entries, e)
	})
	if err != nil {
		return nil, readErr(path, err)
	}
	l.Unterminated = !term
	return l, nil
}

// openForReading opens the log at path for Read and Verify. It is trusted,
// under a shared lock, and no larger than MaxLog.
func openForReading(path string, o Options) (*logFile, error) {
	f, err := openLog(path, unix.O_RDONLY, o.timeout(), unix.LOCK_SH)
	if err != nil {
		return nil, err
	}
	if f.st.Size > MaxLog {
		f.close()
		return nil, readErr(path, ErrTooLarge)
	}
	return f, nil
}

// line is one line as eachLine yields it.
type line struct {
	num int
	// b is the line without its newline; nil when it is over MaxLine.
	// It is valid only during the callback.
	b   []byte
	sum [32]byte // SHA-256 of all its bytes, when asked for
}

// eachLine calls fn for every line of r, holding at most MaxLine bytes of
// one line. A longer line is consumed (and hashed) but not kept. It reports
// whether the input ended with a newline (true for empty input).
func eachLine(r io.Reader, hashLines bool, fn func(*line)) (terminated bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var h hash.Hash
	if hashLines {
		h = sha256.New()
	}
	var buf []byte
	ln := line{}
	over, started, lastNL := false, false, true
	for {
		chunk, err := br.ReadSlice('\n')
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof && !errors.Is(err, bufio.ErrBufferFull) {
			return false, err
		}
		end := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		body := chunk
		if end {
			body = chunk[:len(chunk)-1]
		}
		if len(chunk) > 0 {
			started, lastNL = true, end
		}
		if h != nil {
			h.Write(body)
		}
		if !over {
			if len(buf)+len(body) > MaxLine {
				over, buf = true, buf[:0]
			} else {
				buf = append(buf, body...)
			}
		}
		if end || eof && started {
			ln.num++
			ln.b = buf
			if over {
				ln.b = nil
			}
			if h != nil {
				h.Sum(ln.sum[:0])
				h.Reset()
			}
			fn(&ln)
			buf, over, started = buf[:0], false, false
		}
		if eof {
			return lastNL, nil
		}
	}
}
