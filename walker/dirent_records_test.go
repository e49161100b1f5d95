package walker

import (
	"encoding/binary"
	"slices"
	"testing"
)

// macOS's struct dirent: d_ino u64, d_seekoff u64, d_reclen u16,
// d_namlen u16, d_type u8, d_name.
var darwinDirent = bsdDirent{reclen: 16, namlen: 18, typ: 20, name: 21}

func darwinRecord(ino uint64, name string, typ uint8) []byte {
	reclen := (darwinDirent.name + len(name) + 1 + 7) &^ 7
	rec := make([]byte, reclen)
	binary.NativeEndian.PutUint64(rec, ino)
	binary.NativeEndian.PutUint16(rec[darwinDirent.reclen:], uint16(reclen))
	binary.NativeEndian.PutUint16(rec[darwinDirent.namlen:], uint16(len(name)))
	rec[darwinDirent.typ] = typ
	copy(rec[darwinDirent.name:], name)
	return rec
}

func TestParseBSDDirentsSkipsDotsAndDeletedAndKeepsRawNames(t *testing.T) {
	var buf []byte
	for _, r := range []struct {
		ino  uint64
		name string
	}{{1, "."}, {2, ".."}, {3, "a\nb"}, {0, "deleted"}, {4, "\xff\x1b[31m"}, {5, "..."}} {
		buf = append(buf, darwinRecord(r.ino, r.name, 8)...)
	}
	var got []string
	err := parseBSDDirents(buf, darwinDirent, func(name []byte, typ uint8) bool {
		if typ != 8 {
			t.Errorf("%q: type %d", name, typ)
		}
		got = append(got, string(name))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a\nb", "\xff\x1b[31m", "..."}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestParseBSDDirentsRejectsMalformedRecords(t *testing.T) {
	good := darwinRecord(7, "name", 8)
	for name, mutate := range map[string]func([]byte) []byte{
		"truncated header":   func(b []byte) []byte { return b[:10] },
		"reclen past buffer": func(b []byte) []byte { binary.NativeEndian.PutUint16(b[16:], 200); return b },
		"reclen too small":   func(b []byte) []byte { binary.NativeEndian.PutUint16(b[16:], 8); return b },
		"namlen past record": func(b []byte) []byte { binary.NativeEndian.PutUint16(b[18:], 100); return b },
		"empty name":         func(b []byte) []byte { binary.NativeEndian.PutUint16(b[18:], 0); return b },
		"slash in name":      func(b []byte) []byte { b[22] = '/'; return b },
		"NUL in name":        func(b []byte) []byte { b[22] = 0; return b },
	} {
		buf := mutate(slices.Clone(good))
		if err := parseBSDDirents(buf, darwinDirent, func([]byte, uint8) bool { return true }); err != errDirent {
			t.Errorf("%s: got %v, want errDirent", name, err)
		}
	}
}
