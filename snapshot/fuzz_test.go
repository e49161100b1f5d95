package snapshot

import (
	"bytes"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
)

// genManifest interprets fuzz bytes as a canonical manifest. Any input
// yields a valid one, so the fuzzer explores the encoder's whole domain.
func genManifest(b []byte) *Manifest {
	m := &Manifest{}
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	flags := next()
	m.Partial = flags&1 != 0
	if flags&2 != 0 {
		m.ViaLink = true
		m.Link = []byte{}
		for range int(next() % 4) {
			m.Link = append(m.Link, next())
		}
	}
	seen := map[string]bool{}
	for n := int(next() % 8); n > 0; n-- {
		var path []byte
		for c := int(next() % 3); c >= 0; c-- {
			if len(path) > 0 {
				path = append(path, '/')
			}
			comp := []byte{'a' + next()%4}
			if x := next(); x%3 == 0 {
				comp = append(comp, x) // arbitrary bytes, '/' and NUL fixed below
			}
			for i, ch := range comp {
				if ch == '/' || ch == 0 {
					comp[i] = 'z'
				}
			}
			path = append(path, comp...)
		}
		if seen[string(path)] {
			continue
		}
		seen[string(path)] = true
		e := Entry{Path: path}
		switch next() % 4 {
		case 0:
			e.Kind, e.Mode = Dir, uint32(next())&07777
		case 1:
			e.Kind, e.Mode, e.Size = File, uint32(next())<<4&07777, int64(next())
			e.Hash[0], e.Hash[31] = next(), next()
		case 2:
			e.Kind, e.Target = Symlink, []byte{next()}
		case 3:
			e.Kind, e.Reason = Anomaly, anomaly.Reason(1+next()%11)
		}
		m.Entries = append(m.Entries, e)
	}
	slices.SortFunc(m.Entries, func(x, y Entry) int { return ComparePaths(x.Path, y.Path) })
	return m
}

// Decode is the left inverse of AppendEncoding, so the encoding is
// injective. Two different manifests never share an encoding.
func FuzzEncodingInjective(f *testing.F) {
	f.Add([]byte{3, 2, 'x', 'y', 3, 1, 2, 0, 1, 1, 7, 9}, []byte{1, 0, 2, 0, 0})
	f.Add([]byte{0, 2, 0, 1, 0, 1}, []byte{0, 2, 0, 1, 0, 2})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ma, mb := genManifest(a), genManifest(b)
		ea, err := ma.AppendEncoding(nil)
		if err != nil {
			t.Fatalf("generated manifest not canonical: %v", err)
		}
		eb, err := mb.AppendEncoding(nil)
		if err != nil {
			t.Fatalf("generated manifest not canonical: %v", err)
		}
		back, err := Decode(ea)
		if err != nil || !back.Equal(ma) {
			t.Fatalf("round trip failed: %v", err)
		}
		if bytes.Equal(ea, eb) != ma.Equal(mb) {
			t.Fatalf("encodings equal %v, manifests equal %v", bytes.Equal(ea, eb), ma.Equal(mb))
		}
	})
}

// Whatever bytes a corrupted store holds, Decode rejects them or returns
// the one manifest that encodes to exactly those bytes.
func FuzzDecode(f *testing.F) {
	m := &Manifest{Entries: []Entry{{Kind: Dir, Mode: 0o755}, {Path: []byte("a"), Kind: File, Size: 1}}}
	enc, _ := m.AppendEncoding(nil)
	f.Add(enc)
	f.Add([]byte{1, 3, 1, 'x', 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		again, err := m.AppendEncoding(nil)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("decoded %x but it encodes to %x (%v)", b, again, err)
		}
	})
}
