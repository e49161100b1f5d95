package walker

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// direntBuf builds a getdents64 buffer the way the kernel lays it out.
func direntBuf(names ...string) []byte {
	var buf []byte
	for i, n := range names {
		reclen := (direntNameOff + len(n) + 1 + 7) &^ 7
		rec := make([]byte, reclen)
		binary.NativeEndian.PutUint64(rec[0:], uint64(i+1))
		binary.NativeEndian.PutUint64(rec[8:], uint64(i+1))
		binary.NativeEndian.PutUint16(rec[16:], uint16(reclen))
		rec[18] = 8 // DT_REG
		copy(rec[direntNameOff:], n)
		buf = append(buf, rec...)
	}
	return buf
}

func TestParseDirentsSkipsDotsAndKeepsRawNames(t *testing.T) {
	buf := direntBuf(".", "..", "a", "b\nc", "\xff\xfe")
	var got []string
	if err := parseDirents(buf, func(n []byte, typ uint8) bool {
		got = append(got, string(n))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b\nc", "\xff\xfe"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %q", got)
	}
}

func TestParseDirentsRejectsMalformedRecords(t *testing.T) {
	good := direntBuf("name")
	zeroLen := bytes.Clone(good)
	binary.NativeEndian.PutUint16(zeroLen[16:], 0)
	tooLong := bytes.Clone(good)
	binary.NativeEndian.PutUint16(tooLong[16:], uint16(len(good)+8))
	noNUL := bytes.Clone(good)
	for i := direntNameOff; i < len(noNUL); i++ {
		noNUL[i] = 'x'
	}
	slash := direntBuf("a/b")
	for name, buf := range map[string][]byte{"zero reclen": zeroLen, "reclen past end": tooLong,
		"no NUL": noNUL, "slash in name": slash, "short": good[:10]} {
		if err := parseDirents(buf, func([]byte, uint8) bool { return true }); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseDirents(f *testing.F) {
	f.Add(direntBuf("a", "b"))
	f.Add(direntBuf(".", "..", "x\xff"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		parseDirents(buf, func(n []byte, _ uint8) bool {
			if len(n) == 0 || bytes.IndexByte(n, 0) >= 0 || bytes.IndexByte(n, '/') >= 0 ||
				string(n) == "." || string(n) == ".." {
				t.Fatalf("bad name %q", n)
			}
			return true
		})
	})
}
