package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FileName is the events file in the state directory. Rotated files are
// FileName + "." + a sequence number that only grows. So a rotated file
// keeps its name until it is pruned, and a cursor can name it. The active
// file's sequence is the highest rotated one plus one.
const FileName = "events.ndjson"

// lockName is the lock the appenders and the shipper take. It lies outside
// the events.ndjson* glob a collector tails.
const lockName = "events.lock"

var (
	// ErrBusy is returned when the lock was not had within the wait. The
	// event is not written, and the caller says so on stderr.
	ErrBusy = errors.New("events: the events file is busy")
	// ErrRefused is returned for an events file that is a link or not a
	// regular file. It is never written through.
	ErrRefused = errors.New("events: refusing the events file")
)

// Config bounds the file sink.
type Config struct {
	// MaxBytes rotates the file before an append would pass it.
	MaxBytes int64
	// Keep is how many rotated files are kept. Older ones are removed,
	// shipped or not. The shipper reports what it lost.
	Keep int
	// LockWait bounds the wait for the lock. A context deadline that comes
	// sooner bounds it too. A hook must answer: it never waits longer.
	LockWait time.Duration
}

// DefaultConfig is what Append uses. It is 16 MiB a file, 4 rotated files
// kept, 100 ms for the lock.
var DefaultConfig = Config{MaxBytes: 16 << 20, Keep: 4, LockWait: 100 * time.Millisecond}

// Append stamps each event (Stamp) and encodes it (Encode). It appends the
// lines to <dir>/events.ndjson in one write, 0600, under DefaultConfig.
// It never waits past the lock wait or ctx's deadline. On error nothing
// or a torn last line was written. The next append starts a fresh line.
// The caller must go on, and says so on stderr.
func Append(ctx context.Context, dir string, evs ...Event) error {
	return DefaultConfig.Append(ctx, dir, evs...)
}

// Append is Append under c.
func (c Config) Append(ctx context.Context, dir string, evs ...Event) error {
	var buf []byte
	for i := range evs {
		if err := Stamp(&evs[i]); err != nil {
			return err
		}
		line, err := Encode(&evs[i])
		if err != nil {
			return err
		}
		buf = append(buf, line...)
	}
	if len(buf) == 0 {
		return nil
	}
	unlock, err := lock(ctx, dir, c.LockWait, unix.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	f, size, err := openActive(dir)
	if err != nil {
		return err
	}
	if c.MaxBytes > 0 && size > 0 && size+int64(len(buf)) > c.MaxBytes {
		f.Close()
		if err := rotate(dir, c.Keep); err != nil {
			return err
		}
		if f, size, err = openActive(dir); err != nil {
			return err
		}
	}
	defer f.Close()
	if size > 0 {
		// A writer that died mid-line (or a full disk) left a torn line.
		// Start a new one, so the torn one is alone and reported as such.
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
			buf = append([]byte{'\n'}, buf...)
		}
	}
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("events: writing %s: %w", filepath.Join(dir, FileName), err)
	}
	return nil
}

// lock takes the lock file's flock in mode. It polls until the wait or
// ctx's deadline, whichever is sooner.
func lock(ctx context.Context, dir string, wait time.Duration, mode int) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("events: opening the lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	pause := 200 * time.Microsecond
	for {
		err := unix.Flock(int(f.Fd()), mode|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("events: locking: %w", err)
		}
		if time.Now().Add(pause).After(deadline) || ctx.Err() != nil {
			f.Close()
			return nil, ErrBusy
		}
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Millisecond)
	}
}

// openActive opens the active file for appending. It refuses a link or a
// file that is not regular.
func openActive(dir string) (*os.File, int64, error) {
	name := filepath.Join(dir, FileName)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, 0, fmt.Errorf("%w: %s is a symbolic link", ErrRefused, name)
		}
		return nil, 0, fmt.Errorf("events: opening %s: %w", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("events: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", ErrRefused, name)
	}
	return f, fi.Size(), nil
}

// rotate renames the active file to the next sequence number. It removes
// the rotated files past keep. The caller holds the lock.
func rotate(dir string, keep int) error {
	seqs, err := rotated(dir)
	if err != nil {
		return err
	}
	next := uint64(1)
	if len(seqs) > 0 {
		next = seqs[len(seqs)-1] + 1
	}
	if err := os.Rename(filepath.Join(dir, FileName), rotatedName(dir, next)); err != nil {
		return fmt.Errorf("events: rotating: %w", err)
	}
	seqs = append(seqs, next)
	for len(seqs) > max(keep, 1) {
		if err := os.Remove(rotatedName(dir, seqs[0])); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("events: pruning: %w", err)
		}
		seqs = seqs[1:]
	}
	return nil
}

// rotated lists the sequence numbers of the rotated files, ascending.
func rotated(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	var seqs []uint64
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), FileName+".")
		if !ok || rest == "" || rest[0] == '0' {
			continue
		}
		n, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			continue
		}
		seqs = append(seqs, n)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs, nil
}

func rotatedName(dir string, seq uint64) string {
	return filepath.Join(dir, FileName+"."+strconv.FormatUint(seq, 10))
}
