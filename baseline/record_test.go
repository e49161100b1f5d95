package baseline

import (
	"bytes"
	"testing"
	"time"

	"github.com/skillwire/skillwire/baseline/verdict"
	"github.com/skillwire/skillwire/claude"
	"github.com/skillwire/skillwire/snapshot"
)

func sampleRecord() *Record {
	d := snapshot.Hash{1, 2, 3}
	return &Record{ID: "swabcdefghijklmn", Root: []byte("/r/\xffskills"), Scope: claude.Global, Kind: claude.Skills,
		Name: []byte("a\nb"), Digest: &d, Status: StatusVetted,
		Verdict:   &Verdict{Verdict: verdict.Block, Digest: &d, Reviewer: "r", At: time.Unix(1, 0).UTC()},
		FirstSeen: time.Unix(0, 0).UTC(), Updated: time.Unix(2, 0).UTC()}
}

func TestRecordRoundTripIsExact(t *testing.T) {
	r := sampleRecord()
	b, err := encodeRecord(r)
	must(t, err)
	back, err := decodeRecord(b)
	must(t, err)
	again, err := encodeRecord(back)
	must(t, err)
	if !bytes.Equal(b, again) || !bytes.Equal(back.Root, r.Root) || !bytes.Equal(back.Name, r.Name) {
		t.Fatalf("round trip differs:\n%s\n%s", b, again)
	}
}

func TestDecodeRecordRefusesInvalidRecords(t *testing.T) {
	good, _ := encodeRecord(sampleRecord())
	for name, b := range map[string][]byte{
		"unknown field":  bytes.Replace(good, []byte(`"status"`), []byte(`"x":1,"status"`), 1),
		"trailing":       append(bytes.Clone(good), []byte(" {}")...),
		"bad id":         bytes.Replace(good, []byte("swabcdefghijklmn"), []byte("sw$(x)"), 1),
		"bad status":     bytes.Replace(good, []byte(`"vetted"`), []byte(`"trusted"`), 1),
		"bad verdict":    bytes.Replace(good, []byte(`"BLOCK"`), []byte(`"OK"`), 1),
		"bad scope":      bytes.Replace(good, []byte(`"global"`), []byte(`"world"`), 1),
		"not json":       []byte("\x00\x01"),
		"vetted no verd": bytes.Replace(good, []byte(`"verdict":{`), []byte(`"verdictx":{`), 1),
	} {
		if _, err := decodeRecord(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	good, _ := encodeRecord(sampleRecord())
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			return
		}
		enc, err := encodeRecord(r)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		back, err := decodeRecord(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if again, _ := encodeRecord(back); !bytes.Equal(enc, again) {
			t.Fatal("encoding is not stable")
		}
	})
}
