package events

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Backlog is what the events files hold and how much of it is unshipped.
type Backlog struct {
	Files []string // the events files there are, oldest first
	Bytes int64    // their total size
	// Cursor is where shipping stands; nil when nothing was ever shipped.
	Cursor *Cursor
	// CursorProblem says why the cursor would not be believed, "" when it
	// would be. The next ship then sends everything kept again.
	CursorProblem string
	Pending       int // complete lines after the cursor
}

// Status reads the backlog without taking the lock. It is a snapshot for
// a person. A concurrent append only makes it a line short.
func Status(dir string) (Backlog, error) {
	var b Backlog
	seqs, err := rotated(dir)
	if err != nil {
		return b, err
	}
	activeSeq := uint64(1)
	if len(seqs) > 0 {
		activeSeq = seqs[len(seqs)-1] + 1
	}
	names := map[uint64]string{}
	order := append(seqs, activeSeq)
	for _, s := range seqs {
		names[s] = rotatedName(dir, s)
	}
	names[activeSeq] = filepath.Join(dir, FileName)
	cur, ok, err := loadCursor(dir)
	switch {
	case errors.Is(err, errCorrupt):
		b.CursorProblem = err.Error()
		ok = false
	case err != nil:
		return b, err
	}
	if ok {
		b.Cursor = &cur
		if cur.Seq > activeSeq {
			b.CursorProblem = "corrupt cursor: names a file newer than the newest"
			ok = false
		}
	}
	for _, s := range order {
		f, err := os.Open(names[s])
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return b, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return b, err
		}
		b.Files = append(b.Files, names[s])
		b.Bytes += fi.Size()
		from := int64(0)
		switch {
		case ok && s < cur.Seq:
			f.Close()
			continue
		case ok && s == cur.Seq:
			if err := cur.verify(f, fi.Size()); err != nil {
				b.CursorProblem = err.Error()
				ok = false
			} else {
				from = cur.Offset
			}
		}
		n, err := countLines(io.NewSectionReader(f, from, fi.Size()-from))
		f.Close()
		if err != nil {
			return b, err
		}
		b.Pending += n
	}
	return b, nil
}

func countLines(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	buf := make([]byte, 1<<16)
	n := 0
	for {
		k, err := br.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
