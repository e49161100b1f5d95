package anomaly

import (
	"encoding/base32"
	"errors"
	"sync"

	"github.com/zeebo/blake3"
)

// A minted id is "sw" followed by 14 characters of lowercase base32
// (a-z, 2-7). It is one fixed, recognisable shape, typed instead of an
// attacker-chosen name.
const (
	IDPrefix = "sw"
	IDLen    = len(IDPrefix) + 14
	// KeySize is the size of a store's secret id key.
	KeySize = 32
)

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ErrKey is returned for a key of the wrong size.
var ErrKey = errors.New("anomaly: id key must be 32 bytes")

// Minter mints ids with one key, reusing its hasher. A BLAKE3 hasher is
// about 9 KB: one per id was most of what a fast session start allocated.
// It is safe for concurrent use.
type Minter struct {
	mu  sync.Mutex
	h   *blake3.Hasher
	buf []byte
}

// NewMinter returns the minter of key, which must be KeySize bytes.
func NewMinter(key []byte) (*Minter, error) {
	if len(key) != KeySize {
		return nil, ErrKey
	}
	h, err := blake3.NewKeyed(key)
	if err != nil {
		return nil, err
	}
	return &Minter{h: h}, nil
}

// ID derives the id of the candidate (root, name) with m's key, the
// store's secret. It is keyed BLAKE3 over length-prefixed fields. So the
// tree's author can neither predict an id nor make two candidates share
// one by choosing names.
func (m *Minter) ID(root string, name []byte) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.h.Reset() // keeps the key
	buf := m.buf[:0]
	buf = appendLen(buf, len(root))
	buf = append(buf, root...)
	buf = appendLen(buf, len(name))
	buf = append(buf, name...)
	m.buf = buf
	m.h.Write(buf)
	var sum [32]byte
	m.h.Sum(sum[:0])
	enc := idEncoding.EncodeToString(sum[:9]) // 72 bits, 70 used
	return IDPrefix + enc[:IDLen-len(IDPrefix)]
}

// IsID reports whether s has the exact shape of a minted id.
func IsID(s string) bool { return idShaped([]byte(s)) }

// IsIDPrefix reports whether s could be a unique prefix of an id a person
// typed: the "sw" prefix and at least four more id characters.
func IsIDPrefix(s string) bool {
	if len(s) < len(IDPrefix)+4 || len(s) > IDLen || s[:len(IDPrefix)] != IDPrefix {
		return false
	}
	for i := len(IDPrefix); i < len(s); i++ {
		if !isBase32(s[i]) {
			return false
		}
	}
	return true
}

// idShaped matches case-insensitively: a name "SW..." is refused too. So
// no name resembles an id even to a reader who ignores case.
func idShaped(b []byte) bool {
	if len(b) != IDLen || lower(b[0]) != 's' || lower(b[1]) != 'w' {
		return false
	}
	for _, c := range b[len(IDPrefix):] {
		if !isBase32(lower(c)) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isBase32(c byte) bool { return 'a' <= c && c <= 'z' || '2' <= c && c <= '7' }
