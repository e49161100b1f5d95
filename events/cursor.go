package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"syscall"
)

// cursorName is where the shipper keeps how far it has delivered.
const cursorName = "events.cursor"

// Cursor is how far the shipper has delivered: Offset bytes of the file
// with sequence number Seq. Seq is a rotated file's number, or the active
// file's. The active file's is the highest rotated number plus one. It
// keeps that number when it is rotated.
type Cursor struct {
	Seq    uint64 `json:"seq"`
	Offset int64  `json:"offset"`
	// Last is a digest of the bytes before Offset. So a cursor that points
	// anywhere else is caught: a rewritten file, a hand edit.
	Last string `json:"last,omitempty"`
	// Check is a CRC-32 of the fields above. So a torn or flipped cursor
	// file is caught before it is believed.
	Check string `json:"check"`
}

func (c Cursor) sum() string {
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE(fmt.Appendf(nil, "%d/%d/%s", c.Seq, c.Offset, c.Last)))
}

// tailWindow is how much of the file before the offset Last digests.
const tailWindow = 4096

// tailDigest digests the tailWindow bytes of f before offset.
func tailDigest(f *os.File, offset int64) (string, error) {
	if offset == 0 {
		return "", nil
	}
	start := max(offset-tailWindow, 0)
	b := make([]byte, offset-start)
	if _, err := f.ReadAt(b, start); err != nil {
		return "", fmt.Errorf("events: reading for the cursor: %w", err)
	}
	if b[len(b)-1] != '\n' {
		return "", fmt.Errorf("%w: offset %d is not at a line's end", errCorrupt, offset)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

// errCorrupt marks a cursor that cannot be believed. The shipper then
// sends everything still kept again, so no event is lost to it. Delivery
// is at least once; the receiver de-duplicates on metadata.uid.
var errCorrupt = errors.New("corrupt cursor")

// loadCursor reads the cursor. ok is false when there is none yet.
func loadCursor(dir string) (c Cursor, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, cursorName))
	if errors.Is(err, os.ErrNotExist) {
		return Cursor{}, false, nil
	}
	if err != nil {
		return Cursor{}, false, fmt.Errorf("events: reading the cursor: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Cursor{}, true, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	if c.Check != c.sum() {
		return Cursor{}, true, fmt.Errorf("%w: checksum mismatch", errCorrupt)
	}
	return c, true, nil
}

// verify checks that the cursor points just past a line of f. It checks
// that the bytes before it are the ones it shipped.
func (c Cursor) verify(f *os.File, size int64) error {
	if c.Offset < 0 || c.Offset > size {
		return fmt.Errorf("%w: offset %d past the end (%d bytes)", errCorrupt, c.Offset, size)
	}
	d, err := tailDigest(f, c.Offset)
	if err != nil {
		return err
	}
	if d != c.Last {
		return fmt.Errorf("%w: the bytes before offset %d are not the ones shipped", errCorrupt, c.Offset)
	}
	return nil
}

// save writes the cursor atomically: temp file, fsync, rename.
func (c Cursor) save(dir string) error {
	c.Check = c.sum()
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	tmp := filepath.Join(dir, cursorName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("events: saving the cursor: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, cursorName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("events: saving the cursor: %w", err)
	}
	return nil
}

// setAside keeps a corrupt cursor as evidence beside the new one.
func setAside(dir string) {
	os.Rename(filepath.Join(dir, cursorName), filepath.Join(dir, cursorName+".corrupt"))
}
