package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/skillwire/skillwire/anomaly"
	"github.com/zeebo/blake3"
)

// The encoding is length-prefixed throughout, so distinct manifests never
// encode alike. "a/bc" and "ab/c" differ, as do file "x" holding "y" and
// empty file "xy". So do an anomaly and a symlink whose target spells the
// reason.
//
//	manifest = uvarint(Version) flags [uvarint(len) link] uvarint(count) entry*
//	flags    = bit 0: partial, bit 1: via link
//	entry    = uvarint(len) path kind payload
//	payload  = dir: uvarint(mode) | file: uvarint(size) uvarint(mode) hash[32]
//	         | symlink: uvarint(len) target | anomaly: reason byte

const (
	flagPartial = 1 << 0
	flagViaLink = 1 << 1
)

// Errors from Encode and Decode.
var (
	ErrNotCanonical = errors.New("snapshot: manifest is not canonical")
	ErrCorrupt      = errors.New("snapshot: malformed manifest encoding")
)

// AppendEncoding appends the canonical encoding of m to dst. It refuses a
// manifest that is not canonical rather than fixing it up: unsorted or
// duplicate paths, a bad path, an unknown kind or reason.
func (m *Manifest) AppendEncoding(dst []byte) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return dst, err
	}
	dst = m.appendHeader(dst)
	for i := range m.Entries {
		dst = m.Entries[i].append(dst)
	}
	return dst, nil
}

func (m *Manifest) appendHeader(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, Version)
	var flags byte
	if m.Partial {
		flags |= flagPartial
	}
	if m.ViaLink {
		flags |= flagViaLink
	}
	dst = append(dst, flags)
	if m.ViaLink {
		dst = appendBytes(dst, m.Link)
	}
	return binary.AppendUvarint(dst, uint64(len(m.Entries)))
}

