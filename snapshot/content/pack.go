package content

import (
	"encoding/binary"
	"fmt"

	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// A pack holds the objects of one batch. So a first scan of 10,000 files
// costs one file and one fsync, not 10,000 of each.
//
//	"swpack\x00" version | object... | index entry... | trailer
//	index entry: key (32) | offset (8) | length (4)
//	trailer: count (4) | index offset (8) | BLAKE3-256 of header+index+count+offset (32) | "swpkend\x01"
//
// All integers are little endian. The trailer's checksum covers the index,
// so a damaged index is detected as a whole. Each object is still verified
// against its key when read.
const (
	packMagic          = "swpack\x00\x01"
	packEnd            = "swpkend\x01"
	indexEntry         = 32 + 8 + 4
	packTrailer        = 4 + 8 + 32 + len(packEnd)
	packMinSize        = len(packMagic) + packTrailer
	maxEncodedAt int64 = HardMaxObject + HardMaxObject/64 + int64(objectHeader) + 1<<16 // zstd's worst case for incompressible input, with room
)

// loc is where one object lives.
type loc struct {
	off int64
	n   uint32
}

type indexed struct {
	key snapshot.Hash
	loc
}

// appendIndex appends the index and trailer of a pack whose objects end at
// indexOff.
func appendIndex(dst []byte, entries []indexed, indexOff int64) []byte {
	start := len(dst)
	for _, e := range entries {
		dst = append(dst, e.key[:]...)
		dst = binary.LittleEndian.AppendUint64(dst, uint64(e.off))
		dst = binary.LittleEndian.AppendUint32(dst, e.n)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(entries)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(indexOff))
	sum := indexSum(dst[start:])
	dst = append(dst, sum[:]...)
	return append(dst, packEnd...)
}

func indexSum(indexAndCounts []byte) [32]byte {
	h := blake3.New()
	h.Write([]byte(packMagic))
	h.Write(indexAndCounts)
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// indexLen reads the trailer, the last packTrailer bytes of a pack of size
// bytes. It returns where the index starts and how many entries it holds.
func indexLen(trailer []byte, size int64) (indexOff int64, count int, err error) {
	if len(trailer) != packTrailer || size < int64(packMinSize) || string(trailer[packTrailer-len(packEnd):]) != packEnd {
		return 0, 0, fmt.Errorf("%w: no pack trailer", ErrCorrupt)
	}
	n := int64(binary.LittleEndian.Uint32(trailer))
	off := int64(binary.LittleEndian.Uint64(trailer[4:]))
	if off < int64(len(packMagic)) || off > size || n > (size-off)/indexEntry || off+n*indexEntry+int64(packTrailer) != size {
		return 0, 0, fmt.Errorf("%w: pack index out of bounds", ErrCorrupt)
	}
	return off, int(n), nil
}

// parseIndex parses a pack's index and trailer: the bytes from the index
// offset to the end. The pack is size bytes, and its header is proven
// separately. Every entry lies inside the objects area.
func parseIndex(tail []byte, size int64) ([]indexed, error) {
	if len(tail) < packTrailer {
		return nil, fmt.Errorf("%w: pack too short", ErrCorrupt)
	}
	off, n, err := indexLen(tail[len(tail)-packTrailer:], size)
	if err != nil {
		return nil, err
	}
	if int64(len(tail)) != size-off {
		return nil, fmt.Errorf("%w: pack index length", ErrCorrupt)
	}
	body := tail[:len(tail)-packTrailer+4+8]
	want := tail[len(body) : len(body)+32]
	if sum := indexSum(body); string(sum[:]) != string(want) {
		return nil, fmt.Errorf("%w: pack index checksum", ErrCorrupt)
	}
	out := make([]indexed, n)
	for i := range out {
		e := tail[i*indexEntry:]
		copy(out[i].key[:], e)
		out[i].off = int64(binary.LittleEndian.Uint64(e[32:]))
		out[i].n = binary.LittleEndian.Uint32(e[40:])
		if out[i].off < int64(len(packMagic)) || out[i].off > off || int64(out[i].n) < int64(objectHeader) ||
			int64(out[i].n) > off-out[i].off || int64(out[i].n) > maxEncodedAt {
			return nil, fmt.Errorf("%w: pack index entry %d out of bounds", ErrCorrupt, i)
		}
	}
	return out, nil
}
