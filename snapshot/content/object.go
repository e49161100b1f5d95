package content

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/skillwire/skillwire/snapshot"
	"github.com/zeebo/blake3"
)

// An object is one file's content: a fixed header, then one zstd frame.
//
//	"swob" | version (1 byte) | uncompressed size (8 bytes, little endian) | zstd frame
//
// The declared size lets the decoder refuse an object larger than the
// caller's bound. It refuses before it allocates.
const (
	objectMagic   = "swob"
	objectVersion = 1
	objectHeader  = len(objectMagic) + 1 + 8
)

// HardMaxObject bounds every decoder the package makes: the walker's default
// per-file cap (walker.DefaultLimits.MaxFileBytes). No object is ever larger.
const HardMaxObject = 256 << 20

var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
	codecErr  error
)

// codec returns the package's shared encoder and decoder. Both are safe for
// concurrent EncodeAll/DecodeAll. Making one costs far more than using it.
func codec() (*zstd.Encoder, *zstd.Decoder, error) {
	codecOnce.Do(func() {
		// The fastest level: keeping content must cost a scan little. BLAKE3
		// over the result replaces zstd's own checksum.
		encoder, codecErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithWindowSize(1<<20))
		if codecErr != nil {
			return
		}
		// CapLimit makes DecodeAll stop at cap(dst). The declared size is the
		// allocation, whatever the frame claims.
		decoder, codecErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderMaxMemory(HardMaxObject),
			zstd.WithDecoderMaxWindow(8<<20),
			zstd.WithDecodeAllCapLimit(true))
	})
	return encoder, decoder, codecErr
}

// appendObject appends the encoding of data to dst.
func appendObject(dst, data []byte) ([]byte, error) {
	enc, _, err := codec()
	if err != nil {
		return dst, err
	}
	dst = append(dst, objectMagic...)
	dst = append(dst, objectVersion)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(data)))
	return enc.EncodeAll(data, dst), nil
}

// DecodeObject decodes one object and returns its content only when the
// content's BLAKE3-256 is key and its length the declared size. An object
// declaring more than max bytes is refused before anything is allocated.
// Every failure wraps ErrCorrupt.
func DecodeObject(key snapshot.Hash, b []byte, max int64) ([]byte, error) {
	if len(b) < objectHeader || string(b[:len(objectMagic)]) != objectMagic {
		return nil, fmt.Errorf("%w: not an object", ErrCorrupt)
	}
	if v := b[len(objectMagic)]; v != objectVersion {
		return nil, fmt.Errorf("%w: object version %d", ErrCorrupt, v)
	}
	size := binary.LittleEndian.Uint64(b[len(objectMagic)+1:])
	if size > uint64(min(max, HardMaxObject)) {
		return nil, fmt.Errorf("%w: object declares %d bytes, over the bound of %d", ErrCorrupt, size, max)
	}
	_, dec, err := codec()
	if err != nil {
		return nil, err
	}
	// One spare byte of capacity: a frame longer than declared fills it. The
	// length check catches it instead of cutting it to fit.
	out, err := dec.DecodeAll(b[objectHeader:], make([]byte, 0, size+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%w: object holds %d bytes, declares %d", ErrCorrupt, len(out), size)
	}
	if snapshot.Hash(blake3.Sum256(out)) != key {
		return nil, fmt.Errorf("%w: content does not match %s", ErrCorrupt, key)
	}
	return out, nil
}
