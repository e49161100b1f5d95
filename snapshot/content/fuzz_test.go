package content

import (
	"bytes"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
)

const fuzzMax = 64 << 10

// FuzzDecodeObject: any bytes under any key never panic. They never yield
// more than the bound, nor content whose hash is not the key.
func FuzzDecodeObject(f *testing.F) {
	for _, d := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("ab"), 4000)} {
		k := key(d)
		f.Add(encode(f, d), k[:])
		f.Add(encode(f, d), make([]byte, 32))
	}
	f.Fuzz(func(t *testing.T, b, k []byte) {
		var kk snapshot.Hash
		copy(kk[:], k)
		got, err := DecodeObject(kk, b, fuzzMax)
		if err != nil {
			if got != nil {
				t.Fatal("bytes returned with an error")
			}
			return
		}
		if cap(got) > fuzzMax+1 || key(got) != kk {
			t.Fatalf("returned %d bytes (cap %d) whose hash is not the key", len(got), cap(got))
		}
	})
}

// FuzzParseIndex: any pack tail never panics. Every entry it accepts lies
// inside the pack's objects area.
func FuzzParseIndex(f *testing.F) {
	entries := []indexed{{key([]byte("a")), loc{int64(len(packMagic)), uint32(objectHeader)}}}
	off := int64(len(packMagic) + objectHeader)
	tail := appendIndex(nil, entries, off)
	f.Add(tail, off+int64(len(tail)))
	f.Add(appendIndex(nil, nil, int64(len(packMagic))), int64(packMinSize))
	f.Fuzz(func(t *testing.T, tail []byte, size int64) {
		got, err := parseIndex(tail, size)
		if err != nil {
			return
		}
		idx := size - int64(len(tail))
		for _, e := range got {
			if e.off < int64(len(packMagic)) || e.off+int64(e.n) > idx {
				t.Fatalf("entry %+v outside the objects area [%d, %d)", e, len(packMagic), idx)
			}
		}
	})
}
