package events

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Switch is the environment variable that turns OTLP shipping on: "1",
// "true" or "on". The endpoint and the rest are the standard
// OTEL_EXPORTER_OTLP_* variables, read by the OpenTelemetry exporter.
const Switch = "SKILLWIRE_EVENTS_OTLP"

// Enabled says whether Switch turns shipping on.
func Enabled(getenv func(string) (string, bool)) bool {
	v, _ := getenv(Switch)
	switch v {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// Target is where an administrator sends the events (managed
// configuration). Its fields take the place of the OTEL_EXPORTER_OTLP_*
// variables when set.
type Target struct {
	Endpoint string
	Headers  map[string]string
}

// ShipConfig configures Ship. R is the record an exporter sends. events
// knows no exporter: one that links OpenTelemetry would cost every hook
// its start (issue 34). events/otlp gives the OTLP one.
type ShipConfig[R any] struct {
	Dir string
	// Convert makes the records of lines. It counts those that are not an
	// event (a torn write), sent as their text.
	Convert func(ctx context.Context, lines [][]byte) (recs []R, malformed int)
	// Export delivers one batch, or fails. Ship retries it.
	Export func(ctx context.Context, recs []R) error
	// Batch is how many events go in one export request.
	Batch int
	// Attempts bounds the tries of one batch. Between them Ship waits
	// Backoff, doubling up to MaxBackoff, with jitter.
	Attempts   int
	Backoff    time.Duration
	MaxBackoff time.Duration
	// LockWait bounds the wait for the events lock. Appenders hold it
	// only for a write. Ship holds it only while it opens a file.
	LockWait time.Duration
}

func (c ShipConfig[R]) withDefaults() ShipConfig[R] {
	if c.Batch <= 0 {
		c.Batch = 1024
	}
	if c.Attempts <= 0 {
		c.Attempts = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 250 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 5 * time.Second
	}
	if c.LockWait <= 0 {
		c.LockWait = 5 * time.Second
	}
	return c
}

// Result is what one Ship did.
type Result struct {
	Shipped int // events delivered (and the cursor moved past them)
	// Malformed lines (a torn write) were delivered as their text, with
	// skillwire.malformed set.
	Malformed int
	// LostFiles counts rotated files removed before they were shipped.
	LostFiles uint64
	// CursorReset says why the cursor was not believed, "" when it was.
	// Then everything still kept was sent again from the oldest file.
	CursorReset string
	Cursor      Cursor
}

// Ship delivers every complete line from the cursor to the end of the
// active file, batch by batch. It saves the cursor after each delivered
// batch. So delivery is at least once. A crash between export and save
// sends the batch again; metadata.uid de-duplicates. Ship follows the
// cursor across rotation. When a batch fails Attempts times, Ship returns
// the error. The cursor stays before the batch, so nothing is lost.
func Ship[R any](ctx context.Context, c ShipConfig[R]) (Result, error) {
	c = c.withDefaults()
	var res Result
	for {
		f, cur, active, err := openCursor(ctx, c, &res)
		if err != nil || f == nil {
			res.Cursor = cur
			return res, err
		}
		next, err := shipFile(ctx, c, f, cur, active, &res)
		f.Close()
		res.Cursor = next
		if err != nil || next.Seq == cur.Seq {
			return res, err
		}
	}
}

// openCursor resolves the cursor against the files there are. It opens
// the file the cursor names. It holds the lock, so no rotation happens in
// between. f is nil when there is nothing to read.
func openCursor[R any](ctx context.Context, c ShipConfig[R], res *Result) (f *os.File, cur Cursor, active bool, err error) {
	unlock, err := lock(ctx, c.Dir, c.LockWait, unix.LOCK_SH)
	if err != nil {
		return nil, Cursor{}, false, err
	}
	defer unlock()
	seqs, err := rotated(c.Dir)
	if err != nil {
		return nil, Cursor{}, false, err
	}
	activeSeq, oldest := uint64(1), uint64(1)
	if len(seqs) > 0 {
		activeSeq, oldest = seqs[len(seqs)-1]+1, seqs[0]
	}
	reset := func(why error) {
		res.CursorReset = why.Error()
		setAside(c.Dir)
		cur = Cursor{Seq: oldest}
	}
	cur, _, err = loadCursor(c.Dir)
	switch {
	case errors.Is(err, errCorrupt):
		reset(err)
	case err != nil:
		return nil, Cursor{}, false, err
	case cur.Seq == 0:
		cur = Cursor{Seq: oldest}
	case cur.Seq > activeSeq:
		reset(fmt.Errorf("%w: file %d is newer than the newest (%d)", errCorrupt, cur.Seq, activeSeq))
	case cur.Seq < oldest:
		// Rotated away unshipped. Say how many files; go on from the oldest.
		res.LostFiles += oldest - cur.Seq
		cur = Cursor{Seq: oldest}
	}
	for {
		name := filepath.Join(c.Dir, FileName)
		if cur.Seq != activeSeq {
			name = rotatedName(c.Dir, cur.Seq)
		}
		f, err = os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if errors.Is(err, os.ErrNotExist) && cur.Seq == activeSeq && cur.Offset == 0 {
			return nil, cur, true, nil // nothing written yet
		}
		if err != nil {
			return nil, cur, false, fmt.Errorf("events: opening %s: %w", name, err)
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, cur, false, fmt.Errorf("%w: %s is not a regular file", ErrRefused, name)
		}
		if err := cur.verify(f, fi.Size()); err != nil {
			f.Close()
			if !errors.Is(err, errCorrupt) || res.CursorReset != "" {
				return nil, cur, false, err
			}
			reset(err)
			continue
		}
		return f, cur, cur.Seq == activeSeq, nil
	}
}

// shipFile ships f from cur to its end and returns the cursor after it.
// That cursor is in the same file when f is still the active one. Else it
// is at the start of the next file. Reading and converting the next batch
// overlaps the export of the last one.
func shipFile[R any](ctx context.Context, c ShipConfig[R], f *os.File, cur Cursor, active bool, res *Result) (Cursor, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan batch[R], 1)
	go func() {
		defer close(batches)
		read(ctx, c, f, cur, active, batches)
	}()
	defer func() {
		for range batches { // let the reader finish
		}
	}()
	for b := range batches {
		if b.err != nil {
			return cur, b.err
		}
		if len(b.recs) > 0 {
			if err := export(ctx, c, b.recs); err != nil {
				cancel()
				return cur, err
			}
			res.Shipped += len(b.recs)
			res.Malformed += b.malformed
		}
		switch {
		case b.end == endNext:
			return moveOn(c.Dir, cur)
		case b.end == endCaughtUp:
			return cur, nil
		}
		cur.Offset += b.consumed
		last, err := tailDigest(f, cur.Offset)
		if err != nil {
			return cur, err
		}
		cur.Last = last
		if err := cur.save(c.Dir); err != nil {
			return cur, err
		}
	}
	return cur, ctx.Err()
}

// batch is what read hands to shipFile. It holds records to export and
// the bytes of the file they came from. end says whether the file is done.
type batch[R any] struct {
	recs      []R
	malformed int
	consumed  int64
	end       int
	err       error
}

const (
	endNone     = iota
	endCaughtUp // the active file is shipped to its last complete line
	endNext     // this file is done: go on with the next
)

// read reads f's lines from cur in batches, converting each. It reads to
// the end of the file.
func read[R any](ctx context.Context, c ShipConfig[R], f *os.File, cur Cursor, active bool, out chan<- batch[R]) {
	send := func(b batch[R]) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	offset := cur.Offset // of the first line not yet handed over
	br := bufio.NewReaderSize(io.NewSectionReader(f, offset, 1<<62), 1<<20)
	lines := make([][]byte, 0, c.Batch)
	var pending []byte // an incomplete last line
	for {
		lines = lines[:0]
		consumed := int64(0)
		for len(lines) < c.Batch {
			line, err := br.ReadBytes('\n')
			if err == nil {
				lines = append(lines, line[:len(line)-1])
				consumed += int64(len(line))
				continue
			}
			if errors.Is(err, io.EOF) {
				if len(line) > 0 {
					pending = append(pending[:0], line...)
				}
				break
			}
			send(batch[R]{err: fmt.Errorf("events: reading: %w", err)})
			return
		}
		if len(lines) > 0 {
			recs, malformed := c.Convert(ctx, lines)
			if !send(batch[R]{recs: recs, malformed: malformed, consumed: consumed}) {
				return
			}
			offset += consumed
			continue
		}
		if active && !rotatedSince(c.Dir, cur.Seq) {
			send(batch[R]{end: endCaughtUp})
			return
		}
		if active {
			// Rotated since it was opened. What was appended before the
			// rotation is still to read, then the next file.
			active = false
			br.Reset(io.NewSectionReader(f, offset, 1<<62))
			pending = pending[:0]
			continue
		}
		var b batch[R]
		if len(pending) > 0 {
			// A rotated file never grows: its unterminated tail is torn.
			b.recs, b.malformed = c.Convert(ctx, [][]byte{pending})
		}
		b.end = endNext
		send(b)
		return
	}
}

// moveOn saves a cursor at the start of the file after cur's.
func moveOn(dir string, cur Cursor) (Cursor, error) {
	next := Cursor{Seq: cur.Seq + 1}
	return next, next.save(dir)
}

// rotatedSince says whether the active file of sequence seq has been
// rotated, that is renamed to its number.
func rotatedSince(dir string, seq uint64) bool {
	_, err := os.Lstat(filepath.Join(dir, FileName+"."+strconv.FormatUint(seq, 10)))
	return err == nil
}

// export sends one batch, retrying with backoff and jitter.
func export[R any](ctx context.Context, c ShipConfig[R], recs []R) error {
	pause := c.Backoff
	for attempt := 1; ; attempt++ {
		err := c.Export(ctx, recs)
		if err == nil {
			return nil
		}
		if attempt >= c.Attempts || ctx.Err() != nil {
			return fmt.Errorf("events: delivering %d events failed %d times: %w", len(recs), attempt, err)
		}
		wait := pause/2 + rand.N(pause/2+1)
		select {
		case <-ctx.Done():
			return fmt.Errorf("events: delivering %d events: %w", len(recs), ctx.Err())
		case <-time.After(wait):
		}
		pause = min(2*pause, c.MaxBackoff)
	}
}

// ErrExporter: the OTLP exporter could not be made from its settings.
var ErrExporter = errors.New("events: the OTLP exporter")
