package storefile

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt maps the file and trusts its meta pages. A store truncated below the
// size its meta page claims makes bbolt fault (SIGBUS) inside Open. No
// recover can catch that. So precheck reads the two meta pages itself. It
// refuses a file shorter than the newest valid one says it is.
//
// A meta page starts with the page header: id u64, flags u16, count u16,
// overflow u32. Then come magic, version, pageSize and flags, each u32. Then
// the root bucket (root u64, sequence u64), and freelist, pgid and txid, each
// u64. Last is checksum u64, the FNV-64a of the meta fields before it.
const (
	boltMagic     = 0xED0CDAED
	boltVersion   = 2
	pageHeader    = 16
	metaChecksum  = 56
	metaSize      = 64
	minPageSize   = 1024
	maxPageSize   = 1 << 16
	metaPageFlags = 0x04
)

type boltMeta struct {
	pageSize, pgid, txid uint64
}

func readMeta(f *os.File, off int64) (boltMeta, bool) {
	buf := make([]byte, pageHeader+metaSize)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return boltMeta{}, false
	}
	le := binary.LittleEndian
	if le.Uint16(buf[8:]) != metaPageFlags {
		return boltMeta{}, false
	}
	m := buf[pageHeader:]
	h := fnv.New64a()
	h.Write(m[:metaChecksum])
	if le.Uint32(m[0:]) != boltMagic || le.Uint32(m[4:]) != boltVersion || h.Sum64() != le.Uint64(m[metaChecksum:]) {
		return boltMeta{}, false
	}
	ps := uint64(le.Uint32(m[8:]))
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return boltMeta{}, false
	}
	return boltMeta{pageSize: ps, pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

func precheck(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlagsNoFollow, 0)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m0, ok0 := readMeta(f, 0)
	var m1 boltMeta
	ok1 := false
	if ok0 {
		m1, ok1 = readMeta(f, int64(m0.pageSize))
	}
	best, ok := m0, ok0
	if ok1 && (!ok0 || m1.txid > m0.txid) {
		best, ok = m1, true
	}
	if !ok {
		return fmt.Errorf("%w: %s has no valid meta page; move it aside to start a new store", ErrCorrupt, path)
	}
	if need := best.pgid * best.pageSize; uint64(fi.Size()) < need {
		return fmt.Errorf("%w: %s is truncated (%d of %d bytes); move it aside to start a new store", ErrCorrupt, path, fi.Size(), need)
	}
	return nil
}