func (e *Entry) append(dst []byte) []byte {
	dst = appendBytes(dst, e.Path)
	dst = append(dst, byte(e.Kind))
	switch e.Kind {
	case Dir:
		dst = binary.AppendUvarint(dst, uint64(e.Mode))
	case File:
		dst = binary.AppendUvarint(dst, uint64(e.Size))
		dst = binary.AppendUvarint(dst, uint64(e.Mode))
		dst = append(dst, e.Hash[:]...)
	case Symlink:
		dst = appendBytes(dst, e.Target)
	case Anomaly:
		dst = append(dst, byte(e.Reason))
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// digester is a derive-key hasher of digestContext and a buffer, reused.
// Together they are about 73 KB, and a session start digests every
// candidate.
type digester struct {
	h   *blake3.Hasher
	buf []byte
}

var digesters = sync.Pool{New: func() any {
	return &digester{h: blake3.NewDeriveKey(digestContext), buf: make([]byte, 0, 64<<10)}
}}

// Digest is the BLAKE3 derive-key digest of m's canonical encoding. The
// context string names skillwire and the manifest version. The encoding is
// streamed into the hash a chunk at a time, never built whole. A manifest
// of long paths must not cost its size again in memory.
func (m *Manifest) Digest() (Hash, error) {
	if err := m.Validate(); err != nil {
		return Hash{}, err
	}
	dg := digesters.Get().(*digester)
	defer digesters.Put(dg)
	h, buf := dg.h, dg.buf[:0]
	h.Reset() // keeps the derived key
	buf = m.appendHeader(buf)
	for i := range m.Entries {
		buf = m.Entries[i].append(buf)
		if len(buf) >= 48<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var d Hash
	h.Sum(d[:0])
	return d, nil
}

// Validate checks that m is canonical. Every path is well formed, and
// paths strictly increase by ComparePaths. Kinds and reasons are known,
// payloads in range. A link is present exactly when ViaLink is set.
func (m *Manifest) Validate() error {
	if !m.ViaLink && m.Link != nil {
		return fmt.Errorf("%w: link text without ViaLink", ErrNotCanonical)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		if !validPath(e.Path) {
			return fmt.Errorf("%w: entry %d: bad path", ErrNotCanonical, i)
		}
		if i > 0 && ComparePaths(m.Entries[i-1].Path, e.Path) >= 0 {
			return fmt.Errorf("%w: entry %d: out of order or duplicate", ErrNotCanonical, i)
		}
		if err := e.validPayload(); err != nil {
			return fmt.Errorf("%w: entry %d: %v", ErrNotCanonical, i, err)
		}
	}
	return nil
}

func (e *Entry) validPayload() error {
	zeroHash := e.Hash == Hash{}
	switch e.Kind {
	case Dir:
		if e.Mode&^07777 != 0 || e.Size != 0 || !zeroHash || e.Target != nil || e.Reason != 0 {
			return errors.New("dir payload")
		}
	case File:
		if e.Mode&^07777 != 0 || e.Size < 0 || e.Target != nil || e.Reason != 0 {
			return errors.New("file payload")
		}
	case Symlink:
		if e.Mode != 0 || e.Size != 0 || !zeroHash || e.Target == nil || e.Reason != 0 {
			return errors.New("symlink payload")
		}
	case Anomaly:
		if e.Mode != 0 || e.Size != 0 || !zeroHash || e.Target != nil || !e.Reason.Valid() {
			return errors.New("anomaly payload")
		}
	default:
		return fmt.Errorf("unknown kind %d", e.Kind)
	}
	return nil
}

// validPath accepts "" (the candidate) or non-empty components joined by
// single '/', none "." or "..", no NUL byte.
func validPath(p []byte) bool {
	if len(p) == 0 {
		return true
	}
	for comp := range bytes.SplitSeq(p, []byte{'/'}) {
		if len(comp) == 0 || string(comp) == "." || string(comp) == ".." || bytes.IndexByte(comp, 0) >= 0 {
			return false
		}
	}
	return true
}

// Decode parses a canonical encoding. It is the left inverse of
// AppendEncoding. It rejects every byte string AppendEncoding cannot
// produce, so a stored manifest is exactly what was encoded.
func Decode(b []byte) (Manifest, error) {
	d := decoder{b: b}
	var m Manifest
	if v := d.uvarint(); v != Version {
		return m, fmt.Errorf("%w: version %d", ErrCorrupt, v)
	}
	flags := d.byte()
	if flags&^(flagPartial|flagViaLink) != 0 {
		return m, fmt.Errorf("%w: flags", ErrCorrupt)
	}
	m.Partial = flags&flagPartial != 0
	m.ViaLink = flags&flagViaLink != 0
	if m.ViaLink {
		m.Link = d.bytes()
	}
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) { // every entry takes at least one byte
		return m, fmt.Errorf("%w: entry count", ErrCorrupt)
	}
	m.Entries = make([]Entry, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		var e Entry
		e.Path = d.bytes()
		e.Kind = Kind(d.byte())
		switch e.Kind {
		case Dir:
			e.Mode = d.mode()
		case File:
			size := d.uvarint()
			if size > 1<<62 {
				d.fail()
			}
			e.Size = int64(size)
			e.Mode = d.mode()
			copy(e.Hash[:], d.take(len(e.Hash)))
		case Symlink:
			e.Target = d.bytes()
		case Anomaly:
			e.Reason = anomaly.Reason(d.byte())
		default:
			d.fail()
		}
		m.Entries = append(m.Entries, e)
	}
	if d.err != nil {
		return Manifest{}, d.err
	}
	if len(d.b) != 0 {
		return Manifest{}, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return m, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrCorrupt
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	// Reject overlong varints too: a canonical encoding has exactly one form.
	if n <= 0 || n != len(binary.AppendUvarint(nil, v)) {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	b := d.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail()
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

// bytes reads a length-prefixed field into a fresh slice, never nil. So a
// decoded empty link or target stays distinguishable from an absent one.
func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail()
	}
	b := d.take(int(n))
	if d.err != nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func (d *decoder) mode() uint32 {
	v := d.uvarint()
	if v > 07777 {
		d.fail()
	}
	return uint32(v)
}
