package walker

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/skillwire/skillwire/anomaly"
	"golang.org/x/sys/unix"
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
		"namlen short":       func(b []byte) []byte { binary.NativeEndian.PutUint16(b[18:], 2); return b },
		"no NUL after name": func(b []byte) []byte {
			binary.NativeEndian.PutUint16(b[16:], 25) // the record ends right after "name"
			return b[:25]
		},
	} {
		buf := mutate(slices.Clone(good))
		if err := parseBSDDirents(buf, darwinDirent, func([]byte, uint8) bool { return true }); err != errDirent {
			t.Errorf("%s: got %v, want errDirent", name, err)
		}
	}
}

// A listing that names one entry twice is refused: a directory changed
// while it was read in several calls. It is never turned into a manifest
// that holds one path twice.
func TestAListingThatNamesAnEntryTwiceIsRefused(t *testing.T) {
	z := func(s string) zname { return zname(s + "\x00") }
	ents := []dirent{{name: z("b")}, {name: z("a")}, {name: z("c")}}
	if err := sortNames(ents); err != nil || string(ents[0].name.bytes()) != "a" || string(ents[2].name.bytes()) != "c" {
		t.Fatalf("sorted %q %q %q, %v", ents[0].name.bytes(), ents[1].name.bytes(), ents[2].name.bytes(), err)
	}
	if err := sortNames([]dirent{{name: z("b")}, {name: z("a")}, {name: z("b")}}); err != errListing {
		t.Fatalf("a name listed twice: %v", err)
	}
}

// The walk and the nested-candidate walk record one reason per listing
// failure. The error of readDir decides it; anything unknown is
// unreadable.
func TestAListingFailureRecordsItsReason(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want anomaly.Reason
	}{
		{"too many entries", errFanout, anomaly.Fanout},
		{"a name listed twice", errListing, anomaly.Unstable},
		{"any other error", unix.EIO, anomaly.Unreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listingReason(tc.err); got != tc.want {
				t.Fatalf("listingReason(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func FuzzParseBSDDirents(f *testing.F) {
	f.Add(append(darwinRecord(3, "a", 8), darwinRecord(4, "b", 4)...))
	f.Add(append(darwinRecord(1, ".", 4), darwinRecord(0, "gone", 8)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		parseBSDDirents(buf, darwinDirent, func(n []byte, _ uint8) bool {
			if len(n) == 0 || bytes.IndexByte(n, 0) >= 0 || bytes.IndexByte(n, '/') >= 0 ||
				string(n) == "." || string(n) == ".." {
				t.Fatalf("bad name %q", n)
			}
			return true
		})
	})
}
