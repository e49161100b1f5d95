package baseline

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skillwire/skillwire/snapshot"
)

// FuzzDecodeVersion: a stored version decodes only when its manifest is
// canonical, complete and matches its digest. What decodes re-encodes to a
// manifest with the same digest. Nothing panics.
func FuzzDecodeVersion(f *testing.F) {
	m := snapshot.Manifest{Entries: []snapshot.Entry{
		{Path: []byte{}, Kind: snapshot.Dir, Mode: 0o755},
		{Path: []byte("SKILL.md"), Kind: snapshot.File, Mode: 0o644, Size: 3, Hash: snapshot.Hash{7}},
	}}
	d, _ := m.Digest()
	enc, _ := m.AppendEncoding(nil)
	good, _ := json.Marshal(versionJSON{Digest: d, At: time.Unix(0, 0).UTC(), How: HowSession, Restorable: true, Manifest: enc})
	f.Add(good)
	f.Add([]byte(`{"digest":"blake3:00","how":"session","manifest":""}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeVersion(b)
		if err != nil {
			return
		}
		got, err := v.Manifest.Digest()
		if err != nil || got != v.Digest || v.Manifest.Partial || !v.How.valid() {
			t.Fatalf("decoded an inconsistent version: %+v", v)
		}
	})
}
