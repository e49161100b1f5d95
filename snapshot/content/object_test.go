package content

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/skillwire/skillwire/snapshot"
)

func encode(t testing.TB, data []byte) []byte {
	t.Helper()
	b, err := appendObject(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeObject(t *testing.T) {
	data := bytes.Repeat([]byte("content "), 300)
	good := encode(t, data)
	for _, tc := range []struct {
		name string
		b    []byte
		key  snapshot.Hash
		max  int64
	}{
		{"truncated object is corrupt", good[:len(good)-3], key(data), 1 << 20},
		{"truncated header is corrupt", good[:objectHeader-1], key(data), 1 << 20},
		{"flipped frame byte is corrupt", flip(good, objectHeader+6), key(data), 1 << 20},
		{"wrong key is corrupt", good, key([]byte("other")), 1 << 20},
		{"bad magic is corrupt", flip(good, 0), key(data), 1 << 20},
		{"unknown version is corrupt", flip(good, len(objectMagic)), key(data), 1 << 20},
		{"declared size over the bound is refused", good, key(data), int64(len(data)) - 1},
		{"declared size shorter than the content is corrupt", setSize(good, len(data)-1), key(data), 1 << 20},
		{"declared size longer than the content is corrupt", setSize(good, len(data)+1), key(data), 1 << 20},
		{"trailing bytes are corrupt", append(bytes.Clone(good), 0), key(data), 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeObject(tc.key, tc.b, tc.max)
			if !errors.Is(err, ErrCorrupt) || got != nil {
				t.Fatalf("DecodeObject = %d bytes, %v; want ErrCorrupt and no bytes", len(got), err)
			}
		})
	}
	t.Run("a good object decodes to its content", func(t *testing.T) {
		got, err := DecodeObject(key(data), good, int64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("DecodeObject = %d bytes, %v", len(got), err)
		}
	})
}

func flip(b []byte, i int) []byte {
	b = bytes.Clone(b)
	b[i] ^= 1
	return b
}

func setSize(b []byte, n int) []byte {
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint64(b[len(objectMagic)+1:], uint64(n))
	return b
}
